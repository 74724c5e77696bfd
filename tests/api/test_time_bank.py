"""Game speeds and time banks (issue 47): a named speed's timers, each seat's bank drawn on by
its own decisions (a simultaneous challenge window too), a bank that runs out plays the rules'
default, pauses and extensions within the cap, the seats' ``clock`` in every answer."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.core.cache import cache
from django.utils import timezone

from games.core import selectors, services
from games.core.catalog import get_game
from games.core.selectors import estimates
from games.models import Game, PendingDecision, Seat

from .factories import client_for
from .helpers import game_url, peaceful, start_game

pytestmark = pytest.mark.django_db

BANK = {"speed": "bank", "bank_initial": 7200, "bank_increment": 600}


class Clock:
    """``timezone.now`` under the test's hand."""

    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now

    def wait(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def clock():
    hand = Clock()
    with mock.patch("django.utils.timezone.now", hand):
        yield hand


def rows(game):
    return {row.player: row for row in PendingDecision.objects.filter(game=game)}


def banks(game):
    return dict(Seat.objects.filter(game=game).values_list("position", "bank_seconds"))


def players(user, game):
    answer = client_for(user).get(game_url(game.pk))
    assert answer.status_code == 200
    return {p["position"]: p["clock"] for p in answer.json()["players"]}


def turn_player(game):
    return next(iter(rows(game)))


@pytest.fixture
def users(users):
    users[0].is_staff = True  # (``first_seat`` is a staff option)
    users[0].save(update_fields=["is_staff"])
    return users


def look(game, users, player):
    """A move of ``player`` that changes nothing (a look, a pass, an exchange without swap)."""
    state = selectors.load_for_viewer(selectors.find_game(game.pk), None).state
    move = peaceful(get_game("mascarade").legal_moves(state, player))
    game.refresh_from_db()
    services.submit_move(game.pk, move, user=users[player], expected_seq=game.seq)
    game.refresh_from_db()


def test_a_named_speed_sets_the_timers_and_old_games_keep_theirs(users):
    game = start_game(users[0], users[1:], options={"players": 4, "speed": "fast"})
    assert (game.options["move_timeout"], game.options["challenge_timeout"]) == (3600, 1800)
    assert game.speed == "fast"
    row = next(iter(rows(game).values()))
    assert row.clock_seconds == 3600
    assert all(clock is None for clock in players(users[0], game).values())
    # Options as stored before speeds: the timers they hold, their speed read from them.
    custom = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 600})
    assert custom.options["speed"] == "custom" and custom.speed == "custom"
    assert next(iter(rows(custom).values())).clock_seconds == 600


def test_a_speed_and_other_timers_are_refused(users):
    client = client_for(users[0])
    for options, field in [({"players": 4, "speed": "slow", "move_timeout": 60}, "move_timeout"),
                           ({"players": 4, "speed": "bank", "challenge_timeout": 60},
                            "challenge_timeout"),
                           ({"players": 4, "speed": "fast", "bank_initial": 7200},
                            "bank_initial"),
                           ({"players": 4, "speed": "bank", "bank_initial": 3600,
                             "bank_increment": 7200}, "bank_increment"),
                           ({"players": 4, "speed": "quick"}, "speed")]:
        answer = client.post("/api/v1/games/", {"game": "mascarade", "options": options},
                             format="json")
        assert answer.status_code == 400, options
        assert answer.json()["code"] == "invalid_options" and answer.json()["field"] == field
    assert not Game.objects.exists()


def test_each_decision_draws_on_its_seats_bank_with_the_increment_up_to_the_cap(users, clock):
    game = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0, **BANK})
    by_player = dict(enumerate(users))
    first = rows(game)[0]
    assert first.clock_seconds == 7200  # the whole bank: its increment is above the cap
    assert players(users[1], game)[0] == {"remaining": 7200,
                                          "running_since": selectors.iso(first.clock_from)}
    assert players(users[1], game)[1] == {"remaining": 7200, "running_since": None}
    clock.wait(1000)
    look(game, by_player, 0)
    assert banks(game)[0] == 6200
    assert players(users[1], game)[0] == {"remaining": 6200, "running_since": None}
    # Seat 0's next decision: what is left plus the increment.
    for _ in range(8):
        if 0 in rows(game):
            break
        look(game, by_player, turn_player(game))
    assert rows(game)[0].clock_seconds == 6800
    assert rows(game)[0].deadline == clock.now + dt.timedelta(seconds=6800)


def test_a_bank_that_runs_out_plays_the_default_and_keeps_the_increment(users, clock):
    game = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0,
                                                    "absent_after": 10, **BANK})
    by_player = dict(enumerate(users))
    clock.wait(7201)
    assert services.resolve_due_deadlines() == 1
    assert banks(game)[0] == 0
    for _ in range(8):
        if 0 in rows(game):
            break
        look(game, by_player, turn_player(game))
    row = rows(game)[0]
    assert row.clock_seconds == 600 and row.deadline > clock.now


