"""Deadlines: timeouts play the rules' default (§10) as actor "timeout", through the sweep (SKIP
LOCKED) or a countdown task; challenge windows in both modes; absent players; a real worker."""

from __future__ import annotations

import datetime as dt
import threading
import time
from unittest import mock

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import tasks
from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, MoveRecord, PendingDecision, Seat
from mascarade_site.celery import app as celery_app

from .factories import UserFactory, client_for
from .helpers import game_url, peaceful, play_service_moves, replay_records, start_game

pytestmark = pytest.mark.django_db

PAST = dt.timedelta(seconds=1)


def expire(game, player=None):
    """Make the pending deadlines (of one player) already passed."""
    rows = PendingDecision.objects.filter(game=game)
    if player is not None:
        rows = rows.filter(player=player)
    rows.update(deadline=timezone.now() - PAST)


def state_of(game):
    game.refresh_from_db()
    return selectors.load_for_viewer(selectors.find_game(game.pk), None).state


def new_game(users, **options):
    return start_game(users[0], users[1:], options={"players": len(users), "absent_after": 10,
                                                     "absent_policy": "wait", **options})


def test_every_timeout_plays_the_rules_default_as_actor_timeout(users):
    engine = get_game("mascarade")
    kinds = set()
    for seed_game in range(3):
        game = new_game(users, challenge_mode="simultaneous" if seed_game % 2 else "sequential")
        for _ in range(60):
            state = state_of(game)
            if game.status != Game.Status.ACTIVE:
                break
            row = PendingDecision.objects.filter(game=game).order_by("seat").first()
            if row.decision == "turn" and game.seq % 2:
                # Announce (as the player) so that windows and powers come up to time out.
                masks = state_of(game) and engine.view(state, row.player)["masks_in_play"]
                mask = masks[game.seq % len(masks)]
                services.submit_move(game.pk, {"type": "announce", "mask": mask},
                                     user=users[row.player])
                continue
            expected = engine.timeout_move(state, row.player)
            expire(game, row.player)
            seq = game.seq
            # (+1 more when that timeout marks the seat absent: a table move follows it)
            assert services.play_timeout(game.pk, row.pk) in (seq + 1, seq + 2)
            record = MoveRecord.objects.get(game=game, seq=seq + 1)
            assert record.actor == "timeout" and record.by_user is None
            assert record.payload == expected and record.seat.position == row.player
            kinds.add(row.decision)
        _engine, replayed = replay_records(game)
        assert engine.to_json(replayed) == engine.to_json(state_of(game))
    assert {"prep", "turn", "challenge"} <= kinds
    assert kinds - {"prep", "turn", "challenge"}, "no power decision came up"


def test_a_decision_not_yet_due_or_already_answered_is_left_alone(users):
    game = new_game(users)
    row = PendingDecision.objects.get(game=game)
    assert services.play_timeout(game.pk, row.pk) is None  # not due yet
    expire(game)
    assert services.play_timeout(game.pk, row.pk) == 1
    # A late or duplicate countdown for the same decision does nothing.
    assert services.play_timeout(game.pk, row.pk) is None
    assert tasks.resolve_deadline(str(game.pk), row.pk) is None
    game.refresh_from_db()
    assert game.seq == 1


def test_a_paused_game_times_nothing_out(users):
    game = new_game(users)
    expire(game)
    services.apply_table_move(game.pk, "pause")
    assert services.resolve_due_deadlines() == 0
    game.refresh_from_db()
    assert game.seq == 1


def test_the_sweep_resolves_deadlines_that_passed_while_no_worker_ran(users):
    games = [new_game(users) for _ in range(3)]
    for game in games:
        expire(game)
    assert services.resolve_due_deadlines() == 3
    for game in games:
        game.refresh_from_db()
        assert list(MoveRecord.objects.filter(game=game).values_list("actor", flat=True)) == [
            "timeout"]
    assert services.resolve_due_deadlines() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_sweeps_running_at_once_never_play_a_timeout_twice():
    users = [UserFactory() for _ in range(4)]
    games = [new_game(users) for _ in range(6)]
    for game in games:
        expire(game)
    barrier = threading.Barrier(4)
    counts = []

    def sweep():
        try:
            barrier.wait()
            counts.append(services.resolve_due_deadlines())
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Every expired decision was played once, whichever sweep took it.
    assert sum(counts) == 6
    for game in games:
        assert MoveRecord.objects.filter(game=game).count() == 1


