"""Mail in that does not trust its From and has limits (issue 44, items 4 and 5), on the real
database and, where the envelope matters, through the real receiver (aiosmtpd, LMTP, in a
thread of this process, with the real service behind it):

- a mail from the null envelope sender ``<>`` is automatic: stored, never played nor answered;
- a mail whose envelope sender is not its From, or which our MTA's Authentication-Results says
  failed DMARC or SPF, is refused: not played, and the player is told at their own address (in
  their language); another MTA's Authentication-Results is not trusted;
- a reply address plays for ``MAIL_REPLY_DAYS`` days; an older one is answered "too old", with
  the game now and a new address;
- answers per player and game are limited (then one "too many mails" answer, then silence), and
  so are the ignored mails stored per sender address;
- a daily beat task deletes the inbound mails past their keeping time, as the application role.
"""

from __future__ import annotations

import datetime as dt
import smtplib

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from games import tasks
from games.mail.outgoing import play_of
from games.mail.receive import receive_mail
from games.mail.receiver import start_receiver
from games.models import InboundMessage, MailPlay, MoveRecord, Notification

from .test_play_by_mail import answer, awaited, deliver, last_mail_to

pytestmark = [pytest.mark.postgres]

Status = InboundMessage.Status
DOMAIN = "mascarade.example"
AUTHSERV = "mx.mascarade.example"


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"
    settings.MAIL_DOMAIN = DOMAIN
    settings.MAIL_AUTHSERV_IDS = [AUTHSERV]


def a_listed_player(users):
    from .helpers import start_game

    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    return game, player, last_mail_to(player).reply_to[0]


def answers_to(player) -> list:
    """The answers to inbound mails (they reply to their Message-ID) delivered so far (once
    their transaction commits, or now): each to ``player`` (never to an envelope sender)."""
    answered = {f"<{mid}>" for mid in InboundMessage.objects.values_list("message_id", flat=True)}
    deliver()
    sent = [m for m in mail.outbox if m.extra_headers.get("In-Reply-To") in answered]
    assert all(m.to == [player.email] for m in sent)
    return sent


def send_lmtp(port: int, envelope_sender: str, recipient: str, raw: bytes) -> dict:
    with smtplib.LMTP("127.0.0.1", port) as client:
        return client.sendmail(envelope_sender, [recipient], raw)


# --- Item 4: the null sender ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_bounce_from_the_null_sender_is_stored_never_played_nor_answered(users):
    _game, player, address = a_listed_player(users)
    moves = MoveRecord.objects.count()
    with start_receiver(port=0, lmtp=True, domain=DOMAIN) as receiver:
        # The player's From, a valid reply address, a move: only the envelope says "bounce".
        assert send_lmtp(receiver.port, "<>", address, answer(address, player.email, "1")) == {}
    inbound = InboundMessage.objects.get()
    assert (inbound.status, inbound.detail) == (Status.AUTOMATIC, "null-sender")
    assert inbound.via == "lmtp" and inbound.user is None
    assert MoveRecord.objects.count() == moves
    assert not Notification.objects.filter(kind="mail_reply").exists()


# --- Item 5: the sender authenticated ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_envelope_sender_that_is_not_the_from_is_refused_and_the_player_told(users):
    _game, player, address = a_listed_player(users)
    player.language = "fr"
    player.save(update_fields=["language"])
    moves = MoveRecord.objects.count()
    with start_receiver(port=0, lmtp=True, domain=DOMAIN) as receiver:
        assert send_lmtp(receiver.port, "evil@example.net", address,
                         answer(address, player.email, "1")) == {}
        # The same mail with the player's own envelope sender plays.
        assert send_lmtp(receiver.port, player.email, address,
                         answer(address, player.email, "1")) == {}
    refused, played = InboundMessage.objects.order_by("received_at")
    assert refused.status == Status.REFUSED and refused.detail == "envelope evil@example.net"
    assert played.status == Status.PLAYED
    assert MoveRecord.objects.count() == moves + 1
    sent = answers_to(player)  # to the player only, never to evil@example.net
    assert not [m for m in mail.outbox if "evil@example.net" in m.to]
    told = next(m for m in sent if "n’a pas été joué" in m.body or "n'a pas été joué" in m.body)
    assert "enveloppe" in told.body and told.reply_to


@pytest.mark.django_db
def test_our_mtas_authentication_results_refuse_a_failed_dmarc_or_spf(users):
    _game, player, address = a_listed_player(users)
    moves = MoveRecord.objects.count()

    def sent(*results: str, command: str = "help") -> InboundMessage:
        raw = answer(address, player.email, command)
        on_top = "".join(f"Authentication-Results: {value}\n" for value in results).encode()
        return receive_mail(on_top + raw, sender=player.email, via="lmtp")

    # Our MTA says DMARC failed: refused, even under a forged "pass" claiming our name.
    refused = sent(f"{AUTHSERV}; spf=pass smtp.mailfrom={player.email}; "
                   f"dmarc=fail (p=none) header.from=example.org",
                   f"{AUTHSERV}; dmarc=pass header.from=example.org", command="1")
    assert (refused.status, refused.detail) == (Status.REFUSED, "dmarc=fail")
    assert sent(f"{AUTHSERV.upper()}; spf=fail smtp.mailfrom=x").status == Status.REFUSED
    # Another MTA's word (a header the sender wrote) is not trusted; a pass or none plays.
    assert sent("evil.example; dmarc=fail; spf=fail").status == Status.WORD
    assert sent(f"{AUTHSERV}; spf=softfail; dmarc=none").status == Status.WORD
    assert sent(f"{AUTHSERV} 1; none").status == Status.WORD
    assert MoveRecord.objects.count() == moves
    told = [m for m in answers_to(player) if "could not be checked" in m.body]
    assert len(told) == 2 and all(m.to == [player.email] for m in told)
    assert "SPF, DMARC" in told[0].body


