"""Accounts: API registration (verification mail), token login, profile preferences, and the
site's allauth sign-up with email verification."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.sites.models import Site
from django.core import mail
from django.test import Client

from accounts.models import User
from tests.api.factories import PASSWORD, UserFactory, client_for
from tests.api.test_games_api import assert_error

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/auth/register/"
TOKEN = "/api/v1/auth/token/"
ME = "/api/v1/me/"


def register(body):
    return client_for().post(REGISTER, body, format="json")


def confirm_link(message) -> str:
    return re.search(r"https?://\S+/accounts/confirm-email/\S+/", message.body).group(0)


def test_register_sends_a_verification_mail_and_token_login_waits_for_it():
    answer = register({"username": "alice", "email": "Alice@Example.org",
                       "password": PASSWORD})
    assert answer.status_code == 201
    user = User.objects.get(username="alice")
    assert answer.json() == {"id": user.pk, "username": "alice"}
    assert user.email == "alice@example.org" and user.check_password(PASSWORD)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    assert "Mascarade Online" in mail.outbox[0].subject
    unverified = client_for().post(TOKEN, {"username": "alice", "password": PASSWORD},
                                   format="json")
    assert_error(unverified, 403, "forbidden")
    # The link in the mail verifies the address (allauth's own view).
    site = Client()
    link = confirm_link(mail.outbox[0])
    path = link.split("://", 1)[1].split("/", 1)[1]
    assert site.post("/" + path).status_code == 302
    assert EmailAddress.objects.get(user=user).verified
    token = client_for().post(TOKEN, {"username": "alice", "password": PASSWORD},
                              format="json")
    assert token.status_code == 200 and token.json()["token"]
    again = client_for().post(TOKEN, {"username": "alice@example.org", "password": PASSWORD},
                              format="json")
    # Each login makes a token of its own (listed and revoked under /me/tokens/); both work.
    assert again.status_code == 200 and again.json()["token"] != token.json()["token"]
    for key in (token.json()["token"], again.json()["token"]):
        api = client_for()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert api.get("/api/v1/me/").json()["username"] == "alice"


@pytest.mark.parametrize(("body", "field"), [
    ({"username": "taken", "email": "new@example.org", "password": PASSWORD}, "username"),
    ({"username": "TAKEN", "email": "new@example.org", "password": PASSWORD}, "username"),
    ({"username": "new", "email": "TAKEN@example.org", "password": PASSWORD}, "email"),
    ({"username": "new", "email": "not-an-email", "password": PASSWORD}, "email"),
    ({"username": "new", "email": "new@example.org", "password": "123"}, "password"),
    ({"username": "new", "email": "new@example.org", "password": "password"}, "password"),
    ({"username": "new user", "email": "new@example.org", "password": PASSWORD}, "username"),
    ({"email": "new@example.org", "password": PASSWORD}, "username"),
    ({"username": "new", "password": PASSWORD}, "email"),
    ({"username": "new", "email": "new@example.org"}, "password"),
])
def test_register_refuses_duplicates_and_weak_passwords_clearly(body, field):
    UserFactory(username="taken", email="taken@example.org")
    answer = assert_error(register(body), 400, "invalid")
    assert answer["fields"][field] and all(isinstance(m, str) for m in answer["fields"][field])
    assert not User.objects.filter(username="new").exists()


def test_a_password_like_the_username_is_refused():
    answer = assert_error(register({"username": "marguerite", "email": "m@example.org",
                                    "password": "marguerite1"}), 400, "invalid")
    assert "password" in answer["fields"]


def test_token_errors():
    UserFactory(username="bob")
    wrong = assert_error(client_for().post(TOKEN, {"username": "bob", "password": "nope"},
                                           format="json"), 400, "invalid_credentials")
    assert "password" in wrong["detail"]
    assert_error(client_for().post(TOKEN, {"username": "nobody", "password": PASSWORD},
                                   format="json"), 400, "invalid_credentials")
    assert_error(client_for().post(TOKEN, {"username": "bob"}, format="json"), 400, "invalid")
    inactive = UserFactory(username="gone")
    inactive.is_active = False
    inactive.save()
    assert_error(client_for().post(TOKEN, {"username": "gone", "password": PASSWORD},
                                   format="json"), 400, "invalid_credentials")


def test_staff_log_in_without_a_verified_address():
    UserFactory(username="boss", is_staff=True, verified=False)
    answer = client_for().post(TOKEN, {"username": "boss", "password": PASSWORD},
                               format="json")
    assert answer.status_code == 200


def test_me_reads_and_changes_preferences():
    user = UserFactory(username="carol")
    client = client_for(user)
    assert client.get(ME).json() == {"id": user.pk, "username": "carol",
                                     "email": user.email, "language": "en",
                                     "notify_email": True, "notify_chat_digest": True,
                                     "timezone": "UTC"}
    changed = client.patch(ME, {"language": "fr", "notify_email": False,
                                "notify_chat_digest": False,
                                "timezone": "Europe/Paris", "username": "mallory"},
                           format="json")
    assert changed.status_code == 200
    assert changed.json()["language"] == "fr" and changed.json()["username"] == "carol"
    user.refresh_from_db()
    assert (user.language, user.notify_email, user.notify_chat_digest, user.timezone) == (
        "fr", False, False, "Europe/Paris")
    for bad in ({"language": "de"}, {"timezone": "Mars/Olympus"}, {"notify_email": "often"},
                {"notify_chat_digest": "daily"}):
        body = assert_error(client.patch(ME, bad, format="json"), 400, "invalid")
        assert set(body["fields"]) == set(bad)
    assert_error(client_for().get(ME), 401, "not_authenticated")
    assert_error(client_for().patch(ME, {"language": "fr"}, format="json"), 401,
                 "not_authenticated")


def test_site_signup_sends_a_verification_mail_named_after_the_site(settings):
    # allauth's one verification mail per address every 3 minutes is kept in the cache, which
    # outlives a run: a second run within 3 minutes would send none.
    settings.ACCOUNT_RATE_LIMITS = False
    site = Site.objects.get_current()
    assert site.name == "Mascarade Online" and "example.com" not in site.domain
    client = Client()
    answer = client.post("/accounts/signup/", {
        "username": "dora", "email": "dora@example.org",
        "password1": PASSWORD, "password2": PASSWORD})
    assert answer.status_code == 302
    assert len(mail.outbox) == 1 and "confirm-email" in mail.outbox[0].body
    user = User.objects.get(username="dora")
    assert not EmailAddress.objects.get(user=user).verified
    # Mandatory verification: no site login before the link is followed.
    login = Client().post("/accounts/login/", {"login": "dora", "password": PASSWORD})
    assert login.status_code == 302 and "confirm-email" in login["Location"]
