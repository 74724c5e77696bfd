"""Table moves: what happens to a game at the table rather than in its rules, for every game.

Pausing and resuming, a seat marked absent and back, a seat's occupant replaced (a user by a bot or
another user), a deadline extended, the game aborted: none of these is a rule of Mascarade (or of
the sibling games), but each changes the game, so each is stored as a move record like any other
and a replay reproduces it. Their payload is ``{"type": "table", "action": <action>, ...}``; this
module checks them against the *table state* (a small JSON dict, folded from the table moves) and
turns each into one public event ``{"type": "table", "action": ..., ...}`` that every viewer sees
(a table event carries nothing secret: who paused, who is absent, who replaced whom, why).

Pure: no Django, no clock (deadlines are the site's business; ``extend`` only records how long).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import IllegalMove, MalformedMove, spell

TABLE = "table"

#: action -> (required fields with their types, optional fields with their types)
ACTIONS: dict[str, tuple[dict[str, type], dict[str, type]]] = {
    "pause": ({}, {"reason": str, "by": str}),
    "resume": ({}, {"reason": str, "by": str}),
    "absent": ({"player": int}, {"reason": str}),
    "back": ({"player": int}, {"reason": str}),
    "replace": ({"player": int, "occupant": str}, {"previous": str, "reason": str}),
    "extend": ({"seconds": int}, {"player": int, "reason": str}),
    "abort": ({"reason": str}, {}),
}

#: The longest extension one table move may grant (30 days).
MAX_EXTENSION = 30 * 86_400
#: The longest reason kept in a record.
MAX_REASON = 500


def is_table_move(move: Any) -> bool:
    """Whether a stored payload is a table move (and not a move of the game's rules)."""
    return isinstance(move, dict) and move.get("type") == TABLE


def initial_table() -> dict[str, Any]:
    """The table state before any table move."""
    return {"paused": False, "paused_by": None, "aborted": None, "absent": [], "occupants": {}}


def occupant(kind: str, ident: Any) -> str:
    """An occupant label: ``occupant("user", 12)`` is ``"user:12"``, ``("bot", "heuristic")``
    ``"bot:heuristic"``."""
    if kind not in ("user", "bot"):
        raise ValueError(kind)
    return f"{kind}:{ident}"


def _check_occupant(value: str) -> None:
    kind, _, ident = value.partition(":")
    if kind == "user" and ident.isdigit():
        return
    if kind == "bot" and ident.isidentifier():
        return
    raise MalformedMove(f"A seat's occupant is written 'user:<id>' or 'bot:<kind>', not "
                        f"{spell(value)}.", code="malformed_occupant")


def _check_shape(move: dict[str, Any], seat_count: int) -> str:
    action = move.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        known = ", ".join(ACTIONS)
        raise MalformedMove(f"Unknown table action {spell(action)}; the table actions are {known}.",
                            code="unknown_table_action")
    required, optional = ACTIONS[action]
    allowed = {"type", "action", *required, *optional}
    extra = [key for key in move if key not in allowed]
    if extra:
        # The first unexpected name in alphabetical order (keys that are not strings after).
        first = min((key for key in extra if isinstance(key, str)), default=extra[0])
        raise MalformedMove(f"The table action {action!r} takes no field {spell(first)}.",
                            code="unexpected_field")
    for name in required:
        if name not in move:
            raise MalformedMove(f"The table action {action!r} needs the field {name!r}.",
                                code="missing_field")
    for name, kind in {**required, **optional}.items():
        if name not in move:
            continue
        value = move[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise MalformedMove(f"The field {name!r} of a table move has the wrong type.",
                                code="wrong_type")
        if name == "player" and not 0 <= value < seat_count:
            raise MalformedMove(f"There is no seat {spell(value)} at a table of {seat_count}.",
                                code="seat_out_of_range")
        if name in ("reason", "by") and len(value) > MAX_REASON:
            raise MalformedMove(f"The {name} is longer than {MAX_REASON} characters.",
                                code="too_long")
        if name in ("occupant", "previous"):
            _check_occupant(value)
    if action == "abort" and not move["reason"].strip():
        raise MalformedMove("Aborting a game needs a reason.", code="missing_reason")
    if action == "extend" and not 0 < move["seconds"] <= MAX_EXTENSION:
        raise MalformedMove(f"A deadline can be extended by 1 to {MAX_EXTENSION} seconds.",
                            code="bad_extension")
    return action


def apply_table(table: dict[str, Any], move: Any, seat_count: int
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Apply one table move: the new table state and its (public) events.

    Raises :class:`MalformedMove` for a payload of the wrong shape and :class:`IllegalMove` for an
    action the table's state does not allow now (resuming a game that is not paused, say).
    """
    if not is_table_move(move):
        raise MalformedMove("A table move has the type 'table'.", code="not_a_table_move")
    action = _check_shape(move, seat_count)
    new = {**table, "absent": list(table["absent"]), "occupants": dict(table["occupants"])}
    if table["aborted"] is not None:
        raise IllegalMove("This game was aborted: nothing more can happen at its table.",
                          code="game_aborted")
    player = move.get("player")
    if action == "pause":
        if table["paused"]:
            raise IllegalMove("The game is already paused.", code="already_paused")
        new["paused"] = True
        # Who paused ("players" by their unanimous request, "moderator"...): who may resume.
        new["paused_by"] = move.get("by", "")
    elif action == "resume":
        if not table["paused"]:
            raise IllegalMove("The game is not paused.", code="not_paused")
        new["paused"] = False
        new["paused_by"] = None
    elif action == "absent":
        if player in table["absent"]:
            raise IllegalMove(f"Seat {player} is already marked absent.", code="already_absent")
        new["absent"] = sorted([*table["absent"], player])
    elif action == "back":
        if player not in table["absent"]:
            raise IllegalMove(f"Seat {player} is not marked absent.", code="not_absent")
        new["absent"] = [p for p in table["absent"] if p != player]
    elif action == "replace":
        if table["occupants"].get(str(player)) == move["occupant"]:
            raise IllegalMove(f"Seat {player} is already held by {spell(move['occupant'])}.",
                              code="same_occupant")
        new["occupants"][str(player)] = move["occupant"]
        # A new occupant starts present.
        new["absent"] = [p for p in table["absent"] if p != player]
    elif action == "abort":
        new["aborted"] = move["reason"].strip()
        new["paused"], new["paused_by"] = False, None
    event = {key: value for key, value in move.items() if key != "type"}
    event = {"type": TABLE, **event}
    return new, [event]


def fold_table(moves: Iterable[Any], seat_count: int) -> dict[str, Any]:
    """The table state after the given stored payloads (non-table payloads are skipped)."""
    table = initial_table()
    for move in moves:
        if is_table_move(move):
            table, _events = apply_table(table, move, seat_count)
    return table


def is_table_event(event: Any) -> bool:
    return isinstance(event, dict) and event.get("type") == TABLE
