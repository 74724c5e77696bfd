"""Games played to their end through the write path, for the ratings' tests."""

from __future__ import annotations

import random

from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, MoveRecord

#: The options of a small game of each kind.
OPTIONS = {
    "mascarade": lambda n: {"players": max(4, n)},
    "ere_des_masques": lambda n: {},
    "shadow_house": lambda n: {"players": max(3, n)},
}


def new_game(kind: str, humans: list, bots: int = 0, options: dict | None = None) -> Game:
    """A started game of ``kind``: ``humans`` seated in order, then ``bots`` bots."""
    count = len(humans) + bots
    opts = options if options is not None else OPTIONS[kind](count)
    body = services.create_game(humans[0], kind, opts, bots=0).body
    for user in humans[1:]:
        services.join_game(user, body["id"])
    if bots:
        services.add_bots(humans[0], body["id"], bots)
    return Game.objects.get(pk=body["id"])


def play_to_end(game: Game, rng: random.Random, *, limit: int = 4000,
                timeouts: float = 0.0) -> Game:
    """Random legal moves by the awaited humans (or, with probability ``timeouts``, the
    deadline's default) until the game ends; bots play by themselves (tasks run at once)."""
    engine = get_game(game.kind)
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
        humans = [row for row in loaded.pending if not row.bot]
        if not humans:
            services.play_bots(game.pk, game.seq)
            continue
        row = rng.choice(humans)
        if rng.random() < timeouts:
            services.play_timeout(game.pk, row.pk, force=True)
            continue
        move = rng.choice(engine.legal_moves(loaded.state, row.player))
        services.submit_move(game.pk, move, user=loaded.seat_at(row.player).user,
                             expected_seq=game.seq)
    game.refresh_from_db()
    return game


def moves_of(game: Game) -> list[MoveRecord]:
    return list(MoveRecord.objects.filter(game=game).order_by("seq"))
