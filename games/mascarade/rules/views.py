"""Projections: the single place where anything of a Mascarade state or event is shown.

Rules §9: a viewer (a player index, ``"spectator"`` or ``"moderator"``) sees exactly what they would
know at a real table. No projection carries a card its viewer has not seen, the generator state, or
another player's secret decision. Only the moderator projection (admin only) shows everything, under
the ``"moderator"`` key, never the generator state.
"""

from __future__ import annotations

from typing import Any

from games.engine.base import MODERATOR, copy_json

from .rules import awaited
from .state import State


def _player(s: State, viewer: Any) -> int | None:
    """The viewer's player index, or ``None`` for anyone else (spectator, moderator, junk)."""
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < s.n:
        return viewer
    return None


def _window_open(s: State, turn: int) -> bool:
    """Is the simultaneous challenge window of ``turn`` still open?"""
    return s.simultaneous and s.phase == "challenge" and s.turn == turn


def knowledge(s: State, player: int) -> list[dict[str, Any]]:
    """What ``player`` saw privately, oldest first: looks, Spy looks, others' Princess reveals."""
    entries = list(s.know[player])
    entries.extend([seq, slot, mask, "princess"] for seq, slot, mask, blind in s.shown
                   if blind != player)
    entries.sort(key=lambda e: e[0])
    return [{"seq": seq, "about": s.slot_name(slot), "mask": mask, "how": how}
            for seq, slot, mask, how in entries]


def view(s: State, viewer: Any) -> dict[str, Any]:
    """The state as ``viewer`` may know it (shape documented in the package docstring)."""
    me = _player(s, viewer)
    moderator = viewer == MODERATOR
    announcement = None
    if s.ann_seat >= 0:
        claims, passes = list(s.claims), list(s.passes)
        if _window_open(s, s.turn) and not moderator:
            mine = s.seat_of[me] if me is not None else -1
            claims = [x for x in claims if x == mine]
            passes = [x for x in passes if x == mine]
        announcement = {"seat": s.ann_seat, "mask": s.ann_mask, "claims": claims,
                        "passes": passes}
    power = None
    if s.phase == "power" and s.decision:
        power = {"seat": s.holder, "mask": s.ann_mask, "decision": s.decision,
                 "target": s.target if s.target >= 0 else None}
    out: dict[str, Any] = {
        "phase": s.phase,
        "turn": s.turn,
        "turn_seat": s.seat,
        "awaiting": [{"seat": seat, "player": s.at[seat], "decision": decision}
                     for seat, decision in awaited(s)],
        "seats": [{"seat": x, "player": s.at[x], "coins": s.coins[x]} for x in range(s.n)],
        "center": [f"center-{k}" for k in range(s.center)],
        "justice": s.justice,
        "masks_in_play": list(s.masks),
        "starting_deal": [{"about": s.slot_name(x), "mask": m} for x, m in enumerate(s.deal)],
        "last_moved": [{"about": s.slot_name(x), "seq": seq} for x, seq in enumerate(s.moved)],
        "announcement": announcement,
        "power": power,
        # [R5] The seats where the players barred from announcing this turn sit now.
        "revealed_last_turn": sorted(s.seat_of[p] for p in s.rev_prev_players),
        "winners": list(s.winners),
        "you": None,
    }
    if me is not None:
        out["you"] = {"player": me, "seat": s.seat_of[me], "knowledge": knowledge(s, me)}
    if moderator:
        out["moderator"] = {
            "cards": [{"about": s.slot_name(x), "mask": m} for x, m in enumerate(s.cards)],
            "claims": list(s.claims),
            "passes": list(s.passes),
            "decision": ({"decision": s.decision, "seat": s.holder,
                          "target": s.target if s.target >= 0 else None,
                          "hidden": s.hidden or None} if s.decision else None),
            "knowledge": [knowledge(s, p) for p in range(s.n)],
            "revealed_this_turn": sorted(s.seat_of[p] for p in s.rev_cur_players),
            "seq": s.seq,
            "reason": s.reason,
        }
    return out


#: Event fields only the acting player sees (rules §9).
_ACTOR_ONLY = {
    "look": ("mask",),
    "exchange": ("swapped",),
    "spy": ("mask", "target_mask"),
    "spy_swap": ("swapped",),
    "fool": ("swapped",),
    "gambler": ("hidden",),
}


def view_event(event: dict[str, Any], viewer: Any, s: State) -> dict[str, Any] | None:
    """``event`` as ``viewer`` may see it now (``s`` is the current state). A new dict that
    shares no list with ``event``."""
    out = copy_json(event)
    if viewer == MODERATOR:
        return out
    me = _player(s, viewer)
    etype = event.get("type")
    hidden = _ACTOR_ONLY.get(etype)
    if hidden is not None:
        if me is None or me != event.get("player"):
            for key in hidden:
                out.pop(key, None)
        return out
    if etype in ("claim", "pass"):
        if _window_open(s, event["turn"]) and me != event.get("player"):
            # Simultaneous mode: others learn that this seat answered, not how (§6).
            return {"type": "answer", "seat": event["seat"], "turn": event["turn"],
                    "player": event.get("player")}
        return out
    # [R9] With log_masks off, a revealed mask is shown for the current and the previous turn
    # only; after that "every trace of the mask in the history" goes: the mask of a reveal (a
    # challenge's, the Guru's, the Princess's), "the power used by a revealed holder" (the mask
    # of a power event with revealed true; an unrevealed announcer's power is an announcement,
    # not a reveal, and stays), and "the reasons given for coin movements and fines" (every
    # coins event's why; a fines event names no reason). "The amounts themselves stay public":
    # amounts, seats and players stay. Statements stay too: the announced mask (announce,
    # challenge_closed) and the Guru's target's answer (guru_answer) are what players said.
    forgotten = not s.log_masks and s.turn - event.get("turn", s.turn) > 1
    if etype in ("reveal", "princess"):
        # The Princess shows the card to the players at the table but its owner: a spectator
        # sees only what everyone sees (§9).
        blind = etype == "princess" and (me is None or me == event.get("target_player"))
        if forgotten or blind:
            out.pop("mask", None)
    elif forgotten and etype == "power" and event.get("revealed"):
        out.pop("mask", None)
    elif forgotten and etype == "coins":
        out.pop("why", None)
    return out
