"""Decision mails at the pace of the game (issue 42, item 1): a decision's mail is due a few
seconds after it (``MAIL_DEBOUNCE_SECONDS``), never held back by a window per game; the mails of
one game and user waiting together go as one, with the decisions that stand when it goes (a
burst of moves gives one mail), held while the game's bots are still to move but never past
``MAIL_MAX_WAIT_SECONDS``; a decision that passed is never mailed, checked again just before each
mail is written; the answer to a mailed move carries the decision that came within the debounce,
with its commands. Time is moved with ``deliver_batch``'s ``now`` and a patched clock; the real
worker and SMTP round trip is ``tests/site/test_mail_worker.py``."""

from __future__ import annotations

import datetime as dt
import re
from unittest import mock

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone

from games.core import services
from games.core.catalog import get_game
from games.mail.receive import receive_mail
from games.models import Game, InboundMessage, MoveRecord, Notification, PendingDecision, Seat
from games.notify import delivery

from .helpers import awaited_players, peaceful, start_game
from .test_play_by_mail import answer, last_mail_to

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

Status = Notification.Status


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"
    settings.MAIL_DOMAIN = "mascarade.example"
    settings.MAIL_DEBOUNCE_SECONDS = 3
    settings.MAIL_MAX_WAIT_SECONDS = 20


def at(when: dt.datetime):
    """The clock stopped at ``when`` (the outbox's rows' times and the delivery's)."""
    return mock.patch("django.utils.timezone.now", return_value=when)


def mails_about(game: Game) -> list[EmailMultiAlternatives]:
    return [m for m in mail.outbox if f"/games/{game.pk}/" in m.body]


def _note(user, game, key: str, when: dt.datetime, **context) -> Notification:
    with at(when):
        return Notification.objects.create(
            user=user, game=game, kind="your_turn", dedupe_key=key,
            next_attempt_at=when + dt.timedelta(seconds=3), context=context)


def test_a_burst_of_decisions_gives_one_mail_with_those_that_stand_at_its_end(users):
    """Three decision mails of one game and user written within a few seconds: when the first is
    due, a newer one is still within its debounce, so the first waits for it; then one mail goes,
    the newest's, counting the one still awaited; the one whose decision passed meanwhile is
    neither sent nor counted."""
    game = start_game(users[0], users[1:], options={"players": 4})
    row = PendingDecision.objects.get(game=game)
    player = row.user
    Notification.objects.filter(game=game).delete()
    t0 = timezone.now()
    live = {"decision": row.decision, "pending": row.pk, "deadline": row.deadline.isoformat()}
    first = _note(player, game, "test:first", t0, **live)
    gone = _note(player, game, "test:gone", t0 + dt.timedelta(seconds=0.5),
                 **{**live, "pending": row.pk + 1_000_000})
    last = _note(player, game, "test:last", t0 + dt.timedelta(seconds=1), **live)
    with at(first.next_attempt_at + dt.timedelta(seconds=0.1)):
        assert delivery.deliver(first.pk) == "not due"
    assert mail.outbox == []
    first.refresh_from_db()
    assert first.status == Status.PENDING and first.next_attempt_at == last.next_attempt_at
    assert Notification.objects.get(pk=gone.pk).status == Status.SKIPPED
    with at(last.next_attempt_at + dt.timedelta(seconds=0.1)):
        assert delivery.deliver(last.pk) == Status.SENT
    (message,) = mail.outbox
    assert "(1 more decision awaited you in this game meanwhile.)" in message.body
    assert Notification.objects.get(pk=first.pk).folded_into_id == last.pk
    assert Notification.objects.get(pk=gone.pk).status == Status.SKIPPED