def king_announced(users, mode):
    """A game past its preparatory turns where the awaited player just announced the King: the
    challenge windows are open. Returns the game, its players by seat, the announcer's row."""
    game = new_game(users, challenge_mode=mode, challenge_timeout=600)
    by_player = dict(enumerate(users))
    play_service_moves(game, 4, by_player, choose=peaceful)
    turn = PendingDecision.objects.get(game=game)
    services.submit_move(game.pk, {"type": "announce", "mask": "king"},
                         user=by_player[turn.player])
    return game, by_player, turn


def test_sequential_windows_open_one_after_another_each_with_its_own_deadline(users):
    game, _players, turn = king_announced(users, "sequential")
    opened = []
    for _ in range(3):
        (row,) = PendingDecision.objects.filter(game=game)
        assert row.decision == "challenge" and row.player not in opened
        assert 590 <= (row.deadline - timezone.now()).total_seconds() <= 600
        opened.append(row.player)
        expire(game)
        assert services.resolve_due_deadlines() == 1
    # The three others passed by timeout, clockwise from the announcer's left.
    assert opened == [(turn.player + k) % 4 for k in (1, 2, 3)]
    assert not PendingDecision.objects.filter(game=game, decision="challenge").exists()


def test_simultaneous_windows_close_at_the_deadline_or_when_all_answered(users):
    game, by_player, _turn = king_announced(users, "simultaneous")
    rows = list(PendingDecision.objects.filter(game=game))
    assert len(rows) == 3 and {r.decision for r in rows} == {"challenge"}
    services.submit_move(game.pk, {"type": "pass"}, user=by_player[rows[0].player])
    assert PendingDecision.objects.filter(game=game, decision="challenge").count() == 2
    expire(game)
    assert services.resolve_due_deadlines() == 2
    assert not PendingDecision.objects.filter(game=game, decision="challenge").exists()


def test_absent_after_consecutive_timeouts_then_a_bot_plays_until_the_player_is_back(
        users, django_capture_on_commit_callbacks):
    game = start_game(users[0], users[1:], options={"players": 4, "absent_after": 2})
    by_player = dict(enumerate(users))
    # Seat 0 times out twice (its prep turn, then again after the others' turns).
    for _ in range(8):
        game.refresh_from_db()
        row = PendingDecision.objects.filter(game=game).first()
        if row is None or Seat.objects.get(game=game, position=0).absent:
            break
        if row.player == 0:
            expire(game, 0)
            with django_capture_on_commit_callbacks(execute=True):
                services.resolve_due_deadlines()
        else:
            play_service_moves(game, 1, by_player, choose=peaceful)
    seat = Seat.objects.get(game=game, position=0)
    assert seat.absent and seat.timeouts_in_row == 2
    table = MoveRecord.objects.get(game=game, payload__type="table")
    assert table.payload == {"type": "table", "action": "absent", "player": 0,
                             "reason": "2 timeouts in a row"}
    # Everyone sees it in the history.
    events = client_for(users[1]).get(game_url(game.pk, "events/")).json()["results"]
    assert any(e["type"] == "table" and e["action"] == "absent" for e in events)
    # The bot plays seat 0 whenever it is awaited (eager Celery in these tests).
    for _ in range(40):
        game.refresh_from_db()
        if (game.status != Game.Status.ACTIVE
                or MoveRecord.objects.filter(game=game, actor="bot", seat__position=0).exists()):
            break
        assert not PendingDecision.objects.filter(game=game, player=0, bot=False).exists()
        with django_capture_on_commit_callbacks(execute=True):
            play_service_moves(game, 1, by_player, choose=peaceful)
    assert MoveRecord.objects.filter(game=game, actor="bot", seat__position=0).exists()
    # The player says they are back: the seat is theirs at once.
    client = client_for(users[0])
    if game.status == Game.Status.ACTIVE:
        answer = client.post(game_url(game.pk, "back/"))
        assert answer.status_code == 200, answer.json()
        assert answer.json()["players"][0]["absent"] is False
        seat.refresh_from_db()
        assert not seat.absent and seat.timeouts_in_row == 0
        assert MoveRecord.objects.filter(game=game, payload__action="back",
                                         actor="player", by_user=users[0]).exists()
        assert not PendingDecision.objects.filter(game=game, player=0, bot=True).exists()
        again = client.post(game_url(game.pk, "back/"))
        assert again.status_code == 400 and again.json()["code"] == "invalid"


