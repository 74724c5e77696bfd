"""Sign-up through the site's real allauth views: the new account keeps the language it signed up
in and the browser's time zone, and an invitation link survives sign-up, email verification and
login, ending on the game's join form."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client, RequestFactory
from django.utils import translation

from accounts.models import User
from tests.api.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    settings.ACCOUNT_RATE_LIMITS = False


def sign_up(client: Client, name: str, path: str = "/accounts/signup/", **extra) -> object:
    return client.post(path, {"username": name, "email": f"{name}@example.org",
                              "password1": PASSWORD, "password2": PASSWORD, **extra})


def confirm_path(message) -> str:
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", message.body).group(0)
    return "/" + link.split("://", 1)[1].split("/", 1)[1]


def log_in(client: Client, name: str, **extra):
    return client.post("/accounts/login/", {"login": name, "password": PASSWORD, **extra})


@pytest.mark.parametrize("how", ["accept-language", "switcher"])
def test_a_french_sign_up_makes_a_french_account_with_french_mails_and_pages(how):
    if how == "accept-language":
        browser = Client(HTTP_ACCEPT_LANGUAGE="fr")
    else:
        browser = Client()
        browser.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert sign_up(browser, "elise").status_code == 302
    user = User.objects.get(username="elise")
    assert user.language == "fr"
    assert len(mail.outbox) == 1 and "Confirmez" in mail.outbox[0].subject
    # Verified and logged in from an English browser: the account's French wins.
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert english.post(confirm_path(mail.outbox[0])).status_code == 302
    assert EmailAddress.objects.get(user=user).verified
    assert log_in(english, "elise").status_code == 302
    assert "Se déconnecter" in english.get("/").content.decode()


def test_an_english_sign_up_stays_english():
    assert sign_up(Client(HTTP_ACCEPT_LANGUAGE="en"), "edward").status_code == 302
    assert User.objects.get(username="edward").language == "en"
    assert "Confirm" in mail.outbox[0].subject


def test_a_verification_mail_sent_later_is_in_the_accounts_language():
    sign_up(Client(HTTP_ACCEPT_LANGUAGE="fr"), "fanny")
    address = EmailAddress.objects.get(user__username="fanny")
    request = RequestFactory().get("/")
    with translation.override("en"):
        address.send_confirmation(request)
    assert len(mail.outbox) == 2 and "Confirmez" in mail.outbox[1].subject


def test_the_sign_up_and_log_in_pages_ask_the_browser_for_its_time_zone():
    client = Client()
    for path in ("/accounts/signup/", "/accounts/login/"):
        html = client.get(path).content.decode()
        assert re.search(r'<input type="hidden" name="timezone"[^>]*data-browser-timezone', html)
        script = re.search(r'<script src="([^"]*timezone[^"]*\.js)" defer>', html).group(1)
    body = b"".join(client.get(script).streaming_content).decode()
    assert "resolvedOptions().timeZone" in body and "data-browser-timezone" in body


def test_the_browsers_time_zone_is_stored_at_sign_up_and_junk_is_refused_silently():
    assert sign_up(Client(), "gaston", timezone="Europe/Paris").status_code == 302
    assert User.objects.get(username="gaston").timezone == "Europe/Paris"
    for junk in ("Mars/Olympus", "../../etc/passwd", "x" * 200):
        name = f"junk{len(User.objects.all())}"
        assert sign_up(Client(), name, timezone=junk).status_code == 302
        assert User.objects.get(username=name).timezone == "UTC"
    # Without JavaScript nothing is posted: UTC stays.
    assert sign_up(Client(), "nojs").status_code == 302
    assert User.objects.get(username="nojs").timezone == "UTC"


def test_the_first_log_in_stores_the_browsers_time_zone_unless_one_is_set():
    sign_up(Client(), "hugo")
    Client().post(confirm_path(mail.outbox[0]))
    assert log_in(Client(), "hugo", timezone="America/Montreal").status_code == 302
    assert User.objects.get(username="hugo").timezone == "America/Montreal"
    # Chosen (or detected) once, a zone stays: a later login from elsewhere changes nothing.
    assert log_in(Client(), "hugo", timezone="Asia/Tokyo").status_code == 302
    assert User.objects.get(username="hugo").timezone == "America/Montreal"
    sign_up(Client(), "ines", timezone="Europe/Paris")
    Client().post(confirm_path(mail.outbox[1]))
    log_in(Client(), "ines", timezone="Asia/Tokyo")
    assert User.objects.get(username="ines").timezone == "Europe/Paris"


def test_a_deadline_and_the_profile_say_their_time_zone():
    from games.models import PendingDecision
    from tests.api.factories import UserFactory
    from tests.api.helpers import start_game

    players = [UserFactory() for _ in range(4)]
    game = start_game(players[0], players[1:], options={"players": 4})
    row = PendingDecision.objects.filter(game=game).first()
    user = row.user
    user.timezone = "Europe/Paris"
    user.save()
    client = Client()
    client.force_login(user)
    html = client.get(f"/games/{game.pk}/").content.decode()
    import zoneinfo

    local = row.deadline.astimezone(zoneinfo.ZoneInfo("Europe/Paris"))
    assert f"{local:%H:%M} {local.tzname()}" in html
    profile = client.get("/accounts/profile/").content.decode()
    assert re.search(r'<option value="Europe/Paris" selected>', profile)


@pytest.fixture
def invitation():
    from games.core import services
    from games.models import Game
    from tests.api.factories import UserFactory

    body = services.create_game(UserFactory(), "mascarade", {"players": 4}, private=True).body
    game = Game.objects.get(pk=body["id"])
    return game, f"/games/{game.pk}/?invite={game.invite_code}"


def href(html: str, start: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.search(rf'href="({re.escape(start)}[^"]*)"', html).group(1))


def lands_on_the_join_form_and_joins(client: Client, answer, game, invite_url) -> None:
    from games.models import Seat

    assert answer.status_code == 302 and answer["Location"] == invite_url
    page = client.get(answer["Location"]).content.decode()
    assert "Join this game" in page and f'value="{game.invite_code}"' in page
    joined = client.post(f"/games/{game.pk}/join/", {"invite_code": game.invite_code})
    assert joined.status_code == 302
    assert Seat.objects.filter(game=game, user__username="jules").exists()


@pytest.mark.parametrize("where", ["same browser", "other browser"])
def test_an_invitation_survives_sign_up_verification_and_login(invitation, where):
    game, invite_url = invitation
    visitor = Client()
    page = visitor.get(invite_url).content.decode()
    signup = href(page, "/accounts/signup/?next=")
    assert "invite" in signup
    form = visitor.get(signup).content.decode()
    assert re.search(r'<input type="hidden" name="next" value="[^"]*invite', form)
    assert visitor.post(signup, {"username": "jules", "email": "jules@example.org",
                                 "password1": PASSWORD, "password2": PASSWORD,
                                 "next": invite_url}).status_code == 302
    link = confirm_path(mail.outbox[0])
    # Opened in the sign-up's browser, verified and logged in at once (the session holds the
    # sign-up: ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION), on to the game's join form; opened
    # elsewhere (the phone's mail app), verified, then the log-in leads to the join form.
    other = visitor if where == "same browser" else Client()
    confirm_page = other.get(link).content.decode()
    assert 'name="next"' in confirm_page
    confirmed = other.post(link, {"next": re.search(r'name="next" value="([^"]*)"',
                                                    confirm_page).group(1)})
    if where == "same browser":
        lands_on_the_join_form_and_joins(other, confirmed, game, invite_url)
        return
    assert confirmed.status_code == 302
    login_url = confirmed["Location"]
    assert login_url.startswith("/accounts/login/?next=")
    answer = other.post(login_url, {"login": "jules", "password": PASSWORD})
    lands_on_the_join_form_and_joins(other, answer, game, invite_url)


def test_a_later_login_in_the_sign_up_browser_still_leads_to_the_invitation(invitation):
    game, invite_url = invitation
    visitor = Client()
    visitor.get(invite_url)
    sign_up(visitor, "jules", path=f"/accounts/signup/?next={invite_url.replace('?', '%3F')}")
    Client().post(confirm_path(mail.outbox[0]).split("?")[0])   # verified elsewhere, no next
    # Back in the first browser, through the header's plain "Log in".
    lands_on_the_join_form_and_joins(visitor, log_in(visitor, "jules"), game, invite_url)
    # A later login goes home.
    visitor.post("/accounts/logout/")
    assert log_in(visitor, "jules")["Location"] == "/"


def test_only_a_game_invitation_is_remembered(invitation):
    visitor = Client()
    sign_up(visitor, "jules", path="/accounts/signup/?next=https://evil.example/")
    Client().post(confirm_path(mail.outbox[0]))
    answer = log_in(visitor, "jules")
    assert answer.status_code == 302 and answer["Location"] == "/"
