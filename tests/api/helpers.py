"""Shared steps of the API tests: start games, play moves, replay the stored records."""

from __future__ import annotations

import random

from games.core import services
from games.core.catalog import get_game
from games.engine import replay_records as engine_replay_records
from games.models import Game, MoveRecord

URL = "/api/v1/games/"


def game_url(game_id, suffix: str = "") -> str:
    return f"{URL}{game_id}/{suffix}"


def start_game(creator, others, options=None, **kwargs) -> Game:
    """A started game through the services: ``creator`` at seat 0, ``others`` after."""
    outcome = services.create_game(creator, "mascarade",
                                   options or {"players": 1 + len(others)}, **kwargs)
    game_id = outcome.body["id"]
    for user in others:
        services.join_game(user, game_id)
    return Game.objects.get(pk=game_id)


def awaited_players(game: Game) -> list[int]:
    return sorted(game.pending_decisions.values_list("player", flat=True))


def play_service_moves(game: Game, count: int, users_by_player: dict, choose=None) -> None:
    """Play ``count`` moves through the submit service, as the awaited players' users."""
    rng = random.Random(7)
    engine = get_game(game.kind)
    from games.core import selectors

    for _ in range(count):
        game.refresh_from_db()
        loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
        player = awaited_players(game)[0]
        moves = engine.legal_moves(loaded.state, player)
        move = choose(moves) if choose else rng.choice(moves)
        services.submit_move(game.pk, move, user=users_by_player[player],
                             expected_seq=game.seq)
    game.refresh_from_db()


def peaceful(moves: list[dict]) -> dict:
    """A move that never changes coins: look, or an exchange without swap; pass challenges."""
    for move in moves:
        if move["type"] in ("look", "pass"):
            return move
    return next(m for m in moves if m["type"] == "exchange" and not m["swap"])


def replay_records(game: Game):
    """The engine state rebuilt from the stored move records alone."""
    engine, state, _table = replay_with_table(game)
    return engine, state


def replay_with_table(game: Game, upto: int | None = None):
    """The engine and table states rebuilt from the stored move records alone (rules moves and
    table moves: pauses, replacements...), up to the move ``upto`` (default: every move)."""
    records = MoveRecord.objects.filter(game=game).order_by("seq")
    if upto is not None:
        records = records.filter(seq__lte=upto)
    records = records.values_list("seq", "seat__position", "payload")
    seqs = [seq for seq, _p, _m in records]
    assert seqs == list(range(1, len(seqs) + 1)), "seqs must be contiguous from 1"
    engine = get_game(game.kind)
    state, table, _events = engine_replay_records(
        engine, game.options, game.seed, [(player, move) for _seq, player, move in records])
    return engine, state, table


def mail_text_beyond_its_readers_view(message, game: Game) -> str:
    """A mail's subject and text without what comes from its reader's own view: the table as
    text, the history since their last move and their moves as commands, as
    ``games.mail.outgoing`` lists them now (each checked to be
    in the mail when the mail lists moves), and without links. What is left must name no card;
    what the removed lines say comes from the reader's projection (``tests/site/
    test_commands.py`` checks ``status_lines`` against the truth)."""
    import re

    from django.utils import translation

    from accounts.models import User
    from games.core import catalog
    from games.mail import commands
    from games.mail.outgoing import names_and_board, since_lines

    user = User.objects.get(email=message.to[0])
    game = Game.objects.get(pk=game.pk)
    kit = catalog.get_kit(game.kind)
    text = message.body
    if message.reply_to:
        with translation.override(user.language):
            names, board, payload = names_and_board(game, user)
            own = [str(line) for line in kit.status_lines(board) if line] if board else []
            own = [line for line in own if not line.startswith("Waiting for: ")]
            # what happened since the reader's last move: history lines, from their projection
            own += since_lines(kit, game, user, board) if board else []
            legal = (payload["you"] or {}).get("legal_moves", [])
            own += [command for _n, command, _move in
                    commands.command_list(kit, legal, names, user.language)]
        for line in sorted(own, key=len, reverse=True):
            assert line in text, (line, text)
            text = text.replace(line, " ")
    return re.sub(r"https?://\S+", " ", message.subject + " " + text)


def json_schema(node, components):
    """An OpenAPI 3.0 schema as plain JSON Schema: references inlined, ``nullable`` spelt."""
    if isinstance(node, list):
        return [json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return json_schema(components[node["$ref"].rsplit("/", 1)[1]], components)
    out = {key: json_schema(value, components) for key, value in node.items()
           if key != "nullable"}
    if node.get("nullable"):
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [out, {"type": "null"}]}
    return out