def test_a_move_of_an_absent_player_gives_the_seat_back(users):
    game = start_game(users[0], users[1:], options={"players": 4, "absent_after": 1,
                                                     "absent_policy": "wait"})
    p = PendingDecision.objects.get(game=game).player
    expire(game)
    services.resolve_due_deadlines()
    assert Seat.objects.get(game=game, position=p).absent
    by_player = dict(enumerate(users))
    while PendingDecision.objects.get(game=game).player != p:
        play_service_moves(game, 1, by_player, choose=peaceful)
    legal = client_for(users[p]).get(game_url(game.pk, "legal-moves/")).json()
    sent = client_for(users[p]).post(game_url(game.pk, "moves/"),
                                     {"move": peaceful(legal["moves"]),
                                      "expected_seq": legal["seq"]}, format="json")
    assert sent.status_code == 201
    assert not Seat.objects.get(game=game, position=p).absent
    back = MoveRecord.objects.get(game=game, payload__action="back")
    # The move first, then the table move; the answer shows the game after both.
    assert back.seq == sent.json()["seq"] == legal["seq"] + 2
    assert sent.json()["game"]["players"][p]["absent"] is False


def test_absent_with_the_wait_policy_keeps_timing_out(users):
    game = start_game(users[0], users[1:], options={"players": 4, "absent_after": 1,
                                                     "absent_policy": "wait"})
    p = PendingDecision.objects.get(game=game).player
    expire(game)
    services.resolve_due_deadlines()
    assert Seat.objects.get(game=game, position=p).absent
    assert not PendingDecision.objects.filter(game=game, bot=True).exists()


def test_an_action_resets_the_count_of_timeouts(users):
    game = new_game(users, absent_after=3)
    p = PendingDecision.objects.get(game=game).player
    expire(game)
    services.resolve_due_deadlines()  # p's preparatory turn
    assert Seat.objects.get(game=game, position=p).timeouts_in_row == 1
    by_player = dict(enumerate(users))
    while PendingDecision.objects.get(game=game).player != p:
        play_service_moves(game, 1, by_player, choose=peaceful)
    play_service_moves(game, 1, by_player, choose=peaceful)
    assert Seat.objects.get(game=game, position=p).timeouts_in_row == 0


