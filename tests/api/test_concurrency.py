"""Concurrent submissions on the real PostgreSQL: the game row lock serialises them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from games.models import MoveRecord

from .factories import UserFactory, client_for
from .helpers import game_url, start_game

THREADS = 20


def _send_together(requests):
    """Run the callables at once (a barrier releases them together); their results, in order."""
    barrier = threading.Barrier(len(requests))

    def run(request):
        try:
            barrier.wait(timeout=30)
            return request()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(run, requests))


def _awaited_client(game):
    player = game.pending_decisions.get().player
    user = game.seats.get(position=player).user
    return client_for(user)


def _first_move(game):
    return {"type": "exchange", "target": (game.pending_decisions.get().seat + 1) % 4,
            "swap": True}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_same_move_same_expected_seq_from_twenty_threads_is_applied_once():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    client = _awaited_client(game)
    body = {"move": _first_move(game), "expected_seq": 0}
    answers = _send_together([
        lambda: client.post(game_url(game.pk, "moves/"), body, format="json")
        for _ in range(THREADS)])
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] + [409] * (THREADS - 1)
    for answer in answers:
        if answer.status_code == 409:
            assert answer.json()["code"] == "stale_seq"
            assert answer.json()["seq"] == 1
    seqs = list(MoveRecord.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == [1]
    game.refresh_from_db()
    assert game.seq == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_moves_from_many_threads_without_expected_seq_keep_seqs_contiguous():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    clients = [client_for(u) for u in users]

    def play_some(client):
        def run():
            codes = []
            for _ in range(6):
                legal = client.get(game_url(game.pk, "legal-moves/")).json()
                if not legal["moves"]:
                    codes.append(None)
                    continue
                codes.append(client.post(game_url(game.pk, "moves/"),
                                         {"move": legal["moves"][0]}, format="json").status_code)
            return codes
        return run

    results = _send_together([play_some(clients[i % 4]) for i in range(8)])
    codes = [c for result in results for c in result if c is not None]
    assert set(codes) <= {201, 403}
    seqs = list(MoveRecord.objects.filter(game=game).order_by("seq")
                .values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(seqs) == codes.count(201)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_same_idempotency_key_from_twenty_threads_stores_one_move_and_answers_alike():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    client = _awaited_client(game)
    body = {"move": _first_move(game)}
    answers = _send_together([
        lambda: client.post(game_url(game.pk, "moves/"), body, format="json",
                            HTTP_IDEMPOTENCY_KEY="same-key-1")
        for _ in range(THREADS)])
    assert {a.status_code for a in answers} == {201}
    first = answers[0].json()
    assert all(a.json() == first for a in answers)
    assert MoveRecord.objects.filter(game=game).count() == 1


def _waiting_for_a_lock(timeout: float = 10.0) -> bool:
    """Whether another backend waits for a row lock (polled up to ``timeout`` seconds)."""
    import time

    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                           "AND pid <> pg_backend_pid()")
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_table_opened_while_another_write_holds_the_lock_reads_what_it_wrote():
    """A table opened while another transaction holds the game's lock, moves and commits sees
    the game, its seats and its pending decisions as that move left them (read under the lock,
    once it is granted)."""
    from django.db import transaction

    from games.core.services import write as core

    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    before = game.pending_decisions.get()
    locked, release = threading.Event(), threading.Event()
    seen = {}

    def first_writer():
        try:
            with transaction.atomic():
                table = core.open_table(game.pk)
                table.play(before.player, _first_move(game), actor=MoveRecord.Actor.PLAYER)
                core.commit(table)
                locked.set()
                assert release.wait(timeout=30)
        finally:
            connection.close()

    def second_writer():
        try:
            with transaction.atomic():
                table = core.open_table(game.pk)
                seen["seq"] = table.game.seq
                seen["pending"] = [(row.player, row.seq) for row in table.pending]
                seen["seats"] = [seat.pk for seat in table.seats]
        finally:
            connection.close()

    first = threading.Thread(target=first_writer)
    first.start()
    assert locked.wait(timeout=30)
    second = threading.Thread(target=second_writer)
    second.start()
    try:
        assert _waiting_for_a_lock(), "the second table did not wait for the first one's lock"
    finally:
        release.set()
        first.join(timeout=30)
        second.join(timeout=30)
    after = list(game.pending_decisions.order_by("player").values_list("player", "seq"))
    assert seen["seq"] == 1
    assert after and after != [(before.player, before.seq)]
    assert sorted(seen["pending"]) == after
    assert seen["seats"] == list(game.seats.order_by("position").values_list("pk", flat=True))
