"""The outbox: messages written in the transaction of their cause, delivered once, retried with
backoff, folded, in the user's language, with a signed one-click unsubscribe."""

from __future__ import annotations

import datetime as dt
import random
import re
from unittest import mock

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError

from games import tasks
from games.core import services
from games.engine import IllegalMove
from games.models import Game, Notification, PendingDecision, Seat
from games.notify import delivery, outbox, unsubscribe

from .factories import UserFactory, client_for
from .helpers import (
    URL,
    game_url,
    mail_text_beyond_its_readers_view,
    play_service_moves,
    start_game,
)

pytestmark = pytest.mark.django_db

Status = Notification.Status


@pytest.fixture(autouse=True)
def _locmem_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"


def later(minutes: float):
    return mock.patch("django.utils.timezone.now",
                      return_value=timezone.now() + dt.timedelta(minutes=minutes))


def deliver_all() -> list[str]:
    return [delivery.deliver(pk) for pk in
            Notification.objects.filter(status=Status.PENDING).values_list("pk", flat=True)]


def test_a_start_and_each_awaited_decision_write_a_message(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    started = Notification.objects.filter(game=game, kind="started")
    assert sorted(started.values_list("user_id", flat=True)) == sorted(u.pk for u in users)
    row = PendingDecision.objects.get(game=game)
    turn = Notification.objects.get(game=game, kind="your_turn")
    assert turn.user_id == row.user_id
    assert turn.dedupe_key == f"decision:{game.pk}:{row.player}:{row.seq}"
    assert turn.context["decision"] == "prep"


def test_a_decision_message_names_its_decision_by_game_player_and_seq(users):
    """A decision's message is written with the move, before the decision's row has its key:
    it names the decision by game, player and the seq it was first awaited at, and is sent only
    while that decision is awaited. One written before (by the row's key) is judged by it."""
    game = start_game(users[0], users[1:], options={"players": 4})
    row = PendingDecision.objects.get(game=game)
    note = Notification.objects.get(game=game, kind="your_turn")
    assert (note.context["player"], note.context["seq"]) == (row.player, row.seq)
    assert "pending" not in note.context

    def written(key: str, **context) -> Notification:
        return Notification.objects.create(
            user=row.user, game=game, kind="your_turn", dedupe_key=key,
            next_attempt_at=timezone.now(), context={"decision": row.decision, **context})

    by_key = written("old-live", pending=row.pk, seq=row.seq)
    by_gone_key = written("old-gone", pending=row.pk + 1_000_000, seq=row.seq)
    other_seq = written("other-seq", player=row.player, seq=row.seq + 1)
    other_player = written("other-player", player=(row.player + 1) % 4, seq=row.seq)
    reasons = delivery._skip_reasons([note, by_key, by_gone_key, other_seq, other_player])
    assert note.pk not in reasons and by_key.pk not in reasons
    assert {reasons[n.pk] for n in (by_gone_key, other_seq, other_player)} == {
        "decision no longer awaited"}


def test_messages_are_rolled_back_with_the_move_that_caused_them(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    before = Notification.objects.count()
    row = PendingDecision.objects.get(game=game)
    with pytest.raises(RuntimeError), transaction.atomic():
        services.submit_move(game.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                       "swap": False}, user=users[row.player])
        assert Notification.objects.count() > before
        raise RuntimeError("the transaction fails after the move")
    assert Notification.objects.count() == before
    # A refused move writes nothing either.
    with pytest.raises(IllegalMove):
        services.submit_move(game.pk, {"type": "announce", "mask": "king"},
                             user=users[row.player])
    assert Notification.objects.count() == before


def test_a_commit_queues_one_task_for_its_messages_safe_to_run_twice(
        users, django_capture_on_commit_callbacks, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.deliver_queued, "apply_async",
                        lambda args, **kwargs: queued.append(args[0]))
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(users[0], users[1:], options={"players": 4})
    started = Notification.objects.filter(game=game, kind="started")
    assert started.count() == 4
    keys = next(k for k in queued if len(k) == 4)
    assert sorted(keys) == sorted(started.values_list("dedupe_key", flat=True))
    outcome = tasks.deliver_queued(keys)
    assert sorted(outcome) == sorted(started.values_list("pk", flat=True))
    assert set(outcome.values()) == {"sent"}
    assert tasks.deliver_queued(keys) == {}
    assert len([m for m in mail.outbox if "the game has started" in m.body]) == 4


def test_a_move_queues_one_task_at_the_debounce_and_the_sweep_sends_it_if_lost(
        users, settings, django_capture_on_commit_callbacks, monkeypatch):
    """A decision's mail is due a few seconds after the move (the debounce), and the move's
    commit sends one task with that eta for its mails; a task run early finds them not due, a
    task lost leaves them to the sweep once due."""
    settings.MAIL_DEBOUNCE_SECONDS = 3
    queued = []
    monkeypatch.setattr(tasks.deliver_queued, "apply_async",
                        lambda args, **kwargs: queued.append((args[0], kwargs.get("eta"))))
    game = start_game(users[0], users[1:], options={"players": 4})
    for note in Notification.objects.filter(game=game, kind="started"):
        delivery.deliver(note.pk)  # the start's mails, whose task the patch swallowed
    first = Notification.objects.get(game=game, kind="your_turn")  # not delivered yet
    row = PendingDecision.objects.get(game=game)
    queued.clear()
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_move(game.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                       "swap": False}, user=users[row.player])
    notes = Notification.objects.filter(game=game, kind__in=outbox.DECISION_KINDS,
                                        status=Status.PENDING)
    after_move = list(notes.exclude(pk=first.pk).select_related("user"))
    assert after_move  # the move wrote the next decision's mail...
    (keys, eta), = queued  # ...and sent one task for it, due after the debounce
    assert sorted(keys) == sorted(n.dedupe_key for n in after_move)
    assert before + dt.timedelta(seconds=3) <= eta <= timezone.now() + dt.timedelta(seconds=3)
    assert all(n.next_attempt_at == eta for n in after_move)
    mail.outbox.clear()
    assert tasks.deliver_queued(keys) == {}  # run early: not due, nothing sent
    assert mail.outbox == []
    # The task is lost: the sweep sends them once due, to their players, once; the first
    # player answered before theirs went: no mail for them.
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["delivered"] == 0
    with mock.patch("django.utils.timezone.now", return_value=eta + dt.timedelta(seconds=1)), \
            django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["delivered"] == len(after_move)
    assert sorted(a for message in mail.outbox for a in message.to) == sorted(
        note.user.email for note in after_move)
    assert set(Notification.objects.filter(pk__in=[n.pk for n in after_move])
               .values_list("status", flat=True)) == {Status.SENT}
    first.refresh_from_db()
    assert first.status == Status.SKIPPED and first.last_error == "decision no longer awaited"
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["delivered"] == 0
    assert not notes.exists()


