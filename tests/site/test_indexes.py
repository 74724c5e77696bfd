"""The tables written at every move keep only the indexes their queries use (migration
``games/0017_fewer_indexes``): each query the dropped indexes could have served is served by one
that remains, and the dropped ones are gone."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.utils import timezone

from games.models import MoveRecord, Notification, PendingDecision

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

DROPPED = {
    "games_moverecord_game_id_6d15b994", "games_pendingdecision_game_id_b876433d",
    "games_notification_next_attempt_at_a4f4ebcb", "games_notification_status_38c1f616",
    "games_notification_status_38c1f616_like", "games_notification_dedupe_key_be3f089e_like",
}


def indexes(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {name for (name,) in cursor.fetchall()}


def plan(queryset) -> str:
    """The plan PostgreSQL chooses when it must use an index if one serves (the test's tables
    are nearly empty: a sequential scan would win otherwise)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    try:
        return queryset.explain()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = on")


def test_the_dropped_indexes_are_gone_and_the_ones_serving_their_queries_remain():
    present = (indexes("games_moverecord") | indexes("games_pendingdecision")
               | indexes("games_notification"))
    assert not DROPPED & present
    assert {"move_unique_seq", "pending_unique_player", "outbox_due",
            "notification_unique_dedupe_key"} <= present


@pytest.mark.parametrize(("query", "index"), [
    (lambda: MoveRecord.objects.filter(game_id=uuid.uuid4()).order_by("seq"), "move_unique_seq"),
    (lambda: MoveRecord.objects.filter(game_id=uuid.uuid4(), seq__gt=3), "move_unique_seq"),
    (lambda: PendingDecision.objects.filter(game_id=uuid.uuid4()), "pending_unique_player"),
    # the outbox's claim and its recovery of interrupted deliveries
    (lambda: Notification.objects.filter(status=Notification.Status.PENDING,
                                         next_attempt_at__lte=timezone.now())
     .order_by("next_attempt_at", "pk"), "outbox_due"),
    (lambda: Notification.objects.filter(
        status=Notification.Status.SENDING,
        next_attempt_at__lt=timezone.now() - dt.timedelta(hours=1)), "outbox_due"),
    (lambda: Notification.objects.filter(dedupe_key__in=["decision:a:1:2", "started:b:3"]),
     "notification_unique_dedupe_key"),
    (lambda: Notification.objects.filter(dedupe_key="chat:x"), "notification_unique_dedupe_key"),
])
def test_each_query_is_served_by_an_index(query, index):
    assert index in plan(query())
