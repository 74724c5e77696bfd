"""Projections: the single place where anything of an Ère des Masques state or event is shown.

Rules §4: hands are hidden (their sizes are public); a played card is hidden until it is revealed;
every discard and every zone card is public; the Spy's player sees the opponent's hand at that
moment; the Recruiter's player sees the cards drawn, and those discarded become public. A viewer
(a player index, ``"spectator"`` or ``"moderator"``) sees exactly that: a player their own hand,
their own face-down card, their own Recruiter draw and Spy sightings; a spectator only what both
players see; the moderator everything (under ``"moderator"``), never the generator state.

Every projection is a new JSON-ready object sharing no list or dict with the state or the event.
"""

from __future__ import annotations

from typing import Any

from games.engine.base import MODERATOR, copy_json

from .cards import PLAYERS, counts, in_order, to_win
from .rules import TURN_LIMIT, pending
from .state import State


def _player(viewer: Any) -> int | None:
    """The viewer's player index, or ``None`` for anyone else (spectator, moderator, junk)."""
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < PLAYERS:
        return viewer
    return None


def seen(s: State, player: int) -> list[dict[str, Any]]:
    """``player``'s Spy sightings of the opponent's hand, oldest first."""
    return [{"seq": seq, "hand": list(hand)} for seq, hand in s.seen[player]]


def view(s: State, viewer: Any) -> dict[str, Any]:
    """The state as ``viewer`` may know it (shape documented in the package docstring)."""
    me = _player(viewer)
    moderator = viewer == MODERATOR
    played = None
    if s.played:
        owner = s.seat
        played = {"seat": owner, "revealed": s.revealed,
                  "countered": bool(s.counter), "counter_kind": s.counter or None,
                  "right": (s.played == s.counter) if s.counter else None,
                  "card": s.played if s.revealed or moderator or me == owner else None}
    power = None
    if s.power:
        power = {"seat": s.power_seat, "kind": s.power,
                 "count": len(s.recruited) if s.power == "recruiter" else None}
    out: dict[str, Any] = {
        "phase": "over" if s.phase == "over" else "playing",
        "turn": s.turn,
        "turn_limit": TURN_LIMIT,
        "turn_seat": s.seat,
        "awaiting": [p.to_json() for p in pending(s)],
        "seats": [{"seat": x, "player": x, "hand_size": len(s.hands[x]),
                   "zone": counts(s.zones[x]), "zone_cards": list(s.zones[x]),
                   "to_win": to_win(s.zones[x])} for x in range(PLAYERS)],
        "draw_pile": len(s.pile),
        "discard": list(s.discard),
        "discard_size": len(s.discard),
        "played": played,
        "power": power,
        "recruited": (list(s.recruited)
                      if s.recruited and (moderator or me == s.power_seat) else None),
        "winners": list(s.winners),
        "reason": s.reason or None,
        "kind": s.kind or None,
        "you": None,
    }
    if me is not None:
        out["you"] = {"player": me, "seat": me, "hand": in_order(s.hands[me]),
                      "seen": seen(s, me)}
    if moderator:
        out["moderator"] = {
            "hands": [in_order(hand) for hand in s.hands],
            "pile": list(s.pile),
            "played": s.played or None,
            "recruited": list(s.recruited),
            "seen": [seen(s, p) for p in range(PLAYERS)],
            "idle": s.idle,
            "seq": s.seq,
        }
    return out


#: Event fields only the seat the event is about (and the moderator) sees (§4).
_OWNER_ONLY: dict[str, tuple[str, ...]] = {
    "play": ("card",),      # the face-down card
    "draw": ("cards",),     # the cards drawn
    "spy": ("hand",),       # the opponent's hand the Spy saw
    "recruit": ("cards",),  # the Recruiter's cards
    "keep": ("card",),      # the card kept among them
}


def view_event(event: dict[str, Any], viewer: Any, s: State) -> dict[str, Any] | None:
    """``event`` as ``viewer`` may see it (``s``, the current state, changes nothing here: no
    memory rule fades a public card). A new dict that shares no list with ``event``. Nothing is
    ever dropped whole: the others learn that a card was drawn or played, not which."""
    out = copy_json(event)
    if viewer == MODERATOR:
        return out
    hidden = _OWNER_ONLY.get(event.get("type", ""))
    if hidden is not None and (_player(viewer) is None or viewer != event.get("seat")):
        for key in hidden:
            out.pop(key, None)
    return out