def _game_with_human_and_bots_awaited(human, **options) -> Game:
    """A game of four, ``human`` at seat 0 and three bots, played (as the bots would, their
    tasks left out) until the human and a bot are awaited at once (a simultaneous challenge
    window)."""
    human.is_staff = True  # (first_seat is a staff option)
    human.save()
    body = services.create_game(human, "mascarade", {"players": 4, "first_seat": 1,
                                                     "challenge_mode": "simultaneous",
                                                     **options}, bots=3).body
    game = Game.objects.get(pk=body["id"])
    engine = get_game(game.kind)
    from games.core import selectors

    for _ in range(60):
        rows = list(game.pending_decisions.order_by("seat"))
        if any(not r.bot for r in rows) and any(r.bot for r in rows):
            return game
        row = rows[0]
        moves = engine.legal_moves(selectors.load_state(selectors.find_game(game.pk)),
                                   row.player)
        announce = [m for m in moves if m["type"] == "announce"]
        move = announce[0] if announce else peaceful(moves)
        services.submit_move(game.pk, move, player=row.player,
                             actor=MoveRecord.Actor.BOT if row.bot else MoveRecord.Actor.PLAYER,
                             user=None if row.bot else human)
        game.refresh_from_db()
    raise AssertionError("the human and a bot were never awaited together")


def test_bots_still_to_move_hold_the_mail_but_never_past_the_max_wait(users):
    """While a bot of the game has a decision to take (its task is about to play it), the
    human's decision mail waits, so that it says what stands once the bots have moved; a bot
    that never moves (its task lost) holds it no longer than the max wait."""
    human = users[0]
    game = _game_with_human_and_bots_awaited(human)
    note = Notification.objects.filter(game=game, user=human, status=Status.PENDING,
                                       kind__in=delivery.DECISION_KINDS).latest("pk")
    due = note.next_attempt_at + dt.timedelta(seconds=0.1)
    with at(due):
        assert delivery.deliver(note.pk) == "not due"
    note.refresh_from_db()
    assert note.next_attempt_at == due + dt.timedelta(seconds=3)  # looks again after a debounce
    assert mails_about(game) == []
    with at(note.created_at + dt.timedelta(seconds=20.1)):
        assert delivery.deliver(note.pk) == Status.SENT
    (message,) = mails_about(game)
    assert message.to == [human.email]


def test_a_short_window_is_held_no_more_than_a_tenth_of_its_time(users):
    """With bots still to move, a decision whose window is 30 seconds goes once its debounce
    (3 s, a tenth of it) has passed: the wait for a burst never eats a short window."""
    human = users[0]
    game = _game_with_human_and_bots_awaited(human, challenge_timeout=30)
    note = Notification.objects.filter(game=game, user=human, status=Status.PENDING,
                                       kind__in=delivery.DECISION_KINDS).latest("pk")
    assert note.context["decision"] == "challenge"
    with at(note.next_attempt_at + dt.timedelta(seconds=0.1)):
        assert delivery.deliver(note.pk) == Status.SENT
    assert [m.to for m in mails_about(game)] == [[human.email]]


def test_a_decision_that_passed_while_the_batch_was_sending_is_not_mailed(users):
    """The decision is checked again just before its mail is written: one answered while the
    batch's earlier mails were going out is not mailed (the batch's first check had found it
    awaited)."""
    a = start_game(users[0], users[1:], options={"players": 4})
    b = start_game(users[0], users[1:], options={"players": 4})
    row_b = PendingDecision.objects.get(game=b)
    notes = list(Notification.objects.filter(game__in=[a, b], kind="your_turn")
                 .order_by("game_id"))
    assert len(notes) == 2
    Notification.objects.filter(pk=notes[0].pk).update(next_attempt_at=timezone.now()
                                                       - dt.timedelta(seconds=1))
    Notification.objects.filter(pk=notes[1].pk).update(next_attempt_at=timezone.now())
    first_game = notes[0].game_id
    other = b if first_game == a.pk else a
    row_other = row_b if other == b else PendingDecision.objects.get(game=a)
    send = EmailMultiAlternatives.send

    def send_then_answer(message, *args, **kwargs):
        sent = send(message, *args, **kwargs)
        if f"/games/{first_game}/" in message.body:  # meanwhile, the other game's player moves
            services.submit_move(other.pk, {"type": "exchange",
                                            "target": (row_other.player + 1) % 4,
                                            "swap": False},
                                 user=Seat.objects.get(game=other,
                                                       position=row_other.player).user)
        return sent

    with mock.patch.object(EmailMultiAlternatives, "send", send_then_answer):
        outcome = delivery.deliver_batch(keys=[n.dedupe_key for n in notes])
    assert outcome[notes[0].pk] == Status.SENT
    assert outcome[notes[1].pk] == Status.SKIPPED
    skipped = Notification.objects.get(pk=notes[1].pk)
    assert skipped.status == Status.SKIPPED
    assert skipped.last_error == "decision no longer awaited"
    assert mails_about(other) == []