def test_short_deadlines_get_a_countdown_task_on_commit(users, django_capture_on_commit_callbacks,
                                                        monkeypatch):
    scheduled = []
    monkeypatch.setattr(tasks.resolve_deadline, "apply_async",
                        lambda args, eta, **kw: scheduled.append((args, eta)))
    with django_capture_on_commit_callbacks(execute=True):
        game = new_game(users, move_timeout=120)
    row = PendingDecision.objects.get(game=game)
    assert scheduled == [([str(game.pk), row.pk], row.deadline)]
    scheduled.clear()
    with django_capture_on_commit_callbacks(execute=True):
        new_game(users, move_timeout=86_400)
    assert scheduled == []  # long deadlines are the sweep's


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_resolves_a_short_deadline_by_itself():
    celery_app.conf.task_always_eager = False
    users = [UserFactory() for _ in range(4)]
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        game = new_game(users, move_timeout=60)
        row = PendingDecision.objects.get(game=game)
        # A countdown for a deadline one second away (as if the game had been created 59 s ago).
        PendingDecision.objects.filter(pk=row.pk).update(
            deadline=timezone.now() + dt.timedelta(seconds=1))
        tasks.resolve_deadline.apply_async(args=[str(game.pk), row.pk],
                                           eta=timezone.now() + dt.timedelta(seconds=1))
        # And the sweep, as beat would run it, for a deadline that passed with no worker, and
        # for a day-long deadline (no countdown) that falls due before the next sweep.
        other = new_game(users, move_timeout=86_400)
        expire(other)
        ahead = new_game(users, move_timeout=86_400)
        due = timezone.now() + dt.timedelta(seconds=2)
        PendingDecision.objects.filter(game=ahead).update(deadline=due)
        tasks.sweep.delay()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(MoveRecord.objects.filter(game=g, actor="timeout").exists()
                   for g in (game, other, ahead)):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the worker did not resolve the deadlines")
        # The sweep ran once: the anticipated deadline was played by its task, not early.
        assert MoveRecord.objects.get(game=ahead, actor="timeout").created_at >= due


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_sweep_and_the_countdown_racing_on_one_deadline_make_one_move():
    users = [UserFactory() for _ in range(4)]
    for _round in range(5):
        game = new_game(users)
        row = PendingDecision.objects.get(game=game)
        expire(game)
        race([services.resolve_due_deadlines,
              lambda g=game, r=row: tasks.resolve_deadline(str(g.pk), r.pk),
              lambda g=game, r=row: services.play_timeout(g.pk, r.pk)])
        assert list(MoveRecord.objects.filter(game=game).values_list("seq", "actor")) == [
            (1, "timeout")]


def race(works) -> None:
    """Run the callables in threads released at the same instant (own DB connections)."""
    barrier = threading.Barrier(len(works))

    def run(work):
        try:
            barrier.wait()
            work()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(work,)) for work in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.parametrize("mode", ["sequential", "simultaneous"])
def test_a_window_closes_early_when_everyone_has_answered(users, mode):
    game, by_player, _turn = king_announced(users, mode)
    for _ in range(3):
        rows = list(PendingDecision.objects.filter(game=game, decision="challenge"))
        assert len(rows) == (1 if mode == "sequential" else len(rows))
        services.submit_move(game.pk, {"type": "pass"}, user=by_player[rows[0].player])
    # Nobody claimed: closed at once, long before the deadline; the game went on.
    assert not PendingDecision.objects.filter(game=game, decision="challenge").exists()
    assert not MoveRecord.objects.filter(game=game, actor="timeout").exists()
    game.refresh_from_db()
    assert PendingDecision.objects.filter(game=game).exists()


