"""L'Ère des Masques's shapes in the OpenAPI schema (JSON Schema, OpenAPI 3.0's dialect): its
options, a move, and the game's own parts of ``state`` and ``you`` (the envelope every game
shares is the API's: ``games/api/schema.py``). ``docs/api/ere_des_masques.md`` says the same in
words."""

from __future__ import annotations

from games.engine.options import speed_schema

from .rules.cards import DECK_SIZE, KINDS
from .rules.options import CHOICES, DEFAULTS, RANGES, REVISION

KIND = {"type": "string", "enum": list(KINDS)}
SEAT = {"type": "integer", "minimum": 0, "maximum": 1}
CARDS = {"type": "array", "items": KIND}


def _range(key: str) -> dict:
    low, high = RANGES[key]
    return {"type": "integer", "minimum": low, "maximum": high, "default": DEFAULTS[key]}


OPTIONS = {
    "type": "object",
    "description": "L'Ère des Masques's options (docs/api/ere_des_masques.md); a game read gives "
                   "them complete, defaults filled in.",
    "properties": {
        "players": {"type": "integer", "enum": [2], "default": 2},
        "move_timeout": _range("move_timeout"),
        "challenge_timeout": {**_range("challenge_timeout"),
                              "description": "seconds to let a played card pass or counter it"},
        **speed_schema(),
        "absent_after": _range("absent_after"),
        "absent_policy": {"type": "string", "enum": list(CHOICES["absent_policy"]),
                          "default": DEFAULTS["absent_policy"]},
        "deal": {"type": "array", "items": KIND, "minItems": DECK_SIZE, "maxItems": DECK_SIZE,
                 "nullable": True,
                 "description": "staff only: the deck's order, top first (8 of each kind)"},
        "first_seat": {"type": "integer", "minimum": 0, "maximum": 1, "nullable": True,
                       "description": "staff only: who plays first"},
        "revision": {"type": "integer", "minimum": 1, "maximum": REVISION, "default": REVISION,
                     "description": "the rules' revision the game plays: a new game the latest "
                                    "(2: E3b and E5); a game created before revisions has none "
                                    "and plays revision 1"},
    },
    "additionalProperties": False,
}

MOVE = {
    "type": "object",
    "description": "A move of L'Ère des Masques: {\"type\": \"draw\"}, {\"type\": \"play\", "
                   "\"card\": kind}, {\"type\": \"let_pass\"}, {\"type\": \"counter\", \"kind\": "
                   "kind}, {\"type\": \"discard\" | \"keep\" | \"assassinate\", \"card\": kind}.",
    "required": ["type"],
    "properties": {
        "type": {"type": "string", "enum": ["draw", "play", "let_pass", "counter", "discard",
                                            "keep", "assassinate"]},
        "card": KIND,
        "kind": KIND,
    },
    "additionalProperties": False,
}

_TO_WIN = {
    "type": "object", "required": ["four_of_a_kind", "five_kinds"],
    "properties": {
        "four_of_a_kind": {"type": "integer", "minimum": 0,
                           "description": "cards missing for four of one kind"},
        "five_kinds": {"type": "integer", "minimum": 0,
                       "description": "kinds missing for one card of each kind"}},
}

STATE = {
    "type": "object",
    "description": "L'Ère des Masques's state as the viewer may know it "
                   "(docs/api/ere_des_masques.md).",
    "required": ["phase", "turn", "turn_seat", "seats", "draw_pile", "discard", "discard_size",
                 "played", "recruited", "winners", "reason"],
    "properties": {
        "phase": {"type": "string", "enum": ["playing", "over"]},
        "turn": {"type": "integer", "minimum": 1},
        "turn_limit": {"type": "integer"},
        "turn_seat": SEAT,
        "seats": {"type": "array", "minItems": 2, "maxItems": 2, "items": {
            "type": "object",
            "required": ["seat", "player", "is_bot", "hand_size", "zone", "zone_cards",
                         "to_win"],
            "properties": {
                "seat": SEAT, "player": {"type": "string"}, "is_bot": {"type": "boolean"},
                "hand_size": {"type": "integer", "minimum": 0},
                "zone": {"type": "object", "additionalProperties": {"type": "integer"},
                         "description": "the play zone: kind → number of cards"},
                "zone_cards": {**CARDS, "description": "the play zone in the order laid"},
                "to_win": _TO_WIN}}},
        "draw_pile": {"type": "integer", "minimum": 0, "description": "cards in the draw pile"},
        "discard": {**CARDS, "description": "the discard pile, oldest first (public)"},
        "discard_size": {"type": "integer", "minimum": 0},
        "played": {
            "type": "object", "nullable": True,
            "description": "the card played face down, until it resolves; `card` is null for "
                           "everyone but its owner until it is revealed",
            "required": ["seat", "revealed", "countered", "card"],
            "properties": {"seat": SEAT, "revealed": {"type": "boolean"},
                           "countered": {"type": "boolean"},
                           "counter_kind": {**KIND, "nullable": True},
                           "right": {"type": "boolean", "nullable": True},
                           "card": {**KIND, "nullable": True}}},
        "power": {
            "type": "object", "nullable": True,
            "description": "a power waiting for a decision (the Recruiter's keep, the "
                           "Assassin's choice)",
            "properties": {"seat": SEAT, "kind": KIND,
                           "count": {"type": "integer", "nullable": True}}},
        "recruited": {**CARDS, "nullable": True,
                      "description": "the Recruiter's drawn cards, for its player only, while "
                                     "they keep one"},
        "reason": {"type": "string", "nullable": True,
                   "enum": ["four_of_a_kind", "five_kinds", "stalemate", "turn_limit", None]},
        "kind": {**KIND, "nullable": True, "description": "the kind of four of a kind"},
    },
}

YOU = {
    "type": "object",
    "description": "What the viewer alone knows (docs/api/ere_des_masques.md).",
    "required": ["hand", "seen"],
    "properties": {
        "hand": {**CARDS, "description": "your hand, in the order of the rules (§1)"},
        "seen": {"type": "array", "description": "your Spy's sightings of your opponent's hand",
                 "items": {"type": "object", "required": ["seq", "hand"],
                           "properties": {"seq": {"type": "integer"}, "hand": CARDS}}},
    },
}
