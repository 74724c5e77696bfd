"""The games endpoints of API v1 (``shared/API.md``, "Games")."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import serializers as s
from games.api.pagination import Pagination
from games.core import selectors, services
from games.core.errors import Invalid, NotFound

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255,
                        "pattern": r"\S"},
    OpenApiParameter.HEADER, required=False,
    description="The same key with the same body within 24 h returns the first answer again and "
                "does nothing more; with a different body: 422 `idempotency_conflict`.")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="An ETag from an earlier answer: 304 while nothing changed.")
GAME_ID = OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(response=s.ErrorOut, description=description)


def paginated(name: str, item) -> serializers.Serializer:
    return inline_serializer(name, {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": item(many=True),
    })


def validated(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise Invalid({key: [str(m) for m in value] if isinstance(value, list) else [str(value)]
                       for key, value in serializer.errors.items()})
    return serializer.validated_data


def validated_query(serializer_class, params) -> dict:
    """A query string's parameters as the serializer reads them; a parameter given without a
    value (``?status=``) is refused, as the schema says (DRF would read it as absent)."""
    empty = [name for name in serializer_class().fields if params.get(name) == ""]
    if empty:
        raise Invalid({name: ["Give this parameter a value, or leave it out."]
                       for name in empty})
    return validated(serializer_class, params)


def idempotency(request) -> services.Idempotency | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not key.strip() or len(key) > 255:
        raise Invalid({"Idempotency-Key": ["Send 1 to 255 characters, unique per request."]})
    return services.Idempotency(
        user_id=request.user.pk, key=key,
        request_hash=services.Idempotency.hash_request(request.method, request.path,
                                                       request.data))


def _loaded_or_404(request, game_id, *, with_state: bool = True):
    loaded = selectors.find_and_load(game_id, request.user, with_state=with_state)
    if loaded is None:
        raise NotFound("No such game.")
    return loaded


class GamesView(APIView):
    @extend_schema(
        operation_id="games_list", parameters=[s.GamesQuery],
        responses={200: paginated("PaginatedGameSummaryList", s.GameSummaryOut)},
        summary="Public games (summaries)")
    def get(self, request):
        query = validated_query(s.GamesQuery, request.query_params)
        paginator = Pagination()
        page = paginator.paginate_queryset(
            selectors.public_games(query.get("status"), query.get("game")), request, view=self)
        seats, pending = selectors.seats_by_game(page), selectors.pending_by_game(page)
        return paginator.get_paginated_response(
            [selectors.summary_payload(game, seats[game.pk], pending.get(game.pk))
             for game in page])

    @extend_schema(
        operation_id="games_create", request=s.GameCreateIn, parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.GameOut,
                   400: error("`invalid` or `invalid_options` (with `field`)"),
                   403: error("`forbidden`: `deal` and `first_seat` are for staff only"),
                   422: error("`idempotency_conflict`")},
        summary="Create a game; the creator takes seat 0")
    def post(self, request):
        data = validated(s.GameCreateIn, request.data)
        outcome = services.create_game(
            request.user, data["game"], data["options"], private=data["private"],
            bots=data["bots"], bot_kind=data["bot_kind"], name=data.get("name"),
            min_reliability=data["min_reliability"], idem=idempotency(request))
        return Response(outcome.body, status=201)


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag in tags


class GameDetailView(APIView):
    @extend_schema(
        operation_id="games_retrieve", parameters=[GAME_ID, IF_NONE_MATCH],
        responses={200: s.GameOut, 304: OpenApiResponse(description="not modified")},
        summary="The game as the viewer may see it")
    def get(self, request, id):
        loaded = _loaded_or_404(request, id, with_state=False)
        etag = selectors.etag(loaded.game, request.user)
        headers = {"ETag": etag, "Cache-Control": "private, no-cache",
                   "Vary": "Authorization, Cookie"}
        if _matches(request.headers.get("If-None-Match"), etag):
            return Response(status=304, headers=headers)
        selectors.complete(loaded)
        return Response(selectors.game_payload(loaded, request.user), headers=headers)


class JoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_join", parameters=[GAME_ID], request=s.JoinIn,
        responses={200: s.GameOut, 403: error("`forbidden`: a private game's code is missing "
                                               "or wrong; `reliability_too_low` (with "
                                               "`min_reliability` and `reliability`)"),
                   409: error("`game_full`, `already_seated` or `game_not_active`")},
        summary="Take the lowest free seat")
    def post(self, request, id):
        data = validated(s.JoinIn, request.data)
        return Response(services.join_game(request.user, id, data.get("invite_code")))


class RematchView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_rematch", parameters=[GAME_ID], request=None,
        responses={201: OpenApiResponse(s.GameOut, description="the new table, made now"),
                   200: OpenApiResponse(s.GameOut, description="the new table another "
                                                               "player made: your seat "
                                                               "there is taken"),
                   403: error("`forbidden`: only the game's players ask"),
                   409: error("`game_not_active`: the game is not finished")},
        summary="Play a finished game again: a new table with the same game and options, "
                "its players invited back")
    def post(self, request, id):
        body, made = services.rematch(request.user, id)
        return Response(body, status=201 if made else 200)


class LeaveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_leave", parameters=[GAME_ID], request=None,
        responses={200: s.GameOut,
                   403: error("`forbidden`: no seat here, or the game has started")},
        summary="Give your seat back (before the start only)")
    def post(self, request, id):
        return Response(services.leave_game(request.user, id))


class BotsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_bots", parameters=[GAME_ID], request=s.BotsIn,
        responses={200: s.GameOut, 403: error("`forbidden`: only the creator adds bots"),
                   409: error("`game_full` or `game_not_active`")},
        summary="Fill empty seats with bots (creator only)")
    def post(self, request, id):
        data = validated(s.BotsIn, request.data)
        return Response(services.add_bots(request.user, id, data["count"], data["kind"]))


class LegalMovesView(APIView):
    @extend_schema(operation_id="games_legal_moves", parameters=[GAME_ID],
                   responses={200: s.LegalMovesOut},
                   summary="The concrete moves the viewer may send now")
    def get(self, request, id):
        loaded = _loaded_or_404(request, id)
        return Response(selectors.legal_moves_payload(loaded, request.user))


class MovesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_move", parameters=[GAME_ID, IDEMPOTENCY_HEADER], request=s.MoveIn,
        responses={
            201: s.MoveOut,
            400: error("`invalid` (a malformed move: `fields.move`) or `illegal_move` "
                       "(`detail` names the rule, `rule_code`)"),
            403: error("`not_your_decision`, or `forbidden` (no seat in this game)"),
            409: error("`stale_seq` (with the current `seq`) or `game_not_active`"),
            422: error("`idempotency_conflict`"),
        },
        summary="Send a move")
    def post(self, request, id):
        data = validated(s.MoveIn, request.data)
        outcome = services.submit_move(
            id, data["move"], user=request.user, expected_seq=data.get("expected_seq"),
            idem=idempotency(request), channel="api")
        # The game as the mover's read would answer it now, and its ETag: no read needed after
        # a move (a later one with If-None-Match answers 304 while nothing changed).
        headers = {"ETag": outcome.etag} if outcome.etag else None
        return Response(outcome.body, status=201, headers=headers)


class BackView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_back", parameters=[GAME_ID], request=None,
        responses={200: s.GameOut,
                   400: error("`invalid`: your seat is not marked absent"),
                   403: error("`forbidden`: no seat in this game"),
                   409: error("`game_not_active`")},
        summary="Take your absent seat back from the bot (any move of yours does it too)")
    def post(self, request, id):
        return Response(services.come_back(request.user, id))


class PauseView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_pause", parameters=[GAME_ID], request=s.PauseIn,
        responses={200: s.GameOut,
                   403: error("`forbidden`: no seat here, or a moderator paused the game"),
                   409: error("`game_not_active`")},
        summary="Ask for a pause (unanimous) or withdraw the request (resumes)")
    def post(self, request, id):
        data = validated(s.PauseIn, request.data)
        return Response(services.request_pause(request.user, id, data["pause"]))


class MuteView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_mute", parameters=[GAME_ID], request=s.MuteIn,
        responses={200: s.MuteOut, 403: error("`forbidden`: no seat in this game")},
        summary="Mute (or unmute) this game's email notifications for you")
    def post(self, request, id):
        data = validated(s.MuteIn, request.data)
        return Response(services.mute_game(request.user, id, data["muted"]))


class EventsView(APIView):
    @extend_schema(operation_id="games_events", parameters=[GAME_ID, s.EventsQuery],
                   responses={200: s.EventsOut},
                   summary="The viewer's view of the history after a seq")
    def get(self, request, id):
        query = validated_query(s.EventsQuery, request.query_params)
        loaded = _loaded_or_404(request, id)
        return Response(selectors.events_payload(loaded, request.user, query["after"]))


class MyGamesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_games", parameters=[s.MyGamesQuery],
        responses={200: paginated("PaginatedMyGameSummaryList", s.MyGameSummaryOut)},
        summary="The viewer's games: those not over first (awaiting them first, then by nearest "
                "deadline), then those over, the most recently ended first")
    def get(self, request):
        query = validated_query(s.MyGamesQuery, request.query_params)
        paginator = Pagination()
        page = paginator.paginate_queryset(
            selectors.games_of(request.user, query.get("status"), query.get("my_turn")),
            request, view=self)
        seats, pending = selectors.seats_by_game(page), selectors.pending_by_game(page)
        results = []
        for game in page:
            item = selectors.summary_payload(game, seats[game.pk], pending.get(game.pk))
            item["awaiting_you"] = game.your_deadline is not None
            item["your_deadline"] = selectors.iso(game.your_deadline)
            item["next_deadline"] = selectors.iso(game.next_deadline)
            results.append(item)
        return paginator.get_paginated_response(results)
