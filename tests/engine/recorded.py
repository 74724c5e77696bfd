"""Games recorded by an earlier engine, replayed by today's: the helpers of each game's
``test_recorded_games.py`` (no test here).

A stored game is its options, seed and moves; the site replays them (``games.core.selectors
.state.load_state``) from its snapshot, a cache, or from the seed. A rules change that makes a
seed or a list of moves give something else comes as a new revision of the game's rules
(``games.engine.options.revision``): a game recorded before plays the revision its options name,
revision 1 when they name none, and replays exactly as it was played. A fixture file holds such
games as the site stored them::

    {"recorded_by": "...", "games": [{"why", "options", "seed", "moves": [[player, move]],
      "snapshot": {"seq", "state"}, "final": state as to_json, "events_sha256"}]}
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from games.engine import EngineError, Game, replay
from games.engine.options import FIRST_REVISION


def recorded(path: Path) -> list[dict[str, Any]]:
    """The recorded games of a fixture file."""
    return json.loads(path.read_text(encoding="utf-8"))["games"]


def digest(events: list[list[dict[str, Any]]]) -> str:
    """The SHA-256 of a replay's events, as compact JSON with sorted keys."""
    text = json.dumps(events, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def moves_of(entry: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(player, move) for player, move in entry["moves"]]


def as_recorded(game: Game, state: Any) -> dict[str, Any]:
    """A state's ``to_json`` without what the engine writes since it was recorded: the revision
    (1, the one a game recorded before revisions plays)."""
    data = game.to_json(state)
    assert data.pop("revision") == FIRST_REVISION
    return data


def check_replays_as_recorded(game: Game, entry: dict[str, Any]) -> Any:
    """From its stored options and seed, the game's moves give the recorded states and events;
    from its stored snapshot, the moves after it give the same end. Returns the final state."""
    moves = moves_of(entry)
    final, events = replay(game, entry["options"], entry["seed"], moves)
    assert as_recorded(game, final) == entry["final"], f"{entry['why']}: another end"
    assert digest(events) == entry["events_sha256"], f"{entry['why']}: other events"
    snapshot = entry["snapshot"]
    state = game.from_json(snapshot["state"])
    for player, move in moves[snapshot["seq"]:]:
        state, _events = game.apply(state, player, move)
    assert game.to_json(state) == game.to_json(final), f"{entry['why']}: the snapshot differs"
    return final


def plays_otherwise_under(game: Game, entry: dict[str, Any], options: dict[str, Any]) -> bool:
    """Whether the recorded seed and moves give something else under ``options`` (the latest
    revision): a move refused, or another end or other events."""
    try:
        final, events = replay(game, options, entry["seed"], moves_of(entry))
    except EngineError:
        return True
    data = game.to_json(final)
    data.pop("revision", None)
    return data != entry["final"] or digest(events) != entry["events_sha256"]