def test_each_message_is_delivered_once_even_if_its_task_runs_twice(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    note = Notification.objects.get(game=game, kind="your_turn")
    assert tasks.deliver_notification(note.pk) == "sent"
    assert tasks.deliver_notification(note.pk) == "not due"
    assert delivery.deliver(note.pk) == "not due"
    sent = [m for m in mail.outbox if m.to == [note.user.email] and "It is your turn" in m.body]
    assert len(sent) == 1
    note.refresh_from_db()
    assert note.status == Status.SENT and note.sent_at is not None and note.attempts == 1
    # The same cause cannot be queued twice.
    outbox._queue([Notification(user=note.user, game=game, kind="your_turn",
                                       dedupe_key=note.dedupe_key,
                                       next_attempt_at=timezone.now())])
    assert Notification.objects.filter(dedupe_key=note.dedupe_key).count() == 1


def test_a_failed_send_is_retried_with_backoff_then_given_up(users, monkeypatch):
    game = start_game(users[0], users[1:], options={"players": 4})
    note = Notification.objects.get(game=game, kind="your_turn")
    monkeypatch.setattr("django.core.mail.EmailMultiAlternatives.send",
                        mock.Mock(side_effect=ConnectionRefusedError("smtp down")))
    before = timezone.now()
    assert delivery.deliver(note.pk) == Status.PENDING
    note.refresh_from_db()
    assert note.attempts == 1 and "smtp down" in note.last_error
    assert note.next_attempt_at >= before + dt.timedelta(seconds=29)
    assert delivery.deliver(note.pk) == "not due"
    delays = [delivery.backoff(n) for n in range(1, 10)]
    assert delays == sorted(delays) and delays[0] == dt.timedelta(seconds=30)
    assert delays[-1] == delivery.MAX_BACKOFF
    Notification.objects.filter(pk=note.pk).update(attempts=delivery.MAX_ATTEMPTS - 1,
                                                   next_attempt_at=timezone.now())
    assert delivery.deliver(note.pk) == Status.FAILED
    # The server answers again: a pending one goes out.
    monkeypatch.undo()
    other = Notification.objects.get(game=game, kind="started", user=users[1])
    Notification.objects.filter(pk=other.pk).update(next_attempt_at=timezone.now())
    assert delivery.deliver(other.pk) == Status.SENT


def test_a_decision_mail_is_never_held_back_by_the_one_before(users):
    """No window per game and user: a second decision a few minutes after the first one was
    mailed goes as soon as it is due (it used to wait ten minutes, and players missed their
    window)."""
    game = start_game(users[0], users[1:], options={"players": 4})
    row = PendingDecision.objects.get(game=game)
    first = Notification.objects.get(game=game, kind="your_turn")
    assert delivery.deliver(first.pk) == Status.SENT
    with later(2):
        second = Notification.objects.create(
            user_id=row.user_id, game=game, kind="challenge", dedupe_key="test:second",
            next_attempt_at=timezone.now(), context={"pending": row.pk, "decision": "challenge",
                                                     "deadline": row.deadline.isoformat()})
        mail.outbox.clear()
        assert delivery.deliver(second.pk) == Status.SENT
    assert len(mail.outbox) == 1


def test_folding_counts_the_messages_it_absorbs(users):
    """Decision mails of one game waiting together go as one, the newest's, which counts the
    others."""
    user = users[0]
    game = start_game(users[0], users[1:], options={"players": 4})
    Notification.objects.all().delete()
    rows = []
    for k in range(3):
        rows.append(Notification.objects.create(
            user=user, game=game, kind="your_turn", dedupe_key=f"test:{k}",
            next_attempt_at=timezone.now(), context={"pending": None}))
    PendingDecision.objects.filter(game=game).update(user=user, bot=False)
    pending = PendingDecision.objects.get(game=game)
    Notification.objects.update(context={"pending": pending.pk, "decision": "turn",
                                         "deadline": pending.deadline.isoformat()})
    assert delivery.deliver(rows[0].pk) == Status.FOLDED
    (message,) = mail.outbox
    assert "2 more decisions" in message.body
    assert Notification.objects.get(pk=rows[2].pk).status == Status.SENT
    assert set(Notification.objects.filter(folded_into=rows[2]).values_list(
        "pk", flat=True)) == {rows[0].pk, rows[1].pk}


def test_the_reminder_goes_at_80_percent_once_and_not_after_an_answer(
        users, django_capture_on_commit_callbacks, monkeypatch):
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 1000})
    row = PendingDecision.objects.get(game=game)
    assert 790 <= (row.remind_at - row.created_at).total_seconds() <= 810
    assert outbox.queue_reminders() == 0
    queued = []
    monkeypatch.setattr(tasks.deliver_queued, "apply_async",
                        lambda args, **kwargs: queued.append(args[0]))
    with later(14), django_capture_on_commit_callbacks(execute=True):
        assert outbox.queue_reminders() == 1
        assert outbox.queue_reminders() == 0
    assert queued == []  # the sweep that wrote it delivers it next
    reminder = Notification.objects.get(kind="reminder")
    assert reminder.user_id == row.user_id
    with later(14.2), django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep()["delivered"] >= 1
    reminder.refresh_from_db()
    assert reminder.status == Status.SENT
    assert delivery.deliver(reminder.pk) == "not due"
    assert any("the deadline is near" in m.body and m.to == [users[row.player].email]
               for m in mail.outbox)
    # Answered before the reminder went out: it is skipped.
    game2 = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 1000})
    row = PendingDecision.objects.get(game=game2)
    with later(14):
        assert outbox.queue_reminders() == 1
    reminder = Notification.objects.get(kind="reminder", game=game2)
    services.submit_move(game2.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                    "swap": False}, user=users[row.player])
    with later(14.5):
        assert delivery.deliver(reminder.pk) == Status.SKIPPED


