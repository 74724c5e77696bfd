"""Playing by mail through the one inbound service (``games.mail.receive.receive_mail``), on the
real database: a decision mail lists the player's moves as numbered commands with a signed reply
address; answering it plays the move (through the same write path, the record saying "mail") and
is confirmed by mail; every refusal changes nothing and sends nothing back (a forged or another
player's token, a sender who is not the player, a replayed message, an auto-reply, a bounce, a
10 MB message, malformed MIME), except a command for a decision that has passed, which is
answered with the game now (the player's mails refused for other reasons:
tests/api/test_mail_in_limits.py); the table words work by mail; a whole game of Mascarade played by
two people only by mail, and a decision of each other game."""

from __future__ import annotations

import datetime as dt
import random
import re
from email.message import EmailMessage
from email.utils import make_msgid
from unittest import mock

import pytest
from django.core import mail
from django.utils import timezone

from games.core import services
from games.mail.outgoing import play_of
from games.mail.receive import receive_mail
from games.models import (
    Game,
    InboundMessage,
    MailPlay,
    MoveRecord,
    Notification,
    PendingDecision,
    Seat,
)
from games.notify import delivery

from .factories import UserFactory
from .helpers import start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

Status = InboundMessage.Status


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"
    settings.MAIL_DOMAIN = "mascarade.example"


def deliver() -> None:
    """Every message due, the ten-minute folding of decision mails passed over."""
    for _ in range(5):
        if not delivery.deliver_batch(now=timezone.now() + dt.timedelta(hours=1)):
            return


def last_mail_to(user) -> EmailMessage | None:
    mine = [m for m in mail.outbox if m.to == [user.email] and m.reply_to]
    return mine[-1] if mine else None


