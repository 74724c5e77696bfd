"""Pauses by the players' unanimous request; vacations: limits, deadlines pushed over them, the
table told."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.utils import timezone

from accounts.models import Vacation
from games.core import services
from games.models import Game, MoveRecord, PendingDecision

from .factories import UserFactory, client_for
from .helpers import game_url, replay_with_table, start_game

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/vacations/"


def pause(user, game, wanted=True):
    return client_for(user).post(game_url(game.pk, "pause/"), {"pause": wanted}, format="json")


def test_the_game_pauses_when_every_human_player_asks(users):
    game = start_game(users[0], users[1:3], options={"players": 4}, bots=1)
    for user in users[:2]:
        answer = pause(user, game)
        assert answer.status_code == 200 and answer.json()["status"] == "active"
    players = answer.json()["players"]
    assert {p["player"]: p["wants_pause"] for p in players} == {
        users[0].username: True, users[1].username: True, users[2].username: False, "Bot 2": False}
    answer = pause(users[2], game)
    assert answer.json()["status"] == "paused"
    record = MoveRecord.objects.get(game=game, payload__action="pause")
    assert record.actor == "player" and record.by_user == users[2]
    assert record.payload["by"] == "players"
    # One player withdraws: the game resumes with the time that was left.
    answer = pause(users[1], game, wanted=False)
    assert answer.json()["status"] == "active"
    assert not any(p["wants_pause"] for p in answer.json()["players"])
    _engine, _state, table = replay_with_table(Game.objects.get(pk=game.pk))
    assert table["paused"] is False


def test_a_moderators_pause_is_not_lifted_by_the_players(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    services.apply_table_move(game.pk, "pause", actor="moderator", by="moderator",
                              reason="checking a report")
    answer = pause(users[0], game, wanted=False)
    assert answer.status_code == 403 and answer.json()["code"] == "forbidden"
    assert Game.objects.get(pk=game.pk).status == "paused"


def test_only_players_ask_for_pauses(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    assert pause(UserFactory(), game).status_code == 403
    bad = client_for(users[0]).post(game_url(game.pk, "pause/"), {"pause": "maybe"},
                                    format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def days(start, n):
    return {"start": str(start), "end": str(start + dt.timedelta(days=n - 1))}


def test_vacation_limits(users):
    client = client_for(users[0])
    today = timezone.now().date()
    year_start = dt.date(today.year + 1, 1, 1)
    assert client.post(ME, days(year_start, 10), format="json").status_code == 201
    assert client.post(ME, days(year_start + dt.timedelta(days=20), 11),
                       format="json").status_code == 201
    over = client.post(ME, days(year_start + dt.timedelta(days=40), 1), format="json")
    assert over.status_code == 400
    assert "0 vacation days left" in over.json()["fields"]["end"][0]
    overlap = client.post(ME, days(year_start + dt.timedelta(days=5), 1), format="json")
    assert overlap.status_code == 400 and "overlap" in overlap.json()["detail"]
    past = client.post(ME, days(today - dt.timedelta(days=3), 1), format="json")
    assert past.status_code == 400 and "past" in past.json()["detail"]
    reversed_ = client.post(ME, {"start": str(year_start), "end": str(year_start
                                                                       - dt.timedelta(days=1))},
                            format="json")
    assert reversed_.status_code == 400
    too_long = client.post(ME, days(dt.date(today.year + 2, 3, 1), 22), format="json")
    assert too_long.status_code == 400
    listed = client.get(ME).json()
    assert listed["allowance_per_year"] == 21 and len(listed["results"]) == 2
    assert Vacation.objects.filter(user=users[0]).count() == 2
    # Across New Year: each year's days count in that year.
    span = client.post(ME, days(dt.date(today.year + 3, 12, 25), 14), format="json")
    assert span.status_code == 201 and span.json()["days"] == 14
    # Cancelling one to come; another user's is not found.
    vid = listed["results"][0]["id"]
    assert client_for(users[1]).delete(f"{ME}{vid}/").status_code == 404
    assert client.delete(f"{ME}{vid}/").status_code == 204


def test_the_clock_stops_during_the_vacation_time():
    from games.core.deadlines import run_until, running_time

    t0 = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    h = dt.timedelta(hours=1)
    hours = 3600
    away = [(t0 + 2 * h, t0 + 10 * h)]
    assert run_until(away, t0, 1 * hours) == t0 + h  # before the vacation
    assert run_until(away, t0, 5 * hours) == t0 + 13 * h
    assert run_until(away, t0 + 3 * h, 1 * hours) == t0 + 11 * h  # under way
    two = [*away, (t0 + 12 * h, t0 + 20 * h)]
    assert run_until(two, t0, 5 * hours) == t0 + 21 * h
    assert run_until(list(reversed(two)), t0, 5 * hours) == t0 + 21 * h  # any order
    overlapping = [(t0 + 2 * h, t0 + 6 * h), (t0 + 4 * h, t0 + 10 * h)]
    assert run_until(overlapping, t0, 5 * hours) == t0 + 13 * h
    # The running time between two moments is what run_until counts.
    for intervals in (away, two, overlapping, []):
        for start, seconds in ((t0, 5 * hours), (t0 + 3 * h, hours), (t0 + 11 * h, 2 * hours)):
            end = run_until(intervals, start, seconds)
            assert running_time(intervals, start, end) == seconds


def test_deadlines_extend_over_a_vacation_and_the_table_sees_it(users):
    user = users[0]
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 86_400})
    row = PendingDecision.objects.get(game=game)
    player = row.player
    owner = users[player]
    before = row.deadline
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    answer = client_for(owner).post(ME, days(tomorrow, 3), format="json")
    assert answer.status_code == 201
    row.refresh_from_db()
    assert row.deadline - before >= dt.timedelta(days=2, hours=23)
    # New decisions of a player away are pushed too; the table shows who is away.
    with mock.patch("django.utils.timezone.now",
                    return_value=timezone.now() + dt.timedelta(days=1, hours=1)):
        seen = client_for(user).get(game_url(game.pk)).json()
        assert seen["players"][player]["vacation"] is True
        assert not any(p["vacation"] for i, p in enumerate(seen["players"]) if i != player)


def test_the_transaction_that_moves_a_deadline_bumps_the_games_version(users):
    """A deadline moved by a vacation is changed under the game's lock with the game's version
    bumped in the same transaction (``games.core.services.write``'s locking duty: a move that waited
    for that lock reads the pending decisions again), not only by the bump of every game of the
    user that comes after (left out here)."""
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 86_400})
    row = PendingDecision.objects.get(game=game)
    owner = users[row.player]
    version = Game.objects.get(pk=game.pk).version
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    with mock.patch("games.core.services.vacations.user_changed") as later_bump:
        answer = client_for(owner).post(ME, days(tomorrow, 3), format="json")
    assert answer.status_code == 201
    assert later_bump.called
    moved = PendingDecision.objects.get(pk=row.pk)
    assert moved.deadline > row.deadline
    assert Game.objects.get(pk=game.pk).version == version + 1


def _awaited_row(game) -> PendingDecision:
    return PendingDecision.objects.get(game=game)


def test_declaring_cancelling_and_declaring_again_gives_the_deadline_of_one_declaration(users):
    """Defect: cancelling a vacation left the deadline it had pushed, so that declare-and-cancel
    moved a deadline 21 days later at each round. Deadlines are computed from a stored base."""
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 86_400})
    row = _awaited_row(game)
    owner = client_for(users[row.player])
    original = row.deadline
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    declared = owner.post(ME, days(tomorrow, 21), format="json")
    assert declared.status_code == 201
    once = _awaited_row(game).deadline
    assert once > original
    for _round in range(5):
        vid = owner.get(ME).json()["results"][0]["id"]
        assert owner.delete(f"{ME}{vid}/").status_code == 204
        assert _awaited_row(game).deadline == original
        assert owner.post(ME, days(tomorrow, 21), format="json").status_code == 201
        assert _awaited_row(game).deadline == once


def test_no_sequence_of_vacation_requests_pushes_a_deadline_past_the_days_declared(users):
    """Whatever the user declares and cancels, the deadline is the decision's time counted
    outside the vacations still declared: never later than the original deadline plus those
    days."""
    import random

    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 3 * 86_400})
    row = _awaited_row(game)
    owner = client_for(users[row.player])
    original = row.deadline
    rng = random.Random(3)
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    for _step in range(12):
        listed = owner.get(ME).json()["results"]
        if listed and rng.random() < 0.5:
            assert owner.delete(f"{ME}{rng.choice(listed)['id']}/").status_code == 204
        else:
            start = tomorrow + dt.timedelta(days=rng.randrange(0, 10))
            owner.post(ME, days(start, rng.randrange(1, 8)), format="json")  # may be refused
        kept = Vacation.objects.filter(user=users[row.player])
        deadline = _awaited_row(game).deadline
        assert deadline <= original + dt.timedelta(days=sum(v.days for v in kept))
        if not kept:
            assert deadline == original
