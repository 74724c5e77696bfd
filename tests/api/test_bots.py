"""Bots play through the same submit path, from a Celery task enqueued on commit."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker
from kombu.exceptions import OperationalError

from games import tasks
from games.core import services
from games.models import Game, MoveRecord, PendingDecision
from mascarade_site.celery import app as celery_app

from .factories import UserFactory, client_for
from .helpers import URL, game_url


def _bot_game(client, kind="heuristic", players=4, **options):
    answer = client.post(URL, {"game": "mascarade", "options": {"players": players, **options},
                               "bots": players - 1, "bot_kind": kind}, format="json")
    assert answer.status_code == 201, answer.json()
    return Game.objects.get(pk=answer.json()["id"])


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["heuristic", "random"])
def test_bots_answer_until_the_human_is_awaited(kind, django_capture_on_commit_callbacks):
    human = UserFactory()
    client = client_for(human)
    with django_capture_on_commit_callbacks(execute=True):
        game = _bot_game(client, kind)
    for _ in range(40):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        assert list(game.pending_decisions.values_list("player", flat=True)) == [0]
        legal = client.get(game_url(game.pk, "legal-moves/")).json()
        with django_capture_on_commit_callbacks(execute=True):
            sent = client.post(game_url(game.pk, "moves/"),
                               {"move": legal["moves"][0], "expected_seq": legal["seq"]},
                               format="json")
        assert sent.status_code == 201
    records = MoveRecord.objects.filter(game=game)
    assert records.filter(actor=MoveRecord.Actor.BOT).exists()
    assert set(records.filter(actor=MoveRecord.Actor.BOT)
               .values_list("seat__position", flat=True)) <= {1, 2, 3}
    assert not records.filter(actor=MoveRecord.Actor.PLAYER).exclude(seat__position=0).exists()
    assert list(records.values_list("seq", flat=True)) == list(range(1, game.seq + 1))


@pytest.mark.django_db
def test_the_bot_task_is_idempotent_and_safe_to_run_late(django_capture_on_commit_callbacks):
    client = client_for(UserFactory(is_staff=True))
    # A bot's seat plays first; the on-commit work is not run here, so the bots wait.
    game = _bot_game(client, "random", first_seat=1)
    assert game.pending_decisions.get().bot
    played = tasks.play_bots(str(game.pk), 0)
    assert played >= 1
    game.refresh_from_db()
    after = game.seq
    # Twice, or late (scheduled for a seq the game has left): nothing more happens.
    assert tasks.play_bots(str(game.pk), 0) == 0
    assert tasks.play_bots(str(game.pk), after) == 0
    game.refresh_from_db()
    assert game.seq == after == played
    assert game.pending_decisions.get().player == 0


@pytest.mark.django_db
def test_a_full_bot_batch_hands_over_to_a_new_task(monkeypatch):
    client = client_for(UserFactory(is_staff=True))
    game = _bot_game(client, "random", players=5, first_seat=1)
    handed = []
    monkeypatch.setattr(services.bots.dispatch, "play_bots",
                        lambda gid, seq: handed.append(seq))
    # Seats 1 to 4 are bots: after one move (the batch's limit) a bot is still awaited.
    assert services.play_bots(str(game.pk), 0, limit=1) == 1
    game.refresh_from_db()
    assert game.seq == 1 and game.pending_decisions.get().bot
    assert handed == [1]
    assert services.play_bots(str(game.pk), 1, limit=2) == 2
    assert handed == [1, 3]


@pytest.mark.django_db
def test_a_broker_outage_never_fails_a_move_and_leaves_the_bot_decision_findable(
        monkeypatch, django_capture_on_commit_callbacks, caplog):
    def down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.play_bots, "apply_async", down)
    client = client_for(UserFactory(is_staff=True))
    with django_capture_on_commit_callbacks(execute=True):
        game = _bot_game(client, "random", first_seat=0)
    for _ in range(12):
        game.refresh_from_db()
        if game.pending_decisions.filter(bot=True).exists():
            break
        legal = client.get(game_url(game.pk, "legal-moves/")).json()
        with django_capture_on_commit_callbacks(execute=True):
            sent = client.post(game_url(game.pk, "moves/"), {"move": legal["moves"][0]},
                               format="json")
        assert sent.status_code == 201
    stuck = PendingDecision.objects.filter(bot=True, game=game)
    assert stuck.exists()
    assert "could not send the task games.play_bots" in caplog.text
    # What a periodic sweep does: play them from the database.
    assert tasks.play_bots(str(game.pk), stuck.first().game.seq) >= 1


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_bots_play_through_a_real_worker():
    celery_app.conf.task_always_eager = False
    human = UserFactory()
    client = client_for(human)
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        game = _bot_game(client, "heuristic")
        for _ in range(6):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                game.refresh_from_db()
                if game.status != Game.Status.ACTIVE or list(
                        game.pending_decisions.values_list("player", flat=True)) == [0]:
                    break
                time.sleep(0.05)
            else:
                pytest.fail(f"the bots did not play: awaited {list(game.pending_decisions.all())}")
            if game.status != Game.Status.ACTIVE:
                break
            legal = client.get(game_url(game.pk, "legal-moves/")).json()
            sent = client.post(game_url(game.pk, "moves/"),
                               {"move": legal["moves"][0], "expected_seq": legal["seq"]},
                               format="json")
            assert sent.status_code == 201
    assert MoveRecord.objects.filter(game=game, actor=MoveRecord.Actor.BOT).exists()


def _staff_game(human, **options) -> Game:
    """A game of four: ``human`` (staff, so that ``first_seat`` is allowed) at seat 0, bots at
    seats 1 to 3."""
    outcome = services.create_game(human, "mascarade", {"players": 4, "first_seat": 0,
                                                        **options}, bots=3)
    return Game.objects.get(pk=outcome.body["id"])


def _play_as_bots(game, until) -> None:
    """Play the awaited decisions as bots (their first legal move, or ``until``'s choice)
    until ``until(game)`` says to stop."""
    from games.core import selectors
    from games.core.catalog import get_game

    for _ in range(50):
        game.refresh_from_db()
        if until(game):
            return
        row = game.pending_decisions.order_by("seat").first()
        state = selectors.load_state(selectors.find_game(game.pk))
        moves = get_game(game.kind).legal_moves(state, row.player)
        announce = [m for m in moves if m["type"] == "announce"]
        move = announce[0] if announce and row.player == 1 else moves[0]
        services.submit_move(game.pk, move, player=row.player, actor=MoveRecord.Actor.BOT)
    raise AssertionError("never reached")


def _bot_tasks(monkeypatch) -> list:
    sent = []
    monkeypatch.setattr(tasks.play_bots, "apply_async",
                        lambda *args, **kwargs: sent.append(kwargs.get("args") or args))
    return sent


@pytest.mark.django_db
def test_a_timeout_that_marks_a_seat_absent_queues_the_bots_once(
        monkeypatch, django_capture_on_commit_callbacks):
    """Defect: the table move marking the seat absent queued the bots, then the move path did
    again."""
    from django.utils import timezone

    human = UserFactory(is_staff=True)
    game = _staff_game(human, absent_after=1)
    sent = _bot_tasks(monkeypatch)
    row = game.pending_decisions.get()
    assert row.player == 0 and not row.bot
    PendingDecision.objects.filter(pk=row.pk).update(deadline=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        tasks.resolve_deadline(str(game.pk), row.pk)
    game.refresh_from_db()
    assert game.seats.get(position=0).absent
    assert game.pending_decisions.get().player == 1  # a bot's turn now
    assert len(sent) == 1


@pytest.mark.django_db
def test_an_absent_players_own_move_queues_the_bots_once(
        monkeypatch, django_capture_on_commit_callbacks):
    """Defect: an absent player's move appended the "back" table move, which queued the bots,
    then the move path did again."""
    from django.utils import timezone

    human = UserFactory(is_staff=True)
    game = _staff_game(human, absent_after=1, challenge_mode="simultaneous")
    sent = _bot_tasks(monkeypatch)
    row = game.pending_decisions.get()
    PendingDecision.objects.filter(pk=row.pk).update(deadline=timezone.now())
    tasks.resolve_deadline(str(game.pk), row.pk)  # seat 0 times out: marked absent
    # Up to the challenge window of seat 1's announcement, where everyone answers at once.
    _play_as_bots(game, lambda g: g.pending_decisions.count() == 3)
    assert game.pending_decisions.get(player=0).bot  # the absent player's, for a bot
    sent.clear()
    client = client_for(human)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(game_url(game.pk, "moves/"), {"move": {"type": "pass"}},
                             format="json")
    assert answer.status_code == 201, answer.json()
    assert not game.seats.get(position=0).absent
    assert game.pending_decisions.filter(bot=True).count() == 2
    assert len(sent) == 1


@pytest.mark.django_db
def test_the_sweep_plays_a_game_with_several_stale_bot_decisions_once(monkeypatch):
    """Defect: ``.distinct()`` over the model's default ordering selected the ordering columns
    too, so a game with several pending bot decisions was played once per decision."""
    import datetime as dt

    from django.utils import timezone

    human = UserFactory(is_staff=True)
    game = _staff_game(human, challenge_mode="simultaneous")
    _bot_tasks(monkeypatch)
    # Seat 0 (the human) plays its preparatory turn, the bots theirs; then the human announces:
    # the three bots answer at once.
    _play_as_bots(game, lambda g: g.seq == 4)
    legal = client_for(human).get(game_url(game.pk, "legal-moves/")).json()
    announce = next(m for m in legal["moves"] if m["type"] == "announce")
    assert client_for(human).post(game_url(game.pk, "moves/"), {"move": announce},
                                  format="json").status_code == 201
    assert game.pending_decisions.filter(bot=True).count() == 3
    game.pending_decisions.update(created_at=timezone.now() - dt.timedelta(minutes=5))
    played = []
    monkeypatch.setattr(services.bots, "play_bots",
                        lambda game_id, seq, **kwargs: played.append((game_id, seq)) or 0)
    services.play_stale_bots()
    game.refresh_from_db()
    assert played == [(game.pk, game.seq)]