def test_absent_after_three_timeouts_by_default(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    assert game.options["absent_after"] == 3 and game.options["absent_policy"] == "bot"
    p = PendingDecision.objects.get(game=game).player
    by_player = dict(enumerate(users))
    timeouts = 0
    for _ in range(40):
        if Seat.objects.get(game=game, position=p).absent:
            break
        row = PendingDecision.objects.filter(game=game).first()
        if row.player == p:
            expire(game, p)
            services.resolve_due_deadlines()
            timeouts += 1
        else:
            play_service_moves(game, 1, by_player, choose=peaceful)
    assert timeouts == 3 and Seat.objects.get(game=game, position=p).absent


def test_end_to_end_a_game_where_two_players_never_act_ends_by_itself(
        django_capture_on_commit_callbacks, settings):
    """Four players, the shortest timeouts; two never act, two are bots. Only the clock moves:
    the sweep (as beat runs it) plays the timeouts, the absent seats go to the bot, the game
    ends, and the mails that went out are the right ones."""
    from django.core import mail

    from games.models import Notification

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    humans = [UserFactory() for _ in range(2)]
    outcome = services.create_game(humans[0], "mascarade",
                                   {"players": 4, "move_timeout": 60, "challenge_timeout": 30},
                                   bots=2)
    game_id = outcome.body["id"]
    with django_capture_on_commit_callbacks(execute=True):
        services.join_game(humans[1], game_id)
    clock = timezone.now()
    for _ in range(3000):
        game = Game.objects.get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            break
        clock += dt.timedelta(seconds=61)
        with mock.patch("django.utils.timezone.now", return_value=clock), \
                django_capture_on_commit_callbacks(execute=True):
            tasks.sweep()
    else:
        pytest.fail("the game did not end by itself")
    assert game.status == Game.Status.FINISHED
    actors = set(MoveRecord.objects.filter(game=game).values_list("actor", flat=True))
    assert {"timeout", "bot", "system"} <= actors and "player" not in actors
    assert Seat.objects.filter(game=game, absent=True).count() == 2
    kinds = {(n.user_id, n.kind) for n in Notification.objects.filter(game=game)}
    for user in humans:
        assert {(user.pk, k) for k in ("started", "your_turn", "absent", "ended")} <= kinds
    # Each cause mailed once at most; the ones sent reached the right people.
    keys = list(Notification.objects.values_list("dedupe_key", flat=True))
    assert len(keys) == len(set(keys))
    sent = Notification.objects.filter(game=game, status="sent")
    assert {n.kind for n in sent} >= {"started", "absent", "ended"}
    assert len(mail.outbox) == sent.count()
    assert {m.to[0] for m in mail.outbox} == {u.email for u in humans}


def test_a_burst_of_due_deadlines_is_handed_out_in_chunks(users, monkeypatch):
    handed = []
    monkeypatch.setattr(tasks.resolve_games, "apply_async",
                        lambda args, **kw: handed.append(args[0]))
    monkeypatch.setattr(services.deadlines, "FANOUT_CHUNK", 2)
    games = [new_game(users) for _ in range(5)]
    for game in games:
        expire(game)
    assert services.fan_out_due_deadlines() == 3
    assert [len(chunk) for chunk in handed] == [2, 1]
    # Each chunk plays its games (a chunk run twice, or late, plays nothing more).
    for chunk in handed:
        assert tasks.resolve_games(chunk) == len(chunk)
        assert tasks.resolve_games(chunk) == 0
    assert services.resolve_due_deadlines() == 2
    assert MoveRecord.objects.filter(actor="timeout").count() == 5


def test_deadlines_before_the_next_sweep_get_a_task_at_their_deadline(users, monkeypatch,
                                                                      settings):
    settings.SWEEP_SECONDS = 5
    handed = []
    monkeypatch.setattr(tasks.resolve_games, "apply_async",
                        lambda args, eta, **kw: handed.append((args[0], eta)))
    monkeypatch.setattr(services.deadlines, "FANOUT_CHUNK", 2)
    now = timezone.now()
    at = [now + dt.timedelta(seconds=s) for s in (1, 1, 1.2, 3, 9)]
    games = [new_game(users) for _ in at]
    for game, when in zip(games, at, strict=True):
        PendingDecision.objects.filter(game=game).update(deadline=when)
    due_now, paused = new_game(users), new_game(users)
    # due already: the fan-out's and the sweep's, not anticipated (before ``now``, however long
    # making the games took: ``expire`` would count from the clock, after it)
    PendingDecision.objects.filter(game=due_now).update(deadline=now - PAST)
    PendingDecision.objects.filter(game=paused).update(deadline=at[0])
    services.apply_table_move(paused.pk, "pause")
    assert services.anticipate_deadlines(now) == 4  # not the one 9 s away
    # Chunks of at most FANOUT_CHUNK games, within half a second, each at its last deadline.
    assert [(sorted(ids), eta) for ids, eta in handed] == [
        (sorted([str(games[0].pk), str(games[1].pk)]), at[1]), ([str(games[2].pk)], at[2]),
        ([str(games[3].pk)], at[3])]
    # A chunk run early plays nothing; at its deadline, its games; run again, nothing more.
    ids, eta = handed[0]
    assert services.resolve_games(ids, now) == 0
    assert services.resolve_games(ids, eta) == 2
    assert services.resolve_games(ids, eta) == 0
    assert MoveRecord.objects.filter(actor="timeout").count() == 2


def test_a_game_that_fails_to_time_out_does_not_hold_the_others_back(users, monkeypatch,
                                                                     caplog):
    games = [new_game(users) for _ in range(3)]
    for game in games:
        expire(game)
    broken = games[1]
    real_commit = services.deadlines.commit_many
    tried = []

    def commit_many(tables, **kwargs):
        tried.append([table.game.pk for table in tables])
        if any(table.game.pk == broken.pk for table in tables):
            raise RuntimeError("engine bug")
        return real_commit(tables, **kwargs)

    monkeypatch.setattr(services.deadlines, "commit_many", commit_many)
    assert services.resolve_games([str(g.pk) for g in games]) == 2
    # The batch was tried whole and undone, then game by game.
    assert [sorted(map(str, pks)) for pks in tried] == [
        sorted(str(g.pk) for g in games), [str(games[0].pk)], [str(broken.pk)],
        [str(games[2].pk)]]
    assert "could not resolve the due deadlines of game" in caplog.text
    assert [MoveRecord.objects.filter(game=g).count() for g in games] == [1, 0, 1]
    assert services.due_game_ids() == [broken.pk]


def _ends_at_the_next_move(monkeypatch):
    from games.engine.base import Result

    monkeypatch.setattr(get_game("mascarade"), "result",
                        lambda state: Result(winner_seats=(0,), winner_players=(0,)))


def test_a_timeout_that_ends_the_game_marks_nobody_absent(users, monkeypatch):
    # Its player's first timeout would mark them absent, but the table takes no move once the
    # game is over: the game ends all the same.
    game = new_game(users, absent_after=1)
    _ends_at_the_next_move(monkeypatch)
    expire(game)
    assert services.resolve_due_deadlines() == 1
    game.refresh_from_db()
    assert (game.status, game.seq, game.winners) == (Game.Status.FINISHED, 1, [0])
    assert list(MoveRecord.objects.filter(game=game).values_list("actor", flat=True)) == [
        "timeout"]
    assert not Seat.objects.filter(game=game, absent=True).exists()


def test_an_absent_players_move_that_ends_the_game_is_accepted(users, monkeypatch):
    game = new_game(users)
    row = PendingDecision.objects.get(game=game)
    services.apply_table_move(game.pk, "absent", player=row.player)
    move = get_game("mascarade").timeout_move(state_of(game), row.player)
    _ends_at_the_next_move(monkeypatch)
    outcome = services.submit_move(game.pk, move, user=users[row.player])
    game.refresh_from_db()
    assert outcome.body["seq"] == 2 and game.status == Game.Status.FINISHED
    assert MoveRecord.objects.filter(game=game).count() == 2  # the absence, the move


def test_a_burst_resolved_in_batches_leaves_each_game_as_its_records_say(users, monkeypatch):
    monkeypatch.setattr(services.deadlines, "RESOLVE_BATCH", 4)
    engine = get_game("mascarade")
    games = [new_game(users, absent_after=2, absent_policy="wait",
                      challenge_mode="simultaneous" if k % 2 else "sequential")
             for k in range(6)]
    for _round in range(6):
        for game in games:
            expire(game)
        assert services.resolve_due_deadlines() >= len(games)
    for game in games:
        game.refresh_from_db()
        _engine, replayed = replay_records(game)
        state = state_of(game)
        assert engine.to_json(replayed) == engine.to_json(state)
        records = MoveRecord.objects.filter(game=game)
        assert set(records.values_list("actor", flat=True)) == {"timeout", "system"}
        # Seats that timed out twice in a row were marked absent, once each.
        assert Seat.objects.filter(game=game, absent=True).count() == records.filter(
            actor="system").count() > 0
        if game.status == Game.Status.ACTIVE:
            assert ({(row.player, row.decision) for row in PendingDecision.objects.filter(
                game=game)} == {(p.player, p.decision) for p in engine.pending(state)})


def test_a_burst_of_timeouts_costs_the_same_queries_for_two_games_or_eight(
        users):
    def burst(count):
        games = [new_game(users) for _ in range(count)]
        for game in games:
            expire(game)
        ids = [str(game.pk) for game in games]
        with CaptureQueriesContext(connection) as queries:
            assert services.resolve_games(ids) == count
        return len(queries)

    assert burst(2) == burst(8)