def answer(to: str, sender: str, text: str, *, message_id: str | None = None,
           headers: dict | None = None, quoted: str = "Your turn in the game",
           subject: str = "Re: Your turn") -> bytes:
    """A reply as a mail client writes it: the command on top, the quoted mail under it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(domain="example.org")
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(f"{text}\n\nOn Tue, 24 Nov 2026 at 10:02, Mascarade Online "
                        f"<noreply@mascarade.example> wrote:\n> {quoted}\n")
    return message.as_bytes()


def awaited(game: Game):
    row = PendingDecision.objects.filter(game=game, bot=False).order_by("seat").first()
    return row, Seat.objects.get(game=game, position=row.player).user


def test_a_decision_mail_lists_the_moves_and_a_reply_plays_one(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    message = last_mail_to(player)
    assert message is not None, "the awaited player got a mail with a reply address"
    address = message.reply_to[0]
    assert re.fullmatch(r"play\+\d+\.[0-9a-f]{24}@mascarade\.example", address)
    play, problem = play_of(address)
    assert problem == "" and play.user == player and play.game_id == game.pk and play.moves
    listed = re.findall(r"^  (\d+)\. (.+)$", message.body, re.M)
    assert [int(n) for n, _c in listed] == list(range(1, len(play.moves) + 1))
    assert message.extra_headers["Auto-Submitted"] == "auto-generated"
    before = game.seq
    inbound = receive_mail(answer(address, player.email, "1"), via="test")
    assert inbound.status == Status.PLAYED, (inbound.status, inbound.detail)
    record = MoveRecord.objects.get(game=game, seq=before + 1)
    assert record.channel == "mail" and record.payload == play.moves[0]
    assert record.by_user == player and inbound.move_seq == record.seq
    reply = Notification.objects.get(kind="mail_reply", user=player)
    mail.outbox.clear()
    deliver()
    sent = [m for m in mail.outbox if m.to == [player.email]]
    confirmation = next(m for m in sent if "Your move is played" in m.body)
    assert confirmation.extra_headers["In-Reply-To"] == f"<{inbound.message_id}>"
    assert confirmation.extra_headers["Auto-Submitted"] == "auto-replied"
    assert confirmation.reply_to and confirmation.reply_to[0] != address
    assert reply.status == "pending" or Notification.objects.get(pk=reply.pk).status == "sent"


def test_a_games_mails_keep_one_subject_in_one_thread_whatever_the_replies_say(users):
    """Issue 42: subjects grew with each reply ("[Mascarade] Re: [Mascarade] Re: …"). Every
    mail to a player about a game has the game's one subject, and refers to the game's
    "started" mail (its Message-ID the thread's root); an answer to the player's mail replies
    to it (In-Reply-To), whatever that mail's subject was."""
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    root = f"<game.{game.pk}.{player.pk}@mascarade.example>"
    mine = [m for m in mail.outbox if m.to == [player.email]]
    started = next(m for m in mine if "the game has started" in m.body)
    assert started.extra_headers["Message-ID"] == root
    subject = started.subject  # the game's name
    assert subject.startswith("[Mascarade] ") and "Re:" not in subject
    decision = last_mail_to(player)
    assert decision.subject == subject
    assert decision.extra_headers["In-Reply-To"] == decision.extra_headers["References"] == root
    assert decision.extra_headers["Message-ID"] != root
    address = decision.reply_to[0]
    for text, their_subject in (("dance the tango", "Re: " + subject),
                                ("1", "Re: [Mascarade] Re: [Mascarade] Re: " + subject),
                                ("status", "AW: something else entirely")):
        message_id = make_msgid(domain="example.org")
        inbound = receive_mail(answer(address, player.email, text, message_id=message_id,
                                      subject=their_subject), via="test")
        assert inbound.status != Status.NO_TOKEN, inbound.status
        mail.outbox.clear()
        deliver()
        reply = next(m for m in mail.outbox if m.to == [player.email]
                     and m.extra_headers["Auto-Submitted"] == "auto-replied")
        assert reply.subject == subject, (their_subject, reply.subject)
        assert reply.extra_headers["In-Reply-To"] == message_id
        assert reply.extra_headers["References"] == f"{root} {message_id}"
        address = reply.reply_to[0]
    html = reply.alternatives[0][0]
    assert html.index(">About your mail in") < html.index("Hello")


def test_a_command_in_words_and_in_french_plays_too(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    message = last_mail_to(player)
    first = re.search(r"^  1\. (.+)$", message.body, re.M).group(1)
    inbound = receive_mail(answer(message.reply_to[0], player.email, first.upper() + "."),
                           via="test")
    assert inbound.status == Status.PLAYED, (inbound.status, inbound.detail)


def test_refusals_change_nothing_and_send_nothing(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    address = last_mail_to(player).reply_to[0]
    other = next(u for u in users if u != player)
    forged = re.sub(r"\.([0-9a-f])", lambda m: "." + ("0" if m.group(1) != "0" else "1"),
                    address, count=1)
    moves_before = MoveRecord.objects.count()
    replies_before = Notification.objects.filter(kind="mail_reply").count()
    mail.outbox.clear()
    bounce = (b"From: MAILER-DAEMON@example.org\r\nTo: " + address.encode() +
              b"\r\nReturn-Path: <>\r\nSubject: Undelivered Mail\r\nMessage-ID: <b1@x>\r\n"
              b"Content-Type: multipart/report; report-type=delivery-status; boundary=XX\r\n\r\n"
              b"--XX\r\nContent-Type: text/plain\r\n\r\n1\r\n--XX--\r\n")
    cases = {
        Status.BAD_TOKEN: answer(forged, player.email, "1"),
        Status.NO_TOKEN: answer("someone@mascarade.example", player.email, "1"),
        Status.WRONG_SENDER: answer(address, other.email, "1"),
        Status.AUTOMATIC: answer(address, player.email, "1",
                                 headers={"Auto-Submitted": "auto-replied"}),
        Status.MALFORMED: b"\x00\xff garbage without headers",
        Status.TOO_LARGE: answer(address, player.email, "1" + " " * (11 * 1024 * 1024)),
    }
    for expected, raw in cases.items():
        assert receive_mail(raw, via="test").status == expected, expected
    assert receive_mail(bounce, via="test").status == Status.AUTOMATIC
    # Another player's own token, sent from the awaited player's address.
    other_play = MailPlay.objects.create(user=other, game=game, seq=game.seq, moves=[])
    from games.mail.outgoing import reply_address

    assert receive_mail(answer(reply_address(other_play), player.email, "1"),
                        via="test").status == Status.WRONG_SENDER
    # An address that is not verified.
    from allauth.account.models import EmailAddress

    EmailAddress.objects.filter(user=player).update(verified=False)
    assert receive_mail(answer(address, player.email, "1"), via="test").status \
        == Status.WRONG_SENDER
    EmailAddress.objects.filter(user=player).update(verified=True)
    # An expired address from another sender (from the player: tests/api/test_mail_in_limits.py).
    play, _problem = play_of(address)
    MailPlay.objects.filter(pk=play.pk).update(created_at=timezone.now() - dt.timedelta(days=31))
    assert receive_mail(answer(address, other.email, "1"), via="test").status \
        == Status.WRONG_SENDER
    assert MoveRecord.objects.count() == moves_before
    assert Notification.objects.filter(kind="mail_reply").count() == replies_before
    deliver()
    assert not [m for m in mail.outbox if m.extra_headers["Auto-Submitted"] == "auto-replied"]
    kept = InboundMessage.objects.get(status=Status.TOO_LARGE)
    assert kept.size > 11 * 1024 * 1024 and len(bytes(kept.raw)) <= 64 * 1024


def test_the_same_message_twice_is_played_once(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    raw = answer(last_mail_to(player).reply_to[0], player.email, "1")
    assert receive_mail(raw, via="smtp").status == Status.PLAYED
    assert receive_mail(raw, via="webhook:mailgun").status == Status.DUPLICATE
    assert MoveRecord.objects.filter(game=game, channel="mail").count() == 1
    assert Notification.objects.filter(kind="mail_reply").count() == 1


def test_a_command_for_a_decision_that_passed_shows_the_game_now(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    address = last_mail_to(player).reply_to[0]
    services.submit_move(game.pk, MailPlay.objects.last().moves[0], user=player)
    before = MoveRecord.objects.count()
    inbound = receive_mail(answer(address, player.email, "1"), via="test")
    assert inbound.status == Status.STALE and MoveRecord.objects.count() == before
    mail.outbox.clear()
    deliver()
    reply = next(m for m in mail.outbox if m.to == [player.email]
                 and m.extra_headers["Auto-Submitted"] == "auto-replied")
    assert "The game moved on" in reply.body and reply.reply_to


def test_unreadable_and_illegal_commands_are_explained_with_the_moves_again(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    address = last_mail_to(player).reply_to[0]
    for text, expected, words in (("99", Status.UNREADABLE, "is not the number of a move"),
                                  ("dance the tango", Status.UNREADABLE, "is not one of the "
                                                                        "commands")):
        inbound = receive_mail(answer(address, player.email, text), via="test")
        assert inbound.status == expected
        mail.outbox.clear()
        deliver()
        reply = next(m for m in mail.outbox if m.to == [player.email])
        assert words in reply.body and re.search(r"^  1\. ", reply.body, re.M)
    empty = receive_mail(answer(address, player.email, ""), via="test")
    assert empty.status == Status.UNREADABLE and empty.detail == "empty"
    assert MoveRecord.objects.filter(game=game, channel="mail").count() == 0


def test_the_table_words_work_by_mail_in_the_players_language(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    deliver()
    _row, player = awaited(game)
    player.language = "fr"
    player.save()
    address = last_mail_to(player).reply_to[0]
    for word in ("aide", "status", "pause", "silence"):
        inbound = receive_mail(answer(address, player.email, word), via="test")
        assert inbound.status == Status.WORD, (word, inbound.status, inbound.detail)
    seat = Seat.objects.get(game=game, user=player)
    assert seat.muted and seat.wants_pause
    mail.outbox.clear()
    deliver()
    replies = [m for m in mail.outbox if m.to == [player.email]]
    assert len(replies) == 4 and all("Bonjour" in m.body for m in replies)


def _play_by_mail(game: Game, humans: list, rng: random.Random, limit: int = 400) -> int:
    """The humans answer their newest mail with a listed number until the game ends."""
    played = 0
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        # (the test's transaction never commits: the bots' turns, queued on commit, are played
        # here, as the worker would)
        while PendingDecision.objects.filter(game=game, bot=True).exists():
            assert services.play_bots(game.pk, game.seq)
            game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        deliver()
        rows = PendingDecision.objects.filter(game=game, bot=False)
        assert rows.exists(), "a person is awaited while the bots have played"
        row = rows.order_by("seat").first()
        human = Seat.objects.get(game=game, position=row.player).user
        assert human in humans
        message = last_mail_to(human)
        numbers = re.findall(r"^  (\d+)\. ", message.body, re.M)
        text = rng.choice(numbers) if numbers else "status"
        inbound = receive_mail(answer(message.reply_to[0], human.email, text), via="test")
        assert inbound.status in (Status.PLAYED, Status.STALE, Status.WORD), (
            inbound.status, inbound.detail)
        played += inbound.status == Status.PLAYED
    return played


@pytest.mark.parametrize("seed", [4])
def test_two_people_play_a_whole_game_of_mascarade_only_by_mail(seed, eager_celery):
    humans = [UserFactory(), UserFactory()]
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=seed):
        body = services.create_game(humans[0], "mascarade", {"players": 4}).body
    services.add_bots(humans[0], body["id"], 2)
    services.join_game(humans[1], body["id"])
    game = Game.objects.get(pk=body["id"])
    assert game.status == Game.Status.ACTIVE
    played = _play_by_mail(game, humans, random.Random(seed))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    by_mail = MoveRecord.objects.filter(game=game, channel="mail")
    assert by_mail.count() == played and {r.by_user for r in by_mail} == set(humans)
    assert not MoveRecord.objects.filter(game=game, actor="player").exclude(channel="mail")


@pytest.mark.parametrize("kind, options", [("ere_des_masques", {}),
                                           ("shadow_house", {"players": 3})])
def test_a_decision_of_each_other_game_by_mail(kind, options, users, eager_celery):
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=7):
        body = services.create_game(users[0], kind, options).body
    services.join_game(users[1], body["id"])
    if kind == "shadow_house":
        services.join_game(users[2], body["id"])
    game = Game.objects.get(pk=body["id"])
    deliver()
    _row, player = awaited(game)
    message = last_mail_to(player)
    assert re.search(r"^  1\. ", message.body, re.M)
    inbound = receive_mail(answer(message.reply_to[0], player.email, "1"), via="test")
    assert inbound.status == Status.PLAYED, (inbound.status, inbound.detail)
    assert MoveRecord.objects.filter(game=game, channel="mail").count() == 1


def test_a_decision_mail_says_what_happened_since_the_readers_last_move(users):
    """Not only that it is your turn: the moves since yours, as the history says them."""
    from games.core import selectors
    from games.core.catalog import get_kit
    from games.core.kit import history_lines, history_text
    from tests.api.helpers import play_service_moves

    game = start_game(users[0], users[1:], options={"players": 4})
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    play_service_moves(game, 6, by_player)
    _row, player = awaited(game)
    mine = (MoveRecord.objects.filter(game=game, seat__user=player, actor="player")
            .order_by("-seq").values_list("seq", flat=True).first())
    mail.outbox.clear()
    deliver()
    body = last_mail_to(player).body
    heading = f"Since your last move (#{mine}):" if mine else "Since the start:"
    assert heading in body
    loaded = selectors.load_for_viewer(game, player)
    names = {s["seat"]: s["player"] for s in selectors.game_payload(loaded, player)["state"]
             ["seats"]}
    events = selectors.events_payload(loaded, player, mine or 0)["results"]
    for line in history_lines(get_kit(game.kind), events, names):
        assert f"  {history_text(line)}" in body  # (oldest first, a move's number once)
    html = last_mail_to(player).alternatives[0][0]
    assert f"<strong>{heading}</strong>" in html
