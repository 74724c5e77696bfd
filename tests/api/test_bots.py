"""Bots play through the same submit path, from a Celery task enqueued on commit."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker
from kombu.exceptions import OperationalError

from games import services, tasks
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
    monkeypatch.setattr(services, "enqueue_bots", lambda gid, seq: handed.append(seq))
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
    assert "could not enqueue the bots" in caplog.text
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
