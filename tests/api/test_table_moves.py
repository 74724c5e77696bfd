"""Table moves through the service: pause/resume keep the time left, extend, replace, absent,
abort; each appended as a record that a replay reproduces; public events; errors change nothing."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.utils import timezone

from games.core import selectors, services
from games.core.errors import AlreadySeated, GameNotActive, Invalid, StaleSeq
from games.engine import IllegalMove, MalformedMove
from games.models import Game, MoveRecord, PendingDecision, Seat

from .factories import UserFactory, client_for
from .helpers import game_url, play_service_moves, replay_with_table, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(users):
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 3600})
    play_service_moves(game, 2, dict(enumerate(users)))
    return game


def deadlines(game):
    return {row.player: row.deadline for row in PendingDecision.objects.filter(game=game)}


def check_replay(game):
    """The stored records alone rebuild the rules state and the table state the site shows."""
    game.refresh_from_db()
    engine, state, table = replay_with_table(game)
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
    assert engine.to_json(state) == engine.to_json(loaded.state)
    assert table["paused"] == (game.status == Game.Status.PAUSED)
    assert (table["aborted"] is not None) == (game.status == Game.Status.ABORTED)
    for position, who in table["occupants"].items():
        seat = Seat.objects.get(game=game, position=int(position))
        assert who == (f"bot:{seat.bot_kind}" if seat.is_bot else f"user:{seat.user_id}")
    return table


def test_pause_freezes_deadlines_and_resume_gives_back_the_time_left(game, users):
    before = deadlines(game)
    moderator = UserFactory(is_staff=True)
    record = services.apply_table_move(game.pk, "pause", actor=MoveRecord.Actor.MODERATOR,
                                       by_user=moderator, reason="server move")
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED and game.seq == record.seq == 3
    assert record.payload == {"type": "table", "action": "pause", "reason": "server move"}
    assert record.actor == "moderator" and record.by_user == moderator and record.seat is None
    rows = list(PendingDecision.objects.filter(game=game))
    assert rows and all(3500 <= row.remaining <= 3600 for row in rows)
    # Nobody can move while paused.
    player = rows[0].player
    with pytest.raises(GameNotActive):
        services.submit_move(game.pk, {"type": "look"}, user=users[player])
    # Two hours later the game resumes with the time that was left.
    PendingDecision.objects.filter(game=game).update(created_at=timezone.now())
    later = timezone.now() + dt.timedelta(hours=2)
    with mock.patch("django.utils.timezone.now", return_value=later):
        services.apply_table_move(game.pk, "resume", actor=MoveRecord.Actor.MODERATOR)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.seq == 4
    for row in PendingDecision.objects.filter(game=game):
        assert row.remaining is None
        left = (row.deadline - later).total_seconds()
        assert 3500 <= left <= 3600
        assert row.deadline > before[row.player] + dt.timedelta(hours=1, minutes=55)
    check_replay(game)


def test_the_table_is_told_every_viewer_sees_the_table_event(game, users):
    services.apply_table_move(game.pk, "absent", player=2, reason="3 timeouts in a row")
    spectator = client_for(None).get(game_url(game.pk, "events/"), {"after": 2}).json()
    player = client_for(users[1]).get(game_url(game.pk, "events/"), {"after": 2}).json()
    expected = {"seq": 3, "type": "table", "action": "absent", "actor": "system",
                "player": users[2].username, "reason": "3 timeouts in a row"}
    for answer in (spectator, player):
        (event,) = answer["results"]
        event.pop("at")
        assert event == expected
    record = MoveRecord.objects.get(game=game, seq=3)
    assert record.seat.position == 2 and record.actor == "system"
    table = check_replay(game)
    assert table["absent"] == [2]
    services.apply_table_move(game.pk, "back", player=2)
    assert check_replay(game)["absent"] == []


def test_a_game_goes_on_after_table_moves_and_reads_stay_right(game, users):
    services.apply_table_move(game.pk, "pause")
    services.apply_table_move(game.pk, "resume")
    play_service_moves(game, 6, dict(enumerate(users)))
    assert game.seq == 10
    check_replay(game)


def test_replacing_a_player_by_a_bot_hands_over_the_pending_decision(
        game, users, django_capture_on_commit_callbacks):
    awaited = PendingDecision.objects.get(game=game).player
    with django_capture_on_commit_callbacks(execute=True):
        record = services.apply_table_move(game.pk, "replace", player=awaited,
                                           occupant="bot:heuristic",
                                           actor=MoveRecord.Actor.MODERATOR, reason="gone")
    assert record.payload["previous"] == f"user:{users[awaited].pk}"
    seat = Seat.objects.get(game=game, position=awaited)
    assert seat.is_bot and seat.user is None
    game.refresh_from_db()
    # The bot played at once (eager Celery): the game moved past its decision.
    assert game.seq > record.seq
    assert MoveRecord.objects.filter(game=game, seq=record.seq + 1, actor="bot").exists()
    table = check_replay(game)
    assert table["occupants"] == {str(awaited): "bot:heuristic"}


def test_replacing_with_a_user(game, users):
    newcomer = UserFactory()
    services.apply_table_move(game.pk, "replace", player=3, occupant=f"user:{newcomer.pk}")
    assert Seat.objects.get(game=game, position=3).user == newcomer
    with pytest.raises(AlreadySeated):
        services.apply_table_move(game.pk, "replace", player=2, occupant=f"user:{newcomer.pk}")
    with pytest.raises(Invalid):
        services.apply_table_move(game.pk, "replace", player=2, occupant="user:999999")
    check_replay(game)


def test_extend_moves_the_deadlines_later(game):
    before = deadlines(game)
    player = next(iter(before))
    services.apply_table_move(game.pk, "extend", seconds=7200, player=player)
    after = deadlines(game)
    assert after[player] - before[player] == dt.timedelta(hours=2)
    other = next(p for p in range(4) if p not in before)
    with pytest.raises(IllegalMove) as err:
        services.apply_table_move(game.pk, "extend", seconds=60, player=other)
    assert err.value.code == "nothing_to_extend"


def test_abort_ends_the_game_for_good(game, users):
    services.apply_table_move(game.pk, "abort", reason="A player cheated.",
                              actor=MoveRecord.Actor.MODERATOR)
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.finished_at is not None
    assert not PendingDecision.objects.filter(game=game).exists()
    for action, fields in (("resume", {}), ("pause", {}), ("abort", {"reason": "again"})):
        with pytest.raises(GameNotActive):
            services.apply_table_move(game.pk, action, **fields)
    check_replay(game)


def test_refused_table_moves_change_nothing(game):
    seq = game.seq
    with pytest.raises(GameNotActive):
        services.apply_table_move(game.pk, "resume")
    with pytest.raises(MalformedMove):
        services.apply_table_move(game.pk, "nap")
    with pytest.raises(MalformedMove):
        services.apply_table_move(game.pk, "absent", player=9)
    with pytest.raises(StaleSeq):
        services.apply_table_move(game.pk, "pause", expected_seq=seq - 1)
    services.apply_table_move(game.pk, "pause")
    services.apply_table_move(game.pk, "absent", player=1)
    with pytest.raises(IllegalMove):
        services.apply_table_move(game.pk, "absent", player=1)
    game.refresh_from_db()
    assert game.seq == seq + 2
    assert list(MoveRecord.objects.filter(game=game).values_list("seq", flat=True)) == list(
        range(1, seq + 3))


def test_an_open_game_can_only_be_aborted(users):
    outcome = services.create_game(users[0], "mascarade", {"players": 4})
    with pytest.raises(GameNotActive):
        services.apply_table_move(outcome.body["id"], "pause")
    record = services.apply_table_move(outcome.body["id"], "abort", reason="No players came.")
    assert record.seq == 1
    assert Game.objects.get(pk=outcome.body["id"]).status == Game.Status.ABORTED
