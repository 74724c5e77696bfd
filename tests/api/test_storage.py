"""Storage: append-only move records (trigger), disposable snapshots, pending decisions."""

from __future__ import annotations

import json

import pytest
from django.db import DatabaseError, connection, transaction

from games.core import selectors
from games.core.catalog import get_game
from games.models import Game, MoveRecord, PendingDecision, Snapshot

from .factories import UserFactory, client_for
from .helpers import game_url, peaceful, play_service_moves, start_game


@pytest.fixture
def played(db):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    play_service_moves(game, 12, dict(enumerate(users)))
    return game, users


@pytest.mark.postgres
@pytest.mark.parametrize("sql", [
    "UPDATE games_moverecord SET payload = '{\"type\": \"look\"}'::jsonb WHERE game_id = %s",
    "UPDATE games_moverecord SET seq = seq + 100 WHERE game_id = %s",
    "DELETE FROM games_moverecord WHERE game_id = %s",
])
def test_the_database_refuses_to_change_or_delete_a_move_record(played, sql):
    game, _users = played
    with (pytest.raises(DatabaseError, match=r"append-only|Cannot update or delete"),
          transaction.atomic(),
          connection.cursor() as cursor):
        cursor.execute(sql, [str(game.pk)])
    assert MoveRecord.objects.filter(game=game).count() == 12


@pytest.mark.postgres
def test_the_orm_cannot_change_a_move_record_either(played):
    game, _users = played
    record = MoveRecord.objects.filter(game=game).first()
    record.payload = {"type": "look"}
    with pytest.raises(DatabaseError), transaction.atomic():
        record.save()
    with pytest.raises(DatabaseError), transaction.atomic():
        MoveRecord.objects.filter(game=game).delete()


def test_records_hold_contiguous_seqs_the_payload_and_the_engine_events(played):
    game, _users = played
    records = list(MoveRecord.objects.filter(game=game).order_by("seq"))
    assert [r.seq for r in records] == list(range(1, 13))
    assert all(r.events and r.actor == MoveRecord.Actor.PLAYER for r in records)
    assert game.seq == 12


def test_a_deleted_snapshot_is_rebuilt_by_replay_and_nothing_is_lost(played):
    game, users = played
    client = client_for(users[0])
    before = client.get(game_url(game.pk)).json()
    events_before = client.get(game_url(game.pk, "events/")).json()
    Snapshot.objects.filter(game=game).delete()
    after = client.get(game_url(game.pk)).json()
    assert after == before
    assert client.get(game_url(game.pk, "events/")).json() == events_before
    snapshot = Snapshot.objects.get(game=game)
    assert snapshot.seq == 12


def test_a_stale_snapshot_is_brought_up_to_date_from_the_moves_after_it(played):
    game, users = played
    client = client_for(users[0])
    before = client.get(game_url(game.pk)).json()
    engine_state = selectors.load_state(Game.objects.get(pk=game.pk))
    # Roll the cache back to an older position: reads replay the moves after it.
    from games.core.catalog import get_game
    from games.engine import replay

    records = MoveRecord.objects.filter(game=game, seq__lte=5).order_by("seq")
    old, _ = replay(get_game("mascarade"), game.options, game.seed,
                    [(r.seat.position, r.payload) for r in records])
    Snapshot.objects.filter(game=game).update(seq=5, state=get_game("mascarade").to_json(old))
    assert client.get(game_url(game.pk)).json() == before
    snapshot = Snapshot.objects.get(game=game)
    assert snapshot.seq == 12
    assert snapshot.state == get_game("mascarade").to_json(engine_state)


def test_moves_after_a_lost_snapshot_still_apply_to_the_right_state(played):
    game, users = played
    Snapshot.objects.filter(game=game).delete()
    play_service_moves(game, 3, dict(enumerate(users)), choose=peaceful)
    assert game.seq == 15
    assert Snapshot.objects.get(game=game).seq == 15


def test_pending_decisions_mirror_the_engine_with_deadlines_from_the_options(db):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:],
                      options={"players": 4, "move_timeout": 600, "challenge_timeout": 60,
                               "challenge_mode": "simultaneous"})
    (row,) = PendingDecision.objects.filter(game=game)
    assert row.decision == "prep" and row.seq == 0 and not row.bot
    assert 599 <= (row.deadline - row.created_at).total_seconds() <= 601
    by_player = dict(enumerate(users))
    play_service_moves(game, 4, by_player, choose=peaceful)
    turn = PendingDecision.objects.get(game=game)
    assert turn.decision == "turn"
    client = client_for(by_player[turn.player])
    announced = client.post(game_url(game.pk, "moves/"),
                            {"move": {"type": "announce", "mask": "king"}}, format="json")
    assert announced.status_code == 201
    rows = list(PendingDecision.objects.filter(game=game).order_by("seat"))
    assert len(rows) == 3 and {r.decision for r in rows} == {"challenge"}
    assert all(59 <= (r.deadline - r.created_at).total_seconds() <= 61 for r in rows)
    awaiting = announced.json()["game"]["state"]["awaiting"]
    assert {a["seat"] for a in awaiting} == {r.seat for r in rows}
    assert all(a["deadline"] for a in awaiting)
    # One answer: the two other windows keep their rows (and deadlines).
    first = rows[0]
    kept = {r.pk: r.deadline for r in rows[1:]}
    answer = client_for(by_player[first.player]).post(
        game_url(game.pk, "moves/"), {"move": {"type": "pass"}}, format="json")
    assert answer.status_code == 201
    left = {r.pk: r.deadline for r in PendingDecision.objects.filter(game=game)}
    assert left == kept


def test_the_snapshot_is_stored_as_plain_json_text(played):
    game, _users = played
    state = selectors.load_state(Game.objects.get(pk=game.pk))
    with connection.cursor() as cursor:
        cursor.execute("SELECT state FROM games_snapshot WHERE game_id = %s", [game.pk.hex])
        [text] = cursor.fetchone()
    assert isinstance(text, str) and json.loads(text) == get_game("mascarade").to_json(state)
    assert Snapshot.objects.get(game=game).state == json.loads(text)


@pytest.mark.postgres
def test_the_snapshot_column_is_compressed_with_lz4(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT attcompression FROM pg_attribute WHERE attname = 'state' AND "
                       "attrelid = 'games_snapshot'::regclass")
        assert cursor.fetchone()[0] == "l"
