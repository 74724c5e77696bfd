"""Projections: the single place where anything of a Shadow House Mascarade state or event is
shown.

Rules §5: hands are hidden (their sizes are public); every card played, its target and its
public result (the Detective's answer, Toby's card, an Accomplice's discard) are public; a card
given, taken, drawn or dealt is seen by the two players it passes between (the drawer alone for
a draw, each player their own deal); the Little one's player alone learns the Culprit's seat; the
Witness's player alone sees the hand they look at; the Panic's player alone sees the pool, each
contributor the card they get back. A viewer (a player index, ``"spectator"`` or
``"moderator"``) sees exactly that: a player their own hand, their own simultaneous choice and
what their own cards showed them; a spectator only what every player sees; the moderator
everything (under ``"moderator"``), never the generator state.

Every projection is a new JSON-ready object sharing no list or dict with the state or the event.
"""

from __future__ import annotations

from typing import Any

from games.engine.base import MODERATOR, copy_json

from .cards import GOAL, in_order
from .rules import pending
from .state import State


def _player(viewer: Any, n: int) -> int | None:
    """The viewer's player index, or ``None`` for anyone else (spectator, moderator, junk)."""
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < n:
        return viewer
    return None


def _culprit_seen(s: State, seat: int) -> dict[str, int] | None:
    seen = s.culprit_seen[seat]
    return None if seen is None else {"seat": seen.seat, "turn": seen.seq}


def _witnessed(s: State) -> dict[str, Any] | None:
    seen = s.witnessed
    return None if seen is None else {"seat": seen.target, "hand": list(seen.hand),
                                      "turn": seen.seq}


def view(s: State, viewer: Any) -> dict[str, Any]:
    """The state as ``viewer`` may know it (shape documented in the package docstring)."""
    me = _player(viewer, s.n)
    moderator = viewer == MODERATOR
    over = s.decision == "over"
    effect = None
    if s.effect:
        effect = {"card": s.effect, "seat": s.seat,
                  "target": s.effect_target if s.effect_target >= 0 else None}
    out: dict[str, Any] = {
        "phase": "over" if over else "playing",
        "round": s.round,
        "flash": s.flash,
        "goal": GOAL,
        "turn": s.seq,
        "turn_seat": None if over or s.effect else s.seat,
        "awaiting": [p.to_json() for p in pending(s)],
        "seats": [{"seat": t, "player": t, "hand_size": len(s.hands[t]), "points": s.points[t],
                   "played": list(s.played[t]), "accomplice": "accomplice" in s.played[t],
                   "handcuffs": s.handcuffs == t, "protected": list(s.protected[t]),
                   "chosen": bool(s.choices[t])} for t in range(s.n)],
        "pile_size": len(s.pile),
        "discards": list(s.discards),
        "effect": effect,
        "rounds": copy_json(s.rounds),
        "winners": list(s.winners),
        "reason": s.reason or None,
        "you": None,
    }
    if me is not None:
        out["you"] = {
            "player": me, "seat": me, "hand": in_order(s.hands[me]),
            "choice": s.choices[me] or None,
            "culprit_seen": _culprit_seen(s, me),
            "witnessed": _witnessed(s) if s.effect == "witness" and s.seat == me else None,
            # [SH-9] The pool is whole only as the Panic resolves: no state shows it.
            "pool": None,
        }
    if moderator:
        out["moderator"] = {
            "hands": [in_order(hand) for hand in s.hands],
            "pile": list(s.pile),
            "choices": [c or None for c in s.choices],
            "culprit_seen": [_culprit_seen(s, t) for t in range(s.n)],
            "witnessed": _witnessed(s),
            "deals_left": len(s.deals),
            "seq": s.seq,
        }
    return out


#: Event fields only some players see (and the moderator): the field, and the event's fields
#: naming the seats besides the event's own seat that may see it (§5).
PRIVATE: dict[str, tuple[str, tuple[str, ...]]] = {
    "deal": ("cards", ()),          # each player their own hand
    "draw": ("card", ()),           # the drawer (public when null: the pile was empty)
    "little_one": ("culprit", ()),  # the Little one's player
    "give": ("card", ("to",)),      # giver and receiver
    "rumour": ("card", ("from",)),  # taker and victim
    "panic_pool": ("cards", ()),    # the Panic's player
    "panic_deal": ("card", ()),     # the contributor who gets it
    "witness": ("hand", ()),        # the Witness's player
}


def view_event(event: dict[str, Any], viewer: Any, s: State) -> dict[str, Any] | None:
    """``event`` as ``viewer`` may see it (``s``, the current state, only gives the table's size:
    nothing fades). A new dict that shares no list with ``event``. Nothing is ever dropped whole:
    the others learn that a card was dealt, drawn, given or taken, not which."""
    out = copy_json(event)
    if viewer == MODERATOR:
        return out
    private = PRIVATE.get(event.get("type", ""))
    if private is None:
        return out
    field, others = private
    if event.get("type") == "draw" and event.get("card") is None:
        return out  # the pile was empty: everyone sees that nothing was drawn
    me = _player(viewer, s.n)
    allowed = {event.get("seat"), *(event.get(name) for name in others)}
    if me is None or me not in allowed:
        out.pop(field, None)
    return out
