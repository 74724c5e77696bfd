"""Reads and move submissions cost a number of queries that does not grow with the game."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.core import services
from games.core.catalog import get_game
from games.core.services import write as core
from games.models import Game, MoveRecord

from .factories import UserFactory, client_for
from .helpers import game_url, peaceful, play_service_moves, start_game


def _costs(game, users_by_player) -> dict[str, int]:
    game.refresh_from_db()
    player = game.pending_decisions.get().player
    mover = client_for(users_by_player[player])
    spectator = client_for()
    costs = {}
    requests = {
        "game": lambda: mover.get(game_url(game.pk)),
        "game as spectator": lambda: spectator.get(game_url(game.pk)),
        "legal moves": lambda: mover.get(game_url(game.pk, "legal-moves/")),
        "events of the last move": lambda: mover.get(game_url(game.pk, "events/"),
                                                     {"after": game.seq - 1}),
    }
    for name, request in requests.items():
        with CaptureQueriesContext(connection) as queries:
            assert request().status_code == 200
        costs[name] = len(queries)
    move = peaceful(mover.get(game_url(game.pk, "legal-moves/")).json()["moves"])
    with CaptureQueriesContext(connection) as queries:
        answer = mover.post(game_url(game.pk, "moves/"),
                            {"move": move, "expected_seq": game.seq}, format="json",
                            HTTP_IDEMPOTENCY_KEY=f"q-{game.seq}")
        assert answer.status_code == 201
    costs["move"] = len(queries)
    return costs


@pytest.mark.django_db
def test_query_counts_are_the_same_at_move_5_and_at_move_300():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    by_player = dict(enumerate(users))
    play_service_moves(game, 5, by_player, choose=peaceful)
    early = _costs(game, by_player)
    game.refresh_from_db()
    play_service_moves(game, 300 - game.seq, by_player, choose=peaceful)
    assert game.seq == 300
    late = _costs(game, by_player)
    assert late == early
    assert early["move"] <= 16 and early["game"] <= 6


# --------------------------------------------------------------------------------------------
# The statements of a move, by kind (docs/performance.md gives their count per move).

#: ``POST /moves/``: the token; the transaction (a SAVEPOINT and its RELEASE here, inside the
#: test's own transaction; BEGIN and COMMIT in a request); the game locked, then its seats and
#: its pending decisions read under the lock; the move's writes in one statement (the record,
#: the snapshot, the game's row, the pending decisions' difference:
#: ``games/core/services/statements.py``); the outbox's "your turn" message of the player now
#: awaited (its subscriber's).
MOVE_STATEMENTS = ["SELECT", "SAVEPOINT", "SELECT", "SELECT", "SELECT", "WITH", "INSERT",
                   "RELEASE"]
#: ``GET /games/{id}/``: the token; the game (with its snapshot); its seats; its pending
#: decisions.
READ_STATEMENTS = ["SELECT", "SELECT", "SELECT", "SELECT"]


def _played_in_memory(game: Game, moves: int, choose) -> None:
    """``moves`` moves of the awaited players, applied on the locked game in memory and written
    by one commit, as ``bench/api.py`` makes its long games (a few seconds for 1,000)."""
    engine = get_game(game.kind)
    with transaction.atomic():
        table = core.open_table(game.pk)
        for _ in range(moves):
            player = engine.pending(table.state)[0].player
            table.play(player, choose(engine.legal_moves(table.state, player)),
                       actor=MoveRecord.Actor.BOT)
        core.commit(table)
    game.refresh_from_db()


def _statements(game: Game, clients: dict, choose) -> tuple[list[str], list[str], list[str]]:
    """The statements (their first words) of the awaited player's read of the game and of
    their move, chosen by ``choose`` among the ``you.legal_moves`` of that read; and the move's
    statements whole."""
    game.refresh_from_db()
    client = clients[game.pending_decisions.order_by("deadline", "player").first().player]
    with CaptureQueriesContext(connection) as read:
        answer = client.get(game_url(game.pk))
    assert answer.status_code == 200
    body = answer.json()
    with CaptureQueriesContext(connection) as move:
        moved = client.post(game_url(game.pk, "moves/"),
                            {"move": choose(body["you"]["legal_moves"]),
                             "expected_seq": body["seq"]}, format="json")
    assert moved.status_code == 201, moved.content
    return ([q["sql"].split(None, 1)[0] for q in read.captured_queries],
            [q["sql"].split(None, 1)[0] for q in move.captured_queries],
            [q["sql"] for q in move.captured_queries])


def _message_written_with_the_move(move_sql: list[str]) -> bool:
    """The move's transaction inserts an outbox message."""
    return any(sql.startswith('INSERT INTO "games_notification"') for sql in move_sql)


def _exchange(moves: list[dict]) -> dict:
    return next(m for m in moves if m["type"] == "exchange" and not m["swap"])


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("choose", [peaceful, _exchange], ids=["looks", "exchanges"])
def test_a_move_is_the_same_statements_at_move_5_and_at_move_1000(choose):
    """A Mascarade move (a look or an exchange without swap, as ``bench/api.py`` plays its long
    games; the turn passes to the next player) sends the same statements at the 5th move as at
    the 1,000th, and so does the read of the game."""
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    clients = {n: client_for(user) for n, user in enumerate(users)}
    _played_in_memory(game, 4, choose)
    *early, early_sql = _statements(game, clients, choose)
    game.refresh_from_db()
    assert game.seq == 5
    _played_in_memory(game, 999 - game.seq, choose)
    *late, late_sql = _statements(game, clients, choose)
    game.refresh_from_db()
    assert game.seq == 1000
    assert early == late == [READ_STATEMENTS, MOVE_STATEMENTS]
    # ("your turn" for the next player, a human, in the move's transaction)
    assert _message_written_with_the_move(early_sql)
    assert _message_written_with_the_move(late_sql)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("kind,options,players", [("ere_des_masques", {}, 2),
                                                  ("shadow_house", {"players": 4}, 4)])
def test_the_other_games_moves_are_the_same_statements(kind, options, players):
    """The first ten moves of L'Ère des Masques and of Shadow House Mascarade: the same
    statements as Mascarade's, but for what a move's effect calls for: no message when no new
    decision awaits a human (Shadow House: one of a simultaneous choice made, the others still
    awaited), and where a player's decision is replaced by another of theirs (Shadow House:
    their next card to give or play), that row's DELETE first, on its own (the new row would
    collide with it in one statement)."""
    users = [UserFactory() for _ in range(players)]
    game_id = services.create_game(users[0], kind, options).body["id"]
    for user in users[1:]:
        services.join_game(user, game_id)
    game = Game.objects.get(pk=game_id)
    clients = {n: client_for(user) for n, user in enumerate(users)}
    replaced = [*MOVE_STATEMENTS[:5], "DELETE", *MOVE_STATEMENTS[5:]]
    silent = [statement for n, statement in enumerate(MOVE_STATEMENTS) if n != 6]
    seen = []
    for _ in range(10):
        read, move, move_sql = _statements(game, clients, lambda moves: moves[0])
        assert read == READ_STATEMENTS
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            # (a deal whose game ends within its first moves: its end rates it and counts it
            # in its players' tallies, the statements of a game's end, not of a move)
            break
        assert move in (MOVE_STATEMENTS, replaced, silent,
                        [*replaced[:7], *replaced[8:]]), " ".join(move)
        seen.append((move == MOVE_STATEMENTS, _message_written_with_the_move(move_sql)))
    assert (True, True) in seen