def test_the_answer_to_a_mailed_move_carries_the_decision_that_came_within_the_debounce(
        users):
    """A move played by mail; the other players move within the debounce and the mail's
    player is awaited again: one mail goes, the answer, which says the move was played, names
    the new decision and lists its commands (not "Nothing awaits you now" followed by another
    mail, or by silence); the new decision's own mail is folded into it."""
    game = start_game(users[0], users[1:], options={"players": 4})
    later = timezone.now() + dt.timedelta(hours=1)
    delivery.deliver_batch(now=later)
    row = PendingDecision.objects.get(game=game)
    player = row.user
    notice = last_mail_to(player)
    t0 = timezone.now()
    with at(t0):
        inbound = receive_mail(answer(notice.reply_to[0], player.email, "1"), via="test")
    assert inbound.status == InboundMessage.Status.PLAYED, (inbound.status, inbound.detail)
    reply = Notification.objects.get(kind="mail_reply", user=player)
    assert reply.next_attempt_at == t0 + dt.timedelta(seconds=3)
    by_player = {s.position: s.user for s in Seat.objects.filter(game=game)}
    with at(t0 + dt.timedelta(seconds=1)):  # the others answer at once (as bots would)
        for _ in range(8):
            game.refresh_from_db()
            if row.player in awaited_players(game):
                break
            awaited = awaited_players(game)[0]
            from games.core import selectors

            moves = get_game(game.kind).legal_moves(
                selectors.load_state(selectors.find_game(game.pk)), awaited)
            services.submit_move(game.pk, peaceful(moves), user=by_player[awaited])
    assert row.player in awaited_players(game)
    decision = Notification.objects.filter(game=game, user=player, status=Status.PENDING,
                                           kind__in=delivery.DECISION_KINDS).get()
    mail.outbox.clear()
    with at(reply.next_attempt_at + dt.timedelta(seconds=0.1)):
        # The answer is due, the decision's own mail is not yet: the answer waits for it.
        assert delivery.deliver(reply.pk) == "not due"
    with at(decision.next_attempt_at + dt.timedelta(seconds=0.1)):
        delivery.deliver_batch()
    (message,) = [m for m in mail.outbox if m.to == [player.email]]
    assert "Your move is played" in message.body
    assert "It is your turn in" in message.body
    assert "Nothing awaits you now" not in message.body
    assert re.findall(r"^  \d+\. .+$", message.body, re.M)
    assert Notification.objects.get(pk=reply.pk).status == Status.SENT
    decision.refresh_from_db()
    assert decision.status == Status.FOLDED and decision.folded_into_id == reply.pk


def test_a_reminder_is_not_held_back(users):
    """A deadline near is said at once, even while a newer decision mail of the game is within
    its debounce (which it takes along)."""
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 1000})
    row = PendingDecision.objects.get(game=game)
    t0 = timezone.now() + dt.timedelta(seconds=800)
    from games.notify import outbox

    with at(t0):
        assert outbox.queue_reminders() == 1
    reminder = Notification.objects.get(kind="reminder")
    newer = _note(row.user, game, "test:newer", t0, decision=row.decision, pending=row.pk,
                  deadline=row.deadline.isoformat())
    with at(t0 + dt.timedelta(seconds=0.1)):
        assert delivery.deliver(reminder.pk) == Status.SENT
    assert len(mails_about(game)) == 1
    assert Notification.objects.get(pk=newer.pk).folded_into_id == reminder.pk