def test_mails_speak_the_users_language_and_carry_links(users):
    users[0].language = "fr"
    users[0].save()
    game = start_game(users[0], users[1:], options={"players": 4})
    for note in Notification.objects.filter(kind="started"):
        assert delivery.deliver(note.pk) == Status.SENT
    french = next(m for m in mail.outbox if m.to == [users[0].email])
    english = next(m for m in mail.outbox if m.to == [users[1].email])
    assert "a commencé" in french.body and "has started" in english.body
    assert "Bonjour" in french.body and "Hello" in english.body
    for message in (french, english):
        assert f"https://mascarade.example/games/{game.pk}/" in message.body
        html, kind = message.alternatives[0]
        assert kind == "text/html" and f"/games/{game.pk}/" in html
        unsubscribe = message.extra_headers["List-Unsubscribe"]
        assert unsubscribe.startswith("<https://mascarade.example/notifications/unsubscribe/")
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe.strip("<>") in message.body and unsubscribe.strip("<>") in html


def test_no_mail_shows_a_card_beyond_its_readers_view(users):
    """Decision mails list the reader's moves (``announce king``...) and the table as they see
    it; beyond those lines, no mail names a card."""
    game = start_game(users[0], users[1:], options={"players": 4})
    play_service_moves(game, 12, dict(enumerate(users)))
    deliver_all()
    masks = set(game.options.get("masks") or []) | {"king", "queen", "judge", "bishop", "thief",
                                                    "cheater", "spy", "witch", "sorceress"}
    assert any(message.reply_to for message in mail.outbox)
    for message in mail.outbox:
        # Words, outside links: a signed link's random letters once spelt "spy" (CI, 2026-11-24).
        text = mail_text_beyond_its_readers_view(message, game).lower()
        assert not masks & set(re.findall(r"[a-z]+", text)), message.body


