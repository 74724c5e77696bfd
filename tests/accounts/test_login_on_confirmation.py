"""Confirming the address logs the new player in (issue 42, item 14), where allauth's
``ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION`` allows it: in the browser that signed up, within
``ACCOUNT_LOGIN_TIMEOUT`` of the sign-up. Elsewhere the address is confirmed, the log-in page
says so, and a log-in is asked for (the link alone never logs anyone in)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client

from accounts.models import User

from .test_signup_language_and_invites import confirm_path, log_in, sign_up

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    settings.ACCOUNT_RATE_LIMITS = False


def logged_in_as(client: Client) -> str | None:
    user = User.objects.filter(pk=client.session.get("_auth_user_id")).first()
    return user.username if user else None


def test_the_link_opened_in_the_sign_up_browser_logs_the_player_in():
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert sign_up(browser, "nina").status_code == 302
    assert logged_in_as(browser) is None
    confirmed = browser.post(confirm_path(mail.outbox[0]))
    assert confirmed.status_code == 302
    assert not confirmed["Location"].startswith("/accounts/login/")
    assert logged_in_as(browser) == "nina"
    assert EmailAddress.objects.get(user__username="nina").verified
    home = browser.get(confirmed["Location"], follow=True).content.decode()
    assert "Log out" in home and "You have confirmed nina@example.org" in home


def test_the_link_opened_elsewhere_confirms_and_asks_for_a_log_in():
    sign_up(Client(), "omar")
    phone = Client(HTTP_ACCEPT_LANGUAGE="fr")
    confirmed = phone.post(confirm_path(mail.outbox[0]))
    assert confirmed.status_code == 302 and confirmed["Location"].startswith("/accounts/login/")
    assert logged_in_as(phone) is None
    page = phone.get(confirmed["Location"]).content.decode()
    assert "Vous avez confirmé omar@example.org" in page
    assert log_in(phone, "omar").status_code == 302 and logged_in_as(phone) == "omar"


def test_the_link_opened_after_the_login_timeout_asks_for_a_log_in(settings):
    settings.ACCOUNT_LOGIN_TIMEOUT = 0
    browser = Client()
    sign_up(browser, "pia")
    confirmed = browser.post(confirm_path(mail.outbox[0]))
    assert confirmed["Location"].startswith("/accounts/login/")
    assert logged_in_as(browser) is None
    assert EmailAddress.objects.get(user__username="pia").verified
