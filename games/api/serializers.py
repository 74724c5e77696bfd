"""Request validation and the documented shapes of every answer (API.md).

Answers are built as plain dicts by :mod:`games.selectors` (through the engine's projections);
the ``*Out`` serializers here describe them for the OpenAPI schema, and the tests check every
answer against that schema.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine import GAMES
from games.models import Game

GAME_KINDS = sorted(GAMES)
BOT_KIND_CHOICES = [("heuristic", "heuristic"), ("random", "random")]
STATUSES = [choice for choice, _label in Game.Status.choices]

SLOT_SCHEMA = {"oneOf": [{"type": "integer", "minimum": 0},
                         {"type": "string", "pattern": "^center-[0-9]+$"}]}
MOVE_SCHEMA = {
    "type": "object",
    "description": "A move exactly as API.md \"Mascarade moves\" spells it, e.g. "
                   '{"type": "exchange", "target": 5, "swap": true}. '
                   "GET legal-moves lists the concrete moves the viewer may send now.",
    "required": ["type"],
    "properties": {"type": {"type": "string", "enum": [
        "exchange", "look", "announce", "claim", "pass", "spy", "spy_swap", "fool",
        "puppeteer", "princess", "guru", "guru_answer", "sorceress", "crook", "gambler",
        "gambler_guess"]}},
    "additionalProperties": True,
}


@extend_schema_field(SLOT_SCHEMA)
class SlotField(serializers.JSONField):
    """A seat number or a center slot name (``"center-0"``)."""


@extend_schema_field(MOVE_SCHEMA)
class MoveField(serializers.JSONField):
    """A move, passed as is to the engine (which refuses malformed ones)."""


@extend_schema_field({"type": "object", "additionalProperties": True,
                      "description": "Options as API.md \"Mascarade options\" lists them."})
class OptionsField(serializers.JSONField):
    pass


# --------------------------------------------------------------------------------------------
# Requests


class GameCreateIn(serializers.Serializer):
    game = serializers.ChoiceField(choices=GAME_KINDS)
    options = OptionsField(required=False, default=dict)
    private = serializers.BooleanField(required=False, default=False)
    bots = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=64,
        help_text="Seats after the creator's filled with bots at once (an addition to API.md).")
    bot_kind = serializers.ChoiceField(choices=BOT_KIND_CHOICES, required=False,
                                       default="heuristic")


class JoinIn(serializers.Serializer):
    invite_code = serializers.CharField(required=False, allow_blank=True, max_length=64)


class BotsIn(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=64)
    kind = serializers.ChoiceField(choices=BOT_KIND_CHOICES, required=False,
                                   default="heuristic")


class PauseIn(serializers.Serializer):
    pause = serializers.BooleanField(
        help_text="true: ask for a pause (it happens when every human player asks); false: "
                  "withdraw the request (resumes a game the players paused).")


class MuteIn(serializers.Serializer):
    muted = serializers.BooleanField()


class MuteOut(serializers.Serializer):
    muted = serializers.BooleanField()


#: The largest ``expected_seq`` a move may carry (a PostgreSQL integer).
MAX_SEQ = 2**31 - 1


class MoveIn(serializers.Serializer):
    move = MoveField()
    expected_seq = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                            max_value=MAX_SEQ)


class GamesQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=STATUSES, required=False)
    game = serializers.ChoiceField(choices=GAME_KINDS, required=False)


class MyGamesQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=STATUSES, required=False)
    my_turn = serializers.BooleanField(required=False, allow_null=True, default=None)


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(required=False, default=0, min_value=0,
                                     max_value=2**31 - 1)


# --------------------------------------------------------------------------------------------
# Answers (documentation of the dicts built by games.selectors)


class ErrorOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   required=False)
    field = serializers.CharField(required=False)
    seq = serializers.IntegerField(required=False)
    rule_code = serializers.CharField(required=False)
    retry_after = serializers.IntegerField(required=False)


class PlayerOut(serializers.Serializer):
    position = serializers.IntegerField(help_text="The seat this player took when joining "
                                                  "(the Puppeteer may move them since).")
    player = serializers.CharField()
    is_bot = serializers.BooleanField()
    absent = serializers.BooleanField(
        help_text="Marked absent after consecutive timeouts (a bot may be playing for them).")
    wants_pause = serializers.BooleanField(
        help_text="Asks for a pause: the game pauses when every human player asks.")
    vacation = serializers.BooleanField(
        help_text="On vacation today: their deadlines extend over their declared days off.")


class AwaitingOut(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    decision = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)


class TableSeatOut(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    is_bot = serializers.BooleanField()
    coins = serializers.IntegerField()


class SlotMaskOut(serializers.Serializer):
    about = SlotField()
    mask = serializers.CharField()


class AnnouncementOut(serializers.Serializer):
    seat = serializers.IntegerField()
    mask = serializers.CharField()
    claims = serializers.ListField(child=serializers.IntegerField())
    passes = serializers.ListField(child=serializers.IntegerField())


class StateOut(serializers.Serializer):
    phase = serializers.ChoiceField(choices=["prep", "turn", "challenge", "power", "over"])
    turn = serializers.IntegerField()
    turn_seat = serializers.IntegerField()
    awaiting = AwaitingOut(many=True)
    seats = TableSeatOut(many=True)
    center = serializers.ListField(child=serializers.CharField())
    justice = serializers.IntegerField()
    masks_in_play = serializers.ListField(child=serializers.CharField())
    starting_deal = SlotMaskOut(many=True)
    announcement = AnnouncementOut(allow_null=True, required=False)
    winners = serializers.ListField(child=serializers.IntegerField())


class KnowledgeOut(serializers.Serializer):
    seq = serializers.IntegerField()
    about = SlotField()
    mask = serializers.CharField()
    how = serializers.ChoiceField(choices=["look", "spy", "princess"])


class YouOut(serializers.Serializer):
    seat = serializers.IntegerField()
    knowledge = KnowledgeOut(many=True)
    legal_moves = serializers.ListField(
        child=MoveField(), help_text="the moves you may send now, as `legal-moves` lists them "
        "(empty when nothing is awaited from you)")


class GameSummaryOut(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=STATUSES)
    private = serializers.BooleanField()
    created_by = serializers.CharField(allow_null=True)
    options = OptionsField()
    seq = serializers.IntegerField()
    seats_total = serializers.IntegerField()
    seats_free = serializers.IntegerField()
    players = PlayerOut(many=True)
    winners = serializers.ListField(child=serializers.IntegerField())
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class MyGameSummaryOut(GameSummaryOut):
    awaiting_you = serializers.BooleanField()
    your_deadline = serializers.DateTimeField(allow_null=True)
    next_deadline = serializers.DateTimeField(allow_null=True)


class GameOut(GameSummaryOut):
    state = StateOut(allow_null=True, help_text="null until the game starts")
    you = YouOut(allow_null=True, help_text="null for a spectator")
    invite_code = serializers.CharField(required=False,
                                        help_text="private games, for their players only")


class MoveOut(serializers.Serializer):
    seq = serializers.IntegerField()
    game = GameOut()


class LegalMovesOut(serializers.Serializer):
    seq = serializers.IntegerField()
    moves = serializers.ListField(child=MoveField())


@extend_schema_field({
    "type": "object", "required": ["seq", "at", "type"],
    "properties": {"seq": {"type": "integer"}, "at": {"type": "string", "format": "date-time"},
                   "type": {"type": "string"},
                   "seat": {"type": "integer", "nullable": True}},
    "additionalProperties": True,
})
class EventField(serializers.JSONField):
    pass


class EventsOut(serializers.Serializer):
    results = serializers.ListField(child=EventField())
    next_after = serializers.IntegerField(help_text="the seq to pass as `after` next time")
    more = serializers.BooleanField(help_text="true when moves after next_after exist already")

