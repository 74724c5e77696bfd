"""Shadow House Mascarade's shapes in the OpenAPI schema (JSON Schema, OpenAPI 3.0's dialect): its
options, a move, and the game's own parts of ``state`` and ``you`` (the envelope every game shares
is the API's: ``games/api/schema.py``). ``docs/api/shadow_house.md`` says the same in words."""

from __future__ import annotations

from games.engine.options import speed_schema

from .rules import CARDS
from .rules.options import CHOICES, DEFAULTS, RANGES, REVISION

CARD = {"type": "string", "enum": list(CARDS)}
SEAT = {"type": "integer", "minimum": 0, "maximum": 7}
CARD_LIST = {"type": "array", "items": CARD}
PER_SEAT = {"type": "array", "items": {"type": "integer"}, "description": "one number per seat"}


def _range(key: str) -> dict:
    low, high = RANGES[key]
    return {"type": "integer", "minimum": low, "maximum": high, "default": DEFAULTS[key]}


OPTIONS = {
    "type": "object",
    "description": "Shadow House Mascarade's options (docs/api/shadow_house.md); a game read "
                   "gives them complete, defaults filled in.",
    "properties": {
        "players": _range("players"),
        "flash": {"type": "boolean", "default": False,
                  "description": "one round, no points: the culprit side or everyone else wins"},
        "move_timeout": {**_range("move_timeout"),
                         "description": "seconds for a turn, the Witness's and the Divining "
                                        "hat's choices"},
        "challenge_timeout": {**_range("challenge_timeout"),
                              "description": "seconds to answer another's card: give, discard, "
                                             "the Panic's pool"},
        **speed_schema(),
        "absent_after": _range("absent_after"),
        "absent_policy": {"type": "string", "enum": list(CHOICES["absent_policy"]),
                          "default": DEFAULTS["absent_policy"]},
        "deal": {"type": "array", "nullable": True, "minItems": 1,
                 "items": {"type": "array", "items": CARD, "minItems": 36, "maxItems": 36},
                 "description": "staff only: the box's order (the 36 cards) for each round "
                                "from the first; later rounds are seeded"},
        "first_seat": {**SEAT, "nullable": True,
                       "description": "staff only: the seat holding the First on scene in "
                                      "round 1"},
        "revision": {"type": "integer", "minimum": 1, "maximum": REVISION, "default": REVISION,
                     "description": "the rules' revision the game plays: a new game the latest "
                                    "(2: S6); a game created before revisions has none and "
                                    "plays revision 1"},
    },
    "additionalProperties": False,
}

MOVE = {
    "type": "object",
    "description": "A move of Shadow House Mascarade: {\"type\": \"play\", \"card\": id} or "
                   "{\"type\": \"play\", \"card\": id, \"target\": seat} (a card with a target), "
                   "{\"type\": \"discard\" | \"give\" | \"contribute\" | \"witness_exchange\", "
                   "\"card\": id}, {\"type\": \"witness_pass\"}, {\"type\": \"say\", \"text\": "
                   "str}.",
    "required": ["type"],
    "properties": {
        "type": {"type": "string", "enum": ["play", "discard", "give", "contribute",
                                            "witness_exchange", "witness_pass", "say"]},
        "card": CARD,
        "target": SEAT,
        "text": {"type": "string", "maxLength": 280,
                 "description": "the Divining hat's words, posted to the table's chat; empty: "
                                "nothing said"},
    },
    "additionalProperties": False,
}

ROUND = {
    "type": "object",
    "required": ["round", "case", "culprit", "accomplices", "by", "gained", "points"],
    "properties": {
        "round": {"type": "integer", "minimum": 1},
        "case": {"type": "integer", "minimum": 1, "maximum": 4,
                 "description": "1 a Detective's yes, 2 Toby showed the Culprit, 3 the Culprit "
                                "got rid of as a last card, 4 the culprit held the Handcuffs"},
        "culprit": SEAT,
        "accomplices": {"type": "array", "items": SEAT},
        "by": {**SEAT, "nullable": True,
               "description": "the Detective's or Toby's player (cases 1, 2, and 4 by them)"},
        "gained": PER_SEAT,
        "points": {**PER_SEAT, "description": "totals after the round"},
    },
}

STATE = {
    "type": "object",
    "description": "Shadow House Mascarade's state as the viewer may know it "
                   "(docs/api/shadow_house.md).",
    "required": ["phase", "round", "flash", "goal", "turn", "turn_seat", "seats", "pile_size",
                 "discards", "effect", "rounds", "winners", "reason"],
    "properties": {
        "phase": {"type": "string", "enum": ["playing", "over"]},
        "round": {"type": "integer", "minimum": 1},
        "flash": {"type": "boolean"},
        "goal": {"type": "integer", "description": "the points that end the game (5)"},
        "turn": {"type": "integer", "minimum": 0},
        "turn_seat": {**SEAT, "nullable": True,
                      "description": "whose turn it is; null while a card's effect resolves"},
        "seats": {"type": "array", "minItems": 3, "maxItems": 8, "items": {
            "type": "object",
            "required": ["seat", "player", "is_bot", "hand_size", "points", "played",
                         "accomplice", "handcuffs", "protected", "chosen"],
            "properties": {
                "seat": SEAT, "player": {"type": "string"}, "is_bot": {"type": "boolean"},
                "hand_size": {"type": "integer", "minimum": 0},
                "points": {"type": "integer", "minimum": 0},
                "played": {**CARD_LIST, "description": "cards played face up in front of the "
                                                       "seat this round, in order"},
                "accomplice": {"type": "boolean"},
                "handcuffs": {"type": "boolean"},
                "protected": {"type": "array", "items": {"type": "string",
                                                         "enum": ["maid", "governess"]}},
                "chosen": {"type": "boolean",
                           "description": "a simultaneous choice already sent"}}}},
        "pile_size": {"type": "integer", "minimum": 0},
        "discards": {**CARD_LIST, "description": "cards discarded for an Accomplice, oldest "
                                                 "first (public)"},
        "effect": {"type": "object", "nullable": True,
                   "description": "the card whose effect is resolving",
                   "properties": {"card": CARD, "seat": SEAT,
                                  "target": {**SEAT, "nullable": True}}},
        "rounds": {"type": "array", "items": ROUND, "description": "the rounds played"},
        "winners": {"type": "array", "items": SEAT},
        "reason": {"type": "string", "nullable": True, "enum": ["points", "flash", None]},
    },
}

YOU = {
    "type": "object",
    "description": "What the viewer alone knows (docs/api/shadow_house.md).",
    "required": ["hand"],
    "properties": {
        "hand": {**CARD_LIST, "description": "your hand, in the rules' order (§1)"},
        "choice": {**CARD, "nullable": True,
                   "description": "your simultaneous choice, sent and not yet resolved"},
        "culprit_seen": {"type": "object", "nullable": True,
                         "description": "what your Little one told you this round",
                         "properties": {"seat": SEAT, "turn": {"type": "integer"}}},
        "witnessed": {"type": "object", "nullable": True,
                      "description": "the hand your Witness is looking at",
                      "properties": {"seat": SEAT, "hand": CARD_LIST,
                                     "turn": {"type": "integer"}}},
        "pool": {**CARD_LIST, "nullable": True,
                 "description": "your Panic's pooled cards, while it resolves"},
    },
}
