"""Mascarade's shapes in the OpenAPI schema (JSON Schema, OpenAPI 3.0's dialect): its options, a
move, and the game's own parts of ``state`` and ``you`` (the envelope every game shares is the
API's: ``games/api/schema.py``). ``docs/api/mascarade.md`` and ``shared/API.md`` say the same in
words."""

from __future__ import annotations

from games.engine.options import speed_schema

from .rules.data import MASKS
from .rules.options import CHOICES, RANGES

MASK_IDS = list(MASKS)
SLOT = {"oneOf": [{"type": "integer", "minimum": 0},
                  {"type": "string", "pattern": "^center-[0-9]+$"}]}
SEAT = {"type": "integer", "minimum": 0}


def _range(key: str) -> dict:
    low, high = RANGES[key]
    return {"type": "integer", "minimum": low, "maximum": high}


OPTIONS = {
    "type": "object",
    "description": "Mascarade's options (API.md \"Mascarade options\"); a game read gives them "
                   "complete, defaults filled in.",
    "properties": {
        "players": _range("players"),
        "scenario": {"type": "string", "enum": list(CHOICES["scenario"])},
        "masks": {"type": "array", "items": {"type": "string", "enum": MASK_IDS},
                  "description": "the masks in play (chosen in a custom scenario)"},
        "center": _range("center"),
        "challenge_mode": {"type": "string", "enum": list(CHOICES["challenge_mode"])},
        "move_timeout": _range("move_timeout"),
        "challenge_timeout": _range("challenge_timeout"),
        "log_masks": {"type": "boolean"},
        **speed_schema(),
        "absent_after": _range("absent_after"),
        "absent_policy": {"type": "string", "enum": list(CHOICES["absent_policy"])},
        "deal": {"type": "array", "items": {"type": "string", "enum": MASK_IDS},
                 "description": "staff only: the masks of seats 0…n−1, then the center slots"},
        "first_seat": {"type": "integer", "minimum": 0, "description": "staff only"},
    },
    "additionalProperties": False,
}

MOVE = {
    "type": "object",
    "description": "A Mascarade move exactly as API.md \"Mascarade moves\" spells it, e.g. "
                   '{"type": "exchange", "target": 5, "swap": true}.',
    "required": ["type"],
    "properties": {"type": {"type": "string", "enum": [
        "exchange", "look", "announce", "claim", "pass", "spy", "spy_swap", "fool",
        "puppeteer", "princess", "guru", "guru_answer", "sorceress", "crook", "gambler",
        "gambler_guess"]}},
    "additionalProperties": True,
}

_SLOT_MASK = {"type": "object", "required": ["about", "mask"],
              "properties": {"about": SLOT, "mask": {"type": "string"}}}

STATE = {
    "type": "object",
    "description": "Mascarade's state as the viewer may know it (docs/api/mascarade.md).",
    "required": ["phase", "turn", "turn_seat", "awaiting", "seats", "center", "justice",
                 "masks_in_play", "starting_deal", "last_moved", "revealed_last_turn",
                 "winners"],
    "properties": {
        "phase": {"type": "string", "enum": ["prep", "turn", "challenge", "power", "over"]},
        "turn": {"type": "integer"},
        "turn_seat": SEAT,
        "seats": {"type": "array", "items": {
            "type": "object", "required": ["seat", "player", "is_bot", "coins"],
            "properties": {"seat": SEAT, "player": {"type": "string"},
                           "is_bot": {"type": "boolean"}, "coins": {"type": "integer"}}}},
        "center": {"type": "array", "items": {"type": "string"}},
        "justice": {"type": "integer"},
        "masks_in_play": {"type": "array", "items": {"type": "string"}},
        "starting_deal": {"type": "array", "items": _SLOT_MASK},
        "last_moved": {
            "type": "array",
            "description": "per slot, the seq of the last move that may have moved its card (an "
                           "exchange, a Spy's swap or not, a Fool's); 0: none since the deal",
            "items": {"type": "object", "required": ["about", "seq"],
                      "properties": {"about": SLOT, "seq": {"type": "integer"}}}},
        "announcement": {
            "type": "object", "nullable": True,
            "required": ["seat", "mask", "claims", "passes"],
            "properties": {"seat": SEAT, "mask": {"type": "string"},
                           "claims": {"type": "array", "items": SEAT},
                           "passes": {"type": "array", "items": SEAT}}},
        "power": {
            "type": "object", "nullable": True,
            "description": "a power waiting for a decision (never the Gambler's number)",
            "required": ["seat", "mask", "decision", "target"],
            "properties": {"seat": SEAT, "mask": {"type": "string"},
                           "decision": {"type": "string"},
                           "target": {"type": "integer", "nullable": True}}},
        "revealed_last_turn": {
            "type": "array", "items": SEAT,
            "description": "the seats of the players who may not announce this turn (R5)"},
    },
}

YOU = {
    "type": "object",
    "description": "What the viewer saw privately (docs/api/mascarade.md).",
    "required": ["knowledge"],
    "properties": {
        "knowledge": {"type": "array", "items": {
            "type": "object", "required": ["seq", "about", "mask", "how"],
            "properties": {"seq": {"type": "integer"}, "about": SLOT,
                           "mask": {"type": "string"},
                           "how": {"type": "string", "enum": ["look", "spy", "princess"]}}}},
    },
}
