"""Request validation and the documented shapes of every answer (API.md).

Answers are built as plain dicts by :mod:`games.core.selectors` (through the engine's projections);
the ``*Out`` serializers here describe them for the OpenAPI schema, and the tests check every
answer against that schema.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.core import catalog
from games.core.services.bots import DEFAULT_BOT_KIND
from games.models import NAME_MAX_LENGTH, Game

STATUSES = [choice for choice, _label in Game.Status.choices]


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


class CatalogChoiceField(serializers.ChoiceField):
    """A choice among what the registered games offer, read when a serializer is made (the games
    register when Django starts, after this module may have been imported)."""

    def __init__(self, choices, **kwargs):
        self._choices_of = choices
        super().__init__(choices=[], **kwargs)

    def bind(self, field_name, parent):
        self.choices = self._choices_of()
        super().bind(field_name, parent)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false``, as the schema says: DRF's own also takes ``"yes"``, ``1``,
    ``"on"``... (for HTML forms), which the schema does not promise."""

    def to_internal_value(self, data):
        if data is True or data is False:
            return data
        self.fail("invalid", input=data)


@extend_schema_field(_ref("Move"))
class MoveField(serializers.JSONField):
    """A move of the game's, passed as is to its rules (which refuse malformed ones). The
    ``Move`` component is built from every game's (``games.api.schema``)."""


@extend_schema_field({"type": "object", "additionalProperties": True,
                      "description": "The game's options: each game's are a component of this "
                                     "schema (`MascaradeOptions`...) and a page under docs/api/."})
class OptionsField(serializers.JSONField):
    pass


@extend_schema_field(_ref("GameState"))
class StateField(serializers.JSONField):
    """The game's state as the viewer may know it: one schema per game (``games.api.schema``)."""


@extend_schema_field(_ref("GameYou"))
class YouField(serializers.JSONField):
    """What the viewer alone knows: one schema per game (``games.api.schema``)."""


# --------------------------------------------------------------------------------------------
# Requests


class GameCreateIn(serializers.Serializer):
    game = CatalogChoiceField(catalog.ids)
    name = serializers.CharField(
        required=False, allow_blank=True, max_length=NAME_MAX_LENGTH,
        help_text="What the players will call the game (an addition to API.md); blank or left "
                  "out: \"<creator> #<n>\", the creator's n-th game.")
    options = OptionsField(required=False, default=dict)
    private = StrictBooleanField(required=False, default=False)
    bots = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=64,
        help_text="Seats after the creator's filled with bots at once (an addition to API.md).")
    bot_kind = CatalogChoiceField(catalog.bot_kinds, required=False,
                                       default=DEFAULT_BOT_KIND)
    min_reliability = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=100,
        help_text="Only players whose reliability (the share of their decisions taken in "
                  "time, in percent) is at least this may join; null or 0: anyone. Players "
                  "invited back by a rematch join whatever theirs.")


class JoinIn(serializers.Serializer):
    invite_code = serializers.CharField(required=False, allow_blank=True, max_length=64)


class BotsIn(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=64)
    kind = CatalogChoiceField(catalog.bot_kinds, required=False,
                                   default=DEFAULT_BOT_KIND)


class PauseIn(serializers.Serializer):
    pause = StrictBooleanField(
        help_text="true: ask for a pause (it happens when every human player asks); false: "
                  "withdraw the request (resumes a game the players paused).")


class MuteIn(serializers.Serializer):
    muted = StrictBooleanField()


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
    game = CatalogChoiceField(catalog.ids, required=False)


class MyGamesQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=STATUSES, required=False)
    my_turn = serializers.BooleanField(required=False, allow_null=True, default=None)


class EventsQuery(serializers.Serializer):
    after = serializers.IntegerField(required=False, default=0, min_value=0,
                                     max_value=2**31 - 1)


# --------------------------------------------------------------------------------------------
# Answers (documentation of the dicts built by games.core.selectors)


class ErrorOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   required=False)
    field = serializers.CharField(required=False)
    seq = serializers.IntegerField(required=False)
    rule_code = serializers.CharField(required=False)
    retry_after = serializers.IntegerField(required=False)
    min_reliability = serializers.IntegerField(
        required=False, help_text="`reliability_too_low`: the reliability the game asks for")
    reliability = serializers.IntegerField(
        required=False, allow_null=True,
        help_text="`reliability_too_low`: the player's (null: none yet)")


class SeatRatingOut(serializers.Serializer):
    rating = serializers.IntegerField(
        help_text="The conservative figure: 1000 + 20 × (mu − 3σ) of OpenSkill's "
                  "Plackett-Luce model (a new player shows 1000).")
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated games.")
    games = serializers.IntegerField(help_text="Rated games of this game played.")


class ClockOut(serializers.Serializer):
    remaining = serializers.IntegerField(
        help_text="Seconds in the seat's time bank: at `running_since` while its clock runs, "
                  "else now.")
    running_since = serializers.DateTimeField(
        allow_null=True,
        help_text="When the clock last started (a decision of the seat began, or the game "
                  "resumed); null while it is stopped (nothing awaited from the seat, or the "
                  "game paused). It does not run during the player's vacations, and runs out "
                  "at the decision's deadline (`state.awaiting`).")


class PlayerOut(serializers.Serializer):
    position = serializers.IntegerField(help_text="The seat this player took when joining "
                                                  "(the Puppeteer may move them since).")
    player = serializers.CharField()
    is_bot = serializers.BooleanField()
    absent = serializers.BooleanField(
        help_text="Marked absent after consecutive timeouts (a bot may be playing for them).")
    clock = ClockOut(allow_null=True,
                     help_text="The seat's time bank, in a game whose `speed` is `bank`; null "
                               "in the others.")
    wants_pause = serializers.BooleanField(
        help_text="Asks for a pause: the game pauses when every human player asks.")
    vacation = serializers.BooleanField(
        help_text="On vacation today: their deadlines extend over their declared days off.")
    rating = SeatRatingOut(
        allow_null=True, help_text="Their rating at this game (`GET /players/{name}/`); null "
                                   "for a bot.")
    reliability = serializers.IntegerField(
        allow_null=True, help_text="Their reliability, in percent (the share of their "
                                   "decisions of the last 90 days taken in time), as of the "
                                   "day's figures; null for a bot or a player without any.")


class GameSummaryOut(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    name = serializers.CharField(
        help_text="What the players call the game: its creator's choice, or \"<creator> #<n>\" "
                  "(an addition to API.md).")
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
    min_reliability = serializers.IntegerField(
        allow_null=True, help_text="The reliability (percent) a player needs to join; null: "
                                   "anyone.")
    rematch = serializers.UUIDField(
        allow_null=True, help_text="A finished game played again: the new table's id (POST "
                                   "`/games/{id}/rematch/`); null until a player asks.")


class MyGameSummaryOut(GameSummaryOut):
    awaiting_you = serializers.BooleanField()
    your_deadline = serializers.DateTimeField(allow_null=True)
    next_deadline = serializers.DateTimeField(allow_null=True)


class GameOut(GameSummaryOut):
    state = StateField(allow_null=True, help_text="null until the game starts")
    you = YouField(allow_null=True, help_text="null for a spectator")
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

