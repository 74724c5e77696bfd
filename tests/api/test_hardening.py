"""What an audit of the service found, each with the test that failed before its fix: forwarded
addresses, bad inputs that gave 500s, bodies without a limit, interrupted deliveries, tokens
that outlived a password, a game that never started, look-alike usernames, the login lockout."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from games.models import Game, Notification
from games.notify import delivery, messages
from moderation.models import MODERATORS_GROUP

from .factories import PASSWORD, UserFactory, client_for
from .helpers import URL, game_url, start_game

pytestmark = pytest.mark.django_db


def assert_error(answer, status: int, code: str) -> dict:
    assert answer.status_code == status, (answer.status_code, answer.content[:500])
    body = answer.json()
    assert body["code"] == code and body["detail"], body
    return body


# --------------------------------------------------------------------------------------------
# 4. X-Forwarded-For from anyone is not an address


def test_throttles_ignore_forwarded_addresses_unless_a_proxy_is_trusted(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        "user": "1000/minute", "anon": "1000/minute", "auth": "3/minute"}}
    from django.core.cache import cache

    cache.clear()
    client = client_for()
    body = {"username": "nobody", "password": "wrong-password-1"}
    answers = [client.post("/api/v1/auth/token/", body, format="json",
                           HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code for n in range(6)]
    assert answers[:3] == [400, 400, 400] and answers[3:] == [429, 429, 429]
    # Behind one trusted proxy, the address is the last one it appended.
    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    spread = [client.post("/api/v1/auth/token/", body, format="json",
                          HTTP_X_FORWARDED_FOR=f"203.0.113.9, 10.0.0.{n}").status_code
              for n in range(6)]
    assert 429 not in spread
    cache.clear()


# --------------------------------------------------------------------------------------------
# 5. Bad inputs: 4xx with the contract's error body, never 500


def test_a_body_nested_a_thousand_deep_with_an_idempotency_key_is_refused():
    user = UserFactory()
    game = start_game(user, [UserFactory() for _ in range(3)])
    deep = "[" * 1000 + "]" * 1000
    answer = client_for(user).post(game_url(game.pk, "moves/"),
                                   data='{"move": ' + deep + "}",
                                   content_type="application/json",
                                   HTTP_IDEMPOTENCY_KEY="deep-1")
    assert_error(answer, 400, "invalid")
    answer = client_for(user).post(URL, data='{"game": "mascarade", "options": ' + deep + "}",
                                   content_type="application/json",
                                   HTTP_IDEMPOTENCY_KEY="deep-2")
    assert_error(answer, 400, "invalid")


def test_a_vacation_at_the_end_of_time_is_refused():
    answer = client_for(UserFactory()).post("/api/v1/me/vacations/", {
        "start": "9999-12-31", "end": "9999-12-31"}, format="json")
    assert_error(answer, 400, "invalid")


def test_a_nul_in_a_username_path_is_not_found():
    moderator = UserFactory(is_staff=True)
    from django.contrib.auth.models import Group

    moderator.groups.add(Group.objects.get(name=MODERATORS_GROUP))
    answer = client_for(moderator).post("/api/v1/moderation/users/bob%00/ban/",
                                        {"reason": "x"}, format="json")
    assert_error(answer, 404, "not_found")


def test_an_invite_that_is_not_ascii_opens_nothing_and_fails_nothing():
    creator = UserFactory()
    body = client_for(creator).post(URL, {"game": "mascarade", "options": {"players": 4},
                                          "private": True}, format="json").json()
    anonymous = Client()
    page = anonymous.get(f"/games/{body['id']}/", {"invite": "été-ü"})
    assert page.status_code == 404
    visitor = Client()
    visitor.force_login(UserFactory())
    joined = visitor.post(f"/games/{body['id']}/join/", {"invite_code": "été-ü"})
    assert joined.status_code == 404


@pytest.mark.parametrize("count", ["-1", "0", "-100", "x"])
def test_the_bots_form_takes_no_negative_count(count):
    creator = UserFactory()
    game_id = client_for(creator).post(URL, {"game": "mascarade", "options": {"players": 5}},
                                       format="json").json()["id"]
    browser = Client()
    browser.force_login(creator)
    browser.post(f"/games/{game_id}/bots/", {"count": count})
    assert Game.objects.get(pk=game_id).seats.count() == 1


# --------------------------------------------------------------------------------------------
# 6. Bodies have a limit


def test_a_body_over_the_limit_is_refused_before_it_is_read(settings):
    settings.API_MAX_BODY_BYTES = 1000
    big = '{"username": "' + "a" * 2000 + '", "password": "x"}'
    answer = client_for().post("/api/v1/auth/token/", data=big, content_type="application/json")
    assert_error(answer, 413, "too_large")
    # A form page too.
    settings.PAGE_MAX_BODY_BYTES = 1000
    page = Client().post("/accounts/login/", {"login": "a" * 2000, "password": "x"})
    assert page.status_code == 413
    # A provider's post of an inbound mail has its own, larger limit.
    settings.MAIL_WEBHOOK_MAX_BODY_BYTES = 3000
    webhook = Client().post("/anymail/postmark/inbound/", data="x" * 2000,
                            content_type="application/json")
    assert webhook.status_code != 413
    webhook = Client().post("/anymail/postmark/inbound/", data="x" * 4000,
                            content_type="application/json")
    assert webhook.status_code == 413


def test_a_body_without_a_length_is_read_up_to_the_limit_only(settings):
    from games.api.parsers import BoundedJSONParser, TooLarge

    settings.API_MAX_BODY_BYTES = 100

    class Endless:
        read_sizes: list = []

        def read(self, size=-1):
            self.read_sizes.append(size)
            return b"[" + b"1," * (size // 2)

    stream = Endless()
    with pytest.raises(TooLarge):
        BoundedJSONParser().parse(stream)
    assert stream.read_sizes == [101]


# --------------------------------------------------------------------------------------------
# 7. An interrupted delivery is retried, with its Message-ID


def test_a_delivery_interrupted_after_the_send_is_sent_again_with_the_same_message_id(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = UserFactory()
    note = Notification.objects.create(user=user, kind=Notification.Kind.STARTED,
                                       dedupe_key=f"started:test:{user.pk}",
                                       next_attempt_at=timezone.now())
    first = messages.build_email(note)
    # The worker took it and sent it, then died before recording it.
    Notification.objects.filter(pk=note.pk).update(
        status=Notification.Status.SENDING, attempts=1,
        next_attempt_at=timezone.now() - dt.timedelta(hours=1))
    delivery.deliver_due()
    note.refresh_from_db()
    assert note.status == Notification.Status.SENT and note.interrupted == 1
    assert note.attempts == 2 and "may have gone out" in note.last_error
    assert len(mail.outbox) == 1
    assert mail.outbox[0].extra_headers["Message-ID"] == first.extra_headers["Message-ID"]


def test_an_interrupted_delivery_past_its_last_attempt_is_failed_not_lost(settings):
    user = UserFactory()
    note = Notification.objects.create(
        user=user, kind=Notification.Kind.STARTED, dedupe_key=f"started:last:{user.pk}",
        next_attempt_at=timezone.now() - dt.timedelta(hours=1),
        status=Notification.Status.SENDING, attempts=delivery.MAX_ATTEMPTS)
    delivery.deliver_due()
    note.refresh_from_db()
    assert note.status == Notification.Status.FAILED and note.interrupted == 1


# --------------------------------------------------------------------------------------------
# 9. Tokens: listed, revoked, and gone with a new password


def test_tokens_are_listed_revoked_and_end_with_a_new_password():
    user = UserFactory()
    login = {"username": user.username, "password": PASSWORD}
    first = client_for().post("/api/v1/auth/token/", login, format="json").json()["token"]
    second = client_for().post("/api/v1/auth/token/", login, format="json").json()["token"]
    assert first != second
    by_first = client_for()
    by_first.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    listed = by_first.get("/api/v1/me/tokens/").json()["results"]
    assert len(listed) == 2 and [t["current"] for t in listed] == [False, True]
    assert by_first.delete(f"/api/v1/me/tokens/{listed[0]['id']}/").status_code == 204
    by_second = client_for()
    by_second.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert_error(by_second.get("/api/v1/me/"), 401, "not_authenticated")
    assert by_first.get("/api/v1/me/").status_code == 200
    assert_error(by_first.delete("/api/v1/me/tokens/nope/"), 404, "not_found")
    # Another user's token cannot be revoked by id.
    other = UserFactory()
    other_token = client_for().post("/api/v1/auth/token/", {
        "username": other.username, "password": PASSWORD}, format="json").json()["token"]
    assert_error(by_first.delete(f"/api/v1/me/tokens/{other_token[:15]}/"), 404, "not_found")
    # A new password (here through the web form) ends every token of the user.
    user.set_password("A-new-password-42")
    user.save()
    assert_error(by_first.get("/api/v1/me/"), 401, "not_authenticated")
    by_other = client_for()
    by_other.credentials(HTTP_AUTHORIZATION=f"Token {other_token}")
    assert by_other.get("/api/v1/me/").status_code == 200


def test_a_password_reset_through_the_site_ends_the_tokens(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = UserFactory()
    token = client_for().post("/api/v1/auth/token/", {
        "username": user.username, "password": PASSWORD}, format="json").json()["token"]
    browser = Client()
    browser.force_login(user)
    changed = browser.post("/accounts/password/change/", {
        "oldpassword": PASSWORD, "password1": "Another-pass-77", "password2": "Another-pass-77"})
    assert changed.status_code == 302
    api = client_for()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert_error(api.get("/api/v1/me/"), 401, "not_authenticated")


# --------------------------------------------------------------------------------------------
# 10. A game aborted before its start has no state


def test_an_aborted_game_that_never_started_reads_as_what_it_is():
    creator = UserFactory()
    client = client_for(creator)
    game_id = client.post(URL, {"game": "mascarade", "options": {"players": 4}},
                          format="json").json()["id"]
    left = client.post(game_url(game_id, "leave/"))
    assert left.status_code == 200 and left.json()["status"] == "aborted"
    seen = client_for().get(game_url(game_id)).json()
    assert seen["status"] == "aborted" and seen["state"] is None
    assert client_for().get(game_url(game_id, "legal-moves/")).json()["moves"] == []
    assert client_for().get(game_url(game_id, "events/")).json()["results"] == []
    assert Client().get(f"/games/{game_id}/").status_code == 200


# --------------------------------------------------------------------------------------------
# 12. Look-alike usernames; a lockout that does not lock the owner out


@pytest.mark.parametrize("name", ["\u0430lice", "p\u0430ypal", "\u03b1lice"])
def test_a_username_mixing_look_alike_alphabets_is_refused(name):
    answer = client_for().post("/api/v1/auth/register/", {
        "username": name, "email": "x@example.org", "password": "Correct-horse-88"},
        format="json")
    assert_error(answer, 400, "invalid")
    page = Client().post("/accounts/signup/", {
        "username": name, "email": "y@example.org", "password1": "Correct-horse-88",
        "password2": "Correct-horse-88"})
    assert page.status_code == 200 and "alphabets" in page.content.decode()


def test_a_full_width_username_is_stored_in_its_plain_form():
    answer = client_for().post("/api/v1/auth/register/", {
        "username": "ｂｏｂ", "email": "bob@example.org", "password": "Correct-horse-88"},
        format="json")
    assert answer.status_code == 201 and answer.json()["username"] == "bob"
    again = client_for().post("/api/v1/auth/register/", {
        "username": "BOB", "email": "bob2@example.org", "password": "Correct-horse-88"},
        format="json")
    assert_error(again, 400, "invalid")


def test_failed_logins_slow_the_guesser_down_but_never_lock_the_owner_out():
    from django.core.cache import cache

    cache.clear()
    owner = UserFactory()
    attacker = Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(30):
        attacker.post("/accounts/login/", {"login": owner.username, "password": "guess"})
    refused = attacker.post("/accounts/login/", {"login": owner.username,
                                                 "password": "guess"})
    assert refused.status_code == 429
    # The owner, from their own address, logs in with the right password.
    browser = Client(REMOTE_ADDR="192.0.2.44")
    answer = browser.post("/accounts/login/", {"login": owner.username, "password": PASSWORD})
    assert answer.status_code == 302
    cache.clear()