def test_a_simultaneous_window_draws_on_each_seats_own_bank(users, clock):
    game = start_game(users[0], users[1:], options={
        "players": 4, "first_seat": 0, "challenge_mode": "simultaneous", **BANK})
    by_player = dict(enumerate(users))
    for player in range(4):  # the four preparatory turns, at once
        look(game, by_player, player)
    services.submit_move(game.pk, {"type": "announce", "mask": "king"}, user=users[0],
                         expected_seq=game.seq)
    window = rows(game)
    assert sorted(window) == [1, 2, 3]
    assert all(row.clock_seconds == 7200 for row in window.values())
    clock.wait(300)
    game.refresh_from_db()
    services.submit_move(game.pk, {"type": "pass"}, user=users[1], expected_seq=game.seq)
    # Seat 2 still decides: its bank is what its preparatory turn left.
    assert banks(game)[1] == 6900 and banks(game)[2] == 7200 and 2 in rows(game)
    clock.wait(500)
    for player in (2, 3):
        game.refresh_from_db()
        services.submit_move(game.pk, {"type": "pass"}, user=users[player],
                             expected_seq=game.seq)
    assert {p: banks(game)[p] for p in (1, 2, 3)} == {1: 6900, 2: 6400, 3: 6400}


def test_pauses_keep_the_bank_and_extensions_stop_at_the_cap(users, clock):
    game = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0, **BANK})
    clock.wait(2000)
    services.apply_table_move(game.pk, "pause", actor="moderator", by="moderator",
                              reason="a check")
    game.refresh_from_db()
    assert rows(game)[0].remaining == 5200
    assert players(users[1], game)[0] == {"remaining": 5200, "running_since": None}
    services.apply_table_move(game.pk, "extend", actor="moderator", player=0, seconds=86_400)
    assert rows(game)[0].remaining == 7200  # the cap
    clock.wait(86_400)  # paused: the bank does not run
    services.apply_table_move(game.pk, "resume", actor="moderator", by="moderator")
    row = rows(game)[0]
    assert row.clock_seconds == 7200 and row.deadline == clock.now + dt.timedelta(seconds=7200)
    clock.wait(100)
    services.apply_table_move(game.pk, "extend", actor="moderator", player=0, seconds=60)
    row = rows(game)[0]
    # 7100 s were left: 60 more would not pass the cap, 100 would.
    assert row.clock_seconds == 7260
    services.apply_table_move(game.pk, "extend", actor="moderator", player=0, seconds=600)
    row = rows(game)[0]
    assert row.clock_seconds == 7300 and row.deadline == clock.now + dt.timedelta(seconds=7200)


@pytest.fixture
def fresh_estimates():
    """The lobby's estimates read from this test's games (and not left to the next test)."""
    cache.delete(estimates.CACHE_KEY)
    yield
    cache.delete(estimates.CACHE_KEY)


def test_the_lobby_estimates_a_games_length_from_finished_ones(users, client, fresh_estimates,
                                                               django_assert_num_queries):
    now = timezone.now()
    for days in (1, 2, 4):  # the median: 2 days
        Game.objects.create(kind="mascarade", options={"players": 4, **BANK}, seed=1,
                            status=Game.Status.FINISHED, seat_count=4,
                            started_at=now - dt.timedelta(days=days + 1),
                            finished_at=now - dt.timedelta(days=1))
    Game.objects.create(kind="mascarade", options={"players": 5, **BANK}, seed=1,
                        status=Game.Status.FINISHED, seat_count=5,
                        started_at=now - dt.timedelta(days=9), finished_at=now)
    assert {key: value for key, value in estimates.length_estimates().items()
            if key[0] == "mascarade"} == {("mascarade", "bank", 4): 2 * 86_400,
                                          ("mascarade", "bank", 5): 9 * 86_400}
    with django_assert_num_queries(0):  # (cached)
        estimates.length_estimates()
    services.create_game(users[0], "mascarade", {"players": 4, **BANK}, name="Banked four")
    services.create_game(users[1], "mascarade", {"players": 4, "speed": "slow"},
                         name="Slow four")
    page = client.get("/games/").content.decode()
    banked = page[page.index("Banked four"):][:600]
    assert "time bank: 3 hours" not in banked  # (7200 s: "2 hours")
    assert "time bank: 2 hours, +10 minutes per decision" in banked
    assert "usually lasts about 2 days" in banked
    slow = page[page.index("Slow four"):][:600]
    assert "slow: 3 days per turn" in slow and "no estimate of its length yet" in slow


def test_the_decision_mail_says_what_the_bank_holds(users, clock):
    from games.models import Notification
    from games.notify.messages import _subject_and_lines

    game = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0, **BANK})
    note = Notification.objects.filter(game=game, user=users[0]).exclude(
        kind=Notification.Kind.STARTED).get()
    assert note.context["bank"] == 7200
    _subject, _headline, lines = _subject_and_lines(note, [])
    assert "Your time bank holds 2 h 00 min for this decision: the deadline is when it runs " \
           "out." in lines
    plain = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0})
    note = Notification.objects.filter(game=plain, user=users[0]).exclude(
        kind=Notification.Kind.STARTED).get()
    assert "bank" not in note.context


def test_the_mails_table_shows_each_seats_bank(users, clock):
    from games.core.catalog import get_kit
    from games.mail.outgoing import names_and_board

    game = start_game(users[0], users[1:], options={"players": 4, "first_seat": 0, **BANK})
    clock.wait(600)
    _names, board, _payload = names_and_board(game, users[1])
    lines = get_kit("mascarade").status_lines(board)
    first = next(line for line in lines if line.startswith(users[0].username))
    second = next(line for line in lines if line.startswith(users[1].username))
    # (1 h 50 min, to the second the API writes the deadline with)
    assert first.endswith(("bank: 1 h 50 min (running)", "bank: 1 h 49 min (running)"))
    assert "bank: 2 h 00 min" in second and "running" not in second