def test_unsubscribe_is_signed_and_one_click(users):
    user = users[0]
    token = unsubscribe.unsubscribe_token(user)
    browser = Client()
    page = browser.get(f"/notifications/unsubscribe/{token}/")
    assert page.status_code == 200 and b"<form" in page.content
    user.refresh_from_db()
    assert user.notify_email  # GET changes nothing
    done = browser.post(f"/notifications/unsubscribe/{token}/",
                        {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200
    user.refresh_from_db()
    assert not user.notify_email
    tampered = browser.post(f"/notifications/unsubscribe/{token[:-2]}xx/")
    assert tampered.status_code == 400
    other = unsubscribe.unsubscribe_token(users[1])
    forged = other.replace(other.split(":")[0], token.split(":")[0])
    assert browser.post(f"/notifications/unsubscribe/{forged}/").status_code == 400
    users[1].refresh_from_db()
    assert users[1].notify_email


def test_switched_off_and_muted_users_get_no_mail(users):
    users[1].notify_email = False
    users[1].save()
    game = start_game(users[0], users[1:], options={"players": 4})
    client_for(users[2]).post(game_url(game.pk, "mute/"), {"muted": True}, format="json")
    assert Seat.objects.get(game=game, user=users[2]).muted
    deliver_all()
    recipients = {m.to[0] for m in mail.outbox}
    assert users[1].email not in recipients and users[2].email not in recipients
    assert users[0].email in recipients
    assert Notification.objects.filter(user=users[1], status=Status.SKIPPED).exists()
    # Not a player: 403.
    outsider = client_for(UserFactory()).post(game_url(game.pk, "mute/"), {"muted": True},
                                              format="json")
    assert outsider.status_code == 403


def test_the_end_is_told_with_the_result(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    rng = random.Random(3)
    from games.core import selectors
    from games.core.catalog import get_game

    engine = get_game("mascarade")
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        row = PendingDecision.objects.filter(game=game).first()
        state = selectors.load_state(game)
        move = rng.choice(engine.legal_moves(state, row.player))
        services.submit_move(game.pk, move, user=users[row.player])
    assert game.status == Game.Status.FINISHED
    ended = Notification.objects.filter(game=game, kind="ended")
    assert ended.count() == 4
    winners = {users[p].username for p in game.winners}
    for note in ended:
        assert set(note.context["winners"]) == winners
        assert note.context["won"] == (note.user.username in winners)


def test_with_the_broker_down_moves_still_go_through_and_the_sweep_delivers_later(
        users, django_capture_on_commit_callbacks, monkeypatch, caplog):
    def down(*args, **kwargs):
        raise OperationalError("broker unreachable")

    monkeypatch.setattr(tasks.deliver_queued, "apply_async", down)
    monkeypatch.setattr(tasks.resolve_deadline, "apply_async", down)
    client = client_for(users[0])
    with django_capture_on_commit_callbacks(execute=True):
        created = client.post(URL, {"game": "mascarade",
                                    "options": {"players": 4, "move_timeout": 300}},
                              format="json")
        game_id = created.json()["id"]
        for user in users[1:]:
            joined = client_for(user).post(game_url(game_id, "join/"), {}, format="json")
            assert joined.status_code == 200
    assert "could not send the task games.deliver_queued" in caplog.text
    pending = Notification.objects.filter(status=Status.PENDING)
    assert pending.count() >= 5
    monkeypatch.undo()
    count = pending.count()
    assert delivery.deliver_due() == count
    assert not Notification.objects.filter(status=Status.PENDING).exists()
    assert len(mail.outbox) >= 5


def test_a_worker_killed_during_delivery_sends_again_later_with_the_same_message_id(
        users, monkeypatch):
    """At least once: a worker that dies during the send leaves the message "sending"; a task
    redelivered at once, or the sweep soon after, leave it alone (the send may still be under
    way); once it is stale the sweep sends it again, with the same Message-ID (receivers drop
    the duplicate), and its state says one attempt ended unknown. Nothing stays lost."""
    game = start_game(users[0], users[1:], options={"players": 4})
    note = Notification.objects.get(game=game, kind="your_turn")

    class Killed(BaseException):
        """The worker process dies while the mail is going out."""

    def dies(self, *args, **kwargs):
        mail.outbox.append(self)  # the SMTP server got it...
        raise Killed()  # ...and the worker died before recording it

    monkeypatch.setattr("django.core.mail.EmailMultiAlternatives.send", dies)
    with pytest.raises(Killed):
        delivery.deliver(note.pk)
    monkeypatch.undo()
    note.refresh_from_db()
    assert note.status == Status.SENDING
    assert tasks.deliver_notification(note.pk) == "not due"
    delivery.deliver_due()
    note.refresh_from_db()
    assert note.status == Status.SENDING  # not yet: the send may still be under way
    with later(30):
        delivery.deliver_due()
    note.refresh_from_db()
    assert note.status == Status.SENT and note.interrupted == 1
    sent = [m for m in mail.outbox if m.to == [note.user.email] and "It is your turn" in m.body]
    assert len(sent) == 2
    assert sent[0].extra_headers["Message-ID"] == sent[1].extra_headers["Message-ID"]