@pytest.mark.django_db
def test_without_an_authserv_id_no_authentication_results_is_read(users, settings):
    settings.MAIL_AUTHSERV_IDS = []
    _game, player, address = a_listed_player(users)
    raw = (f"Authentication-Results: {AUTHSERV}; dmarc=fail\n").encode() + answer(
        address, player.email, "help")
    assert receive_mail(raw, sender=player.email, via="smtp").status == Status.WORD


# --- Item 5: how long a reply address plays -----------------------------------------------


@pytest.mark.django_db
def test_a_reply_address_plays_for_a_few_days_then_is_answered_too_old(users):
    _game, player, address = a_listed_player(users)
    play, _problem = play_of(address)
    moves = MoveRecord.objects.count()
    MailPlay.objects.filter(pk=play.pk).update(created_at=timezone.now() - dt.timedelta(days=8))
    inbound = receive_mail(answer(address, player.email, "1"), via="smtp")
    assert inbound.status == Status.EXPIRED and MoveRecord.objects.count() == moves
    told = answers_to(player)
    assert len(told) == 1 and told[0].to == [player.email]
    assert "too old (a reply address works for 7 days)" in told[0].body
    assert told[0].reply_to and told[0].reply_to[0] != address
    # Within the days, the same address plays.
    MailPlay.objects.filter(pk=play.pk).update(created_at=timezone.now() - dt.timedelta(days=6))
    assert receive_mail(answer(address, player.email, "1"), via="smtp").status == Status.PLAYED


@pytest.mark.django_db
def test_a_reply_address_plays_only_the_decision_its_mail_listed(users):
    from games.core import services

    game, player, address = a_listed_player(users)
    play, _problem = play_of(address)
    services.submit_move(game.pk, play.moves[0], user=player)  # played on the page
    moves = MoveRecord.objects.count()
    assert receive_mail(answer(address, player.email, "1"), via="smtp").status == Status.STALE
    assert MoveRecord.objects.count() == moves


# --- Item 5: limits ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_answers_are_limited_then_one_too_many_answer_then_silence(users, settings):
    settings.MAIL_ANSWERS_PER_WINDOW = 3
    _game, player, address = a_listed_player(users)
    statuses = [receive_mail(answer(address, player.email, "help"), via="smtp").status
                for _ in range(6)]
    assert statuses == [Status.WORD] * 3 + [Status.THROTTLED, Status.SILENCED, Status.SILENCED]
    assert Notification.objects.filter(kind="mail_reply").count() == 4
    told = answers_to(player)
    assert len(told) == 4
    assert sum("You sent many mails about this game" in m.body for m in told) == 1
    # An hour later, the player is answered again.
    an_hour_ago = timezone.now() - dt.timedelta(hours=1, seconds=1)
    InboundMessage.objects.update(received_at=an_hour_ago)
    assert receive_mail(answer(address, player.email, "help"), via="smtp").status == Status.WORD


@pytest.mark.django_db
def test_ignored_mails_are_stored_up_to_a_limit_per_sender_address(users, settings):
    settings.MAIL_IGNORED_PER_WINDOW = 3
    forged = f"play+1.{'0' * 24}@{DOMAIN}"
    rows = [receive_mail(answer(forged, "stranger@example.net", "1"), via="smtp")
            for _ in range(5)]
    assert [row.status for row in rows] == [Status.BAD_TOKEN] * 5
    assert [row.pk is not None for row in rows] == [True] * 3 + [False] * 2
    assert InboundMessage.objects.filter(sender="stranger@example.net").count() == 3
    # Another address is counted on its own; bounces from the null sender too.
    assert receive_mail(answer(forged, "other@example.net", "1"), via="smtp").pk is not None
    assert receive_mail(answer(forged, "x@example.net", "1"), sender="",
                        via="lmtp").status == Status.AUTOMATIC
    assert not Notification.objects.filter(kind="mail_reply").exists()


# --- Item 5: keeping ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_inbound_mails_are_deleted_after_their_keeping_time_as_the_application_role(
        users, settings):
    a_listed_player(users)
    now = timezone.now()
    made = {}
    for name, status, days in [("played_old", Status.PLAYED, 31), ("played", Status.PLAYED, 29),
                               ("refused_old", Status.REFUSED, 31),
                               ("refused", Status.REFUSED, 8),
                               ("ignored_old", Status.BAD_TOKEN, 8),
                               ("ignored", Status.AUTOMATIC, 6)]:
        row = InboundMessage.objects.create(via="smtp", status=status, sender="a@example.org")
        InboundMessage.objects.filter(pk=row.pk).update(
            received_at=now - dt.timedelta(days=days))
        made[name] = row.pk
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE mascarade_test_mail_app NOLOGIN")  # (rolled back)
        call_command("grant_app_role", "mascarade_test_mail_app")
        cursor.execute("SET LOCAL ROLE mascarade_test_mail_app")
        assert tasks.forget_inbound_mail() == 3
        cursor.execute("RESET ROLE")
    assert set(InboundMessage.objects.values_list("pk", flat=True)) == {
        made["played"], made["refused"], made["ignored"]}
    assert tasks.forget_inbound_mail() == 0
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.forget_inbound_mail" in scheduled
