"""The write path's events (``games.core.events``): subscribers in the transaction run at once,
after-commit ones only once it commits (never on a rollback, a failing one not stopping the
others), and the channels' apps subscribe what ``docs/subsystems/events.md`` says."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import transaction

from games.core import events
from games.core.services import ratings, scheduling
from games.live import subscribers as live
from games.notify import outbox as notify_outbox
from games.webhooks import outbox as webhooks_outbox


@dataclass(frozen=True)
class Happened:
    what: str


@pytest.fixture
def heard():
    seen: list[tuple[str, str]] = []

    @events.subscribe(Happened)
    def now(event):
        seen.append(("now", event.what))

    @events.subscribe(Happened, after_commit=True)
    def later(event):
        seen.append(("after commit", event.what))

    yield seen
    events._subscribers.pop(Happened, None)


@pytest.mark.django_db(transaction=True)
def test_in_the_transaction_at_once_after_the_commit_once_committed(heard):
    with transaction.atomic():
        events.publish(Happened("a move"))
        assert heard == [("now", "a move")]
    assert heard == [("now", "a move"), ("after commit", "a move")]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_tells_nobody_after_it(heard):
    with pytest.raises(RuntimeError), transaction.atomic():
        events.publish(Happened("refused"))
        raise RuntimeError
    assert heard == [("now", "refused")]


@dataclass(frozen=True)
class Other:
    what: str


@pytest.mark.django_db(transaction=True)
def test_a_failing_after_commit_subscriber_leaves_the_others_their_turn(caplog):
    seen = []

    @events.subscribe(Other, after_commit=True)
    def broken(event):
        raise ValueError("down")

    @events.subscribe(Other, after_commit=True)
    def after_it(event):
        seen.append(event.what)

    try:
        with transaction.atomic():
            events.publish(Other("x"))
    finally:
        events._subscribers.pop(Other, None)
    assert seen == ["x"]
    assert "broken(Other)" in caplog.text and "down" in caplog.text


def test_a_subscriber_registered_twice_is_called_once(heard):
    first = events.subscribers(Happened)
    events.subscribe(Happened)(first[0])
    assert events.subscribers(Happened) == first


def test_an_event_nobody_hears_is_no_error():
    events.publish(Happened("alone"))


def test_the_channels_subscribe_as_documented():
    assert events.subscribers(events.GameStarted) == [notify_outbox.game_started,
                                                      webhooks_outbox.game_started]
    # (the ratings, of the core, rate the game in the same transaction: in any order)
    ended = events.subscribers(events.GameEnded)
    assert ratings.rate_ended in ended
    assert [f for f in ended if f is not ratings.rate_ended] == [notify_outbox.game_ended,
                                                                 webhooks_outbox.game_ended]
    assert events.subscribers(events.DecisionsAwaited) == [notify_outbox.decisions_awaited,
                                                           webhooks_outbox.decisions_awaited]
    assert events.subscribers(events.SeatAbsent) == [notify_outbox.marked_absent]
    assert events.subscribers(events.MailHandled) == [notify_outbox.mail_reply]
    assert events.subscribers(events.WebhookDisabled) == [notify_outbox.webhook_disabled]
    assert set(events.subscribers(events.GameChanged)) == {live.game_changed,
                                                           scheduling.game_changed}
    assert events.subscribers(events.ChatChanged) == [live.chat_changed]
