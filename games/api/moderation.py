"""``/api/v1/moderation/…`` for moderators' clients, and ``POST /api/v1/games/{id}/reports/``."""

from __future__ import annotations

import datetime as dt

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from games.api.chat import MESSAGE_ID, ChatMessageOut
from games.api.pagination import Pagination
from games.api.serializers import CatalogChoiceField, ErrorOut, GameOut
from games.api.views import GAME_ID, paginated, validated, validated_query
from games.core import catalog, selectors
from games.core.errors import Forbidden, NotFound
from games.core.services.bots import DEFAULT_BOT_KIND
from games.models import ChatMessage
from moderation import services
from moderation.models import Report


class IsModerator(BasePermission):
    def has_permission(self, request, view):
        if not request.user or not request.user.is_authenticated:
            return False  # 401 from the authentication step
        if not services.is_moderator(request.user):
            raise Forbidden("Only moderators can do this.")
        return True


class ReasonIn(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class ExtendIn(ReasonIn):
    hours = serializers.IntegerField(min_value=1, max_value=720)
    player = serializers.IntegerField(required=False, min_value=0, max_value=11)


class TimeoutIn(ReasonIn):
    player = serializers.IntegerField(
        min_value=0, max_value=11, help_text="The seat (engine player) whose decision times out.")
    expected_seq = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1,
        help_text="The game's seq when you decided: if it moved on, 409 `stale_seq` and nothing "
                  "happens.")


class ReplaceIn(ReasonIn):
    player = serializers.IntegerField(min_value=0, max_value=11)
    username = serializers.CharField(required=False, help_text="Give the seat to this user; "
                                                              "leave out for a bot.")
    bot_kind = CatalogChoiceField(catalog.bot_kinds, required=False, default=DEFAULT_BOT_KIND)


class RemoveIn(ReasonIn):
    player = serializers.IntegerField(min_value=0, max_value=11)


class SuspendIn(ReasonIn):
    days = serializers.IntegerField(min_value=1, max_value=365, required=False)
    until = serializers.DateTimeField(required=False, help_text="Or an end date and time.")

    def validate(self, data):
        if ("days" in data) == ("until" in data):
            raise serializers.ValidationError("Give either days or until.")
        return data


class ReportIn(serializers.Serializer):
    reported = serializers.CharField(help_text="The reported player's name.")
    reason = serializers.ChoiceField(choices=Report.Reason.choices)
    text = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class ReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    reported = serializers.CharField()
    reason = serializers.CharField()
    seq = serializers.IntegerField()
    status = serializers.CharField()


class FullTableOut(serializers.Serializer):
    id = serializers.UUIDField()
    seq = serializers.IntegerField()
    status = serializers.CharField()
    players = serializers.ListField(child=serializers.DictField())
    state = serializers.DictField(allow_null=True)


class ActionOut(serializers.Serializer):
    seq = serializers.IntegerField()
    game = GameOut()


ERRORS = {400: OpenApiResponse(ErrorOut, description="`invalid` (a reason is required)"),
          403: OpenApiResponse(ErrorOut, description="`forbidden`: moderators only"),
          404: OpenApiResponse(ErrorOut, description="`not_found`"),
          409: OpenApiResponse(ErrorOut, description="`game_not_active`, `stale_seq` or "
                               "`decision_gone`")}


def _answer(request, game_id, seq):
    loaded = selectors.load_for_viewer(selectors.find_game(game_id), request.user)
    return Response({"seq": seq, "game": selectors.game_payload(loaded, request.user)})


class _GameAction(APIView):
    permission_classes = [IsAuthenticated, IsModerator]


def _game_action(name: str, serializer, summary: str, work):
    @extend_schema(operation_id=f"moderation_games_{name}", parameters=[GAME_ID],
                   request=serializer, responses={200: ActionOut, **ERRORS}, summary=summary)
    def post(self, request, id):
        data = validated(serializer, request.data)
        return _answer(request, id, work(request.user, id, data))

    return type(f"{name.title()}View", (_GameAction,), {"post": post})


PauseView = _game_action("pause", ReasonIn, "Pause a game (deadlines stop)",
                         lambda m, g, d: services.pause(m, g, d["reason"]).seq)
ResumeView = _game_action("resume", ReasonIn, "Resume a paused game (deadlines go on)",
                          lambda m, g, d: services.resume(m, g, d["reason"]).seq)
ExtendView = _game_action("extend", ExtendIn, "Extend the current deadline(s) by some hours",
                          lambda m, g, d: services.extend(m, g, d["hours"], d["reason"],
                                                          d.get("player")).seq)
TimeoutView = _game_action(
    "timeout", TimeoutIn, "Play now the timeout of the decision awaited from a seat (409 "
    "`decision_gone` if it was answered meanwhile; nothing is logged then)",
    lambda m, g, d: services.timeout_now(m, g, d["reason"], d["player"], d.get("expected_seq")))
AbortView = _game_action("abort", ReasonIn, "Abort a game (players are told why)",
                         lambda m, g, d: services.abort(m, g, d["reason"]).seq)


def _replace(moderator, game_id, data):
    user = None
    if data.get("username"):
        user = User.objects.filter(username=data["username"]).first()
        if user is None:
            raise NotFound("No such user.")
    return services.replace(moderator, game_id, data["player"], data["reason"], user=user,
                            bot_kind=data.get("bot_kind", DEFAULT_BOT_KIND)).seq


ReplaceView = _game_action("replace", ReplaceIn, "Give a seat to another user or to a bot",
                           _replace)
RemoveView = _game_action(
    "remove", RemoveIn, "Remove a player: their seat goes to a bot",
    lambda m, g, d: services.replace(m, g, d["player"], d["reason"], action="remove").seq)


class FullTableView(APIView):
    permission_classes = [IsAuthenticated, IsModerator]

    @extend_schema(operation_id="moderation_games_full", parameters=[GAME_ID],
                   responses={200: FullTableOut, **ERRORS},
                   summary="Every card and secret decision (each opening is logged)")
    def get(self, request, id):
        return Response(services.full_table(request.user, id))


class _UserAction(APIView):
    permission_classes = [IsAuthenticated, IsModerator]

    def target(self, username) -> User:
        if "\x00" in username:  # (no name has one; the database refuses to compare it)
            raise NotFound("No such user.")
        user = User.objects.filter(username=username).first()
        if user is None:
            raise NotFound("No such user.")
        return user


class SuspendView(_UserAction):
    @extend_schema(operation_id="moderation_users_suspend", request=SuspendIn,
                   responses={204: OpenApiResponse(description="suspended"), **ERRORS},
                   summary="Suspend a user for some days (seats go to bots)")
    def post(self, request, username):
        data = validated(SuspendIn, request.data)
        until = data.get("until") or (dt.datetime.now(dt.UTC)
                                      + dt.timedelta(days=data["days"]))
        services.suspend(request.user, self.target(username), until, data["reason"])
        return Response(status=204)


class BanView(_UserAction):
    @extend_schema(operation_id="moderation_users_ban", request=ReasonIn,
                   responses={204: OpenApiResponse(description="banned"), **ERRORS},
                   summary="Ban a user (seats go to bots)")
    def post(self, request, username):
        data = validated(ReasonIn, request.data)
        services.ban(request.user, self.target(username), data["reason"])
        return Response(status=204)


class LiftView(_UserAction):
    @extend_schema(operation_id="moderation_users_lift", request=ReasonIn,
                   responses={204: OpenApiResponse(description="lifted"), **ERRORS},
                   summary="Lift a suspension or a ban")
    def post(self, request, username):
        data = validated(ReasonIn, request.data)
        services.lift(request.user, self.target(username), data["reason"])
        return Response(status=204)


class ReportsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="games_reports_create", parameters=[GAME_ID], request=ReportIn,
                   responses={201: ReportOut,
                              400: OpenApiResponse(ErrorOut, description="`invalid`: not a "
                                                   "player here, yourself, or over the daily "
                                                   "limit"),
                              403: OpenApiResponse(ErrorOut, description="`forbidden`: you "
                                                   "do not play in this game"),
                              404: OpenApiResponse(ErrorOut, description="`not_found`")},
                   summary="Report another player of this game to the moderators")
    def post(self, request, id):
        data = validated(ReportIn, request.data)
        report = services.file_report(request.user, id, data["reported"], data["reason"],
                                      data.get("text", ""))
        return Response({"id": report.pk, "reported": report.reported.username,
                         "reason": report.reason, "seq": report.seq,
                         "status": report.status}, status=201)


# --------------------------------------------------------------------------------------------
# Reports and the table chat, for moderators


REPORT_ID = OpenApiParameter("id", {"type": "integer", "minimum": 1}, OpenApiParameter.PATH)


class ReportsQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=Report.Status.choices, required=False)


class ModerationReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.UUIDField()
    seq = serializers.IntegerField(help_text="The game's seq when it was reported.")
    reporter = serializers.CharField()
    reported = serializers.CharField()
    reason = serializers.CharField()
    text = serializers.CharField()
    status = serializers.CharField()
    resolution = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()
    message = ChatMessageOut(allow_null=True, help_text="The chat message reported, if any.")
    context = ChatMessageOut(many=True, help_text=(
        "The reported message among the messages around it at its table (up to "
        f"{selectors.CHAT_CONTEXT} on each side, hidden ones included), oldest first; empty "
        "for a report about no message."))


class HideIn(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


def report_payload(report: Report) -> dict:
    """A report as moderators read it: with its chat message in context."""
    message, context = None, []
    if report.message_id is not None:
        kit = catalog.find_kit(report.game.kind)
        context = [selectors.chat_payload(m, kit)
                   for m in selectors.chat_context(report.message)]
        message = next((m for m in context if m["id"] == report.message_id), None)
    return {"id": report.pk, "game": str(report.game_id), "seq": report.seq,
            "reporter": report.reporter.username, "reported": report.reported.username,
            "reason": report.reason, "text": report.text, "status": report.status,
            "resolution": report.resolution, "note": report.note,
            "created_at": selectors.iso(report.created_at), "message": message,
            "context": context}


def _reports():
    return Report.objects.select_related("reporter", "reported", "game", "message")


class ModerationReportsView(APIView):
    permission_classes = [IsAuthenticated, IsModerator]

    @extend_schema(operation_id="moderation_reports_list", parameters=[ReportsQuery],
                   responses={200: paginated("PaginatedModerationReportList",
                                             ModerationReportOut), **ERRORS},
                   summary="Players' reports, open ones first, newest first; a chat message's "
                           "with the messages around it")
    def get(self, request):
        query = validated_query(ReportsQuery, request.query_params)
        reports = _reports().order_by("status", "-created_at", "-id")
        if query.get("status"):
            reports = reports.filter(status=query["status"])
        paginator = Pagination()
        page = paginator.paginate_queryset(reports, request, view=self)
        return paginator.get_paginated_response([report_payload(r) for r in page])


class ModerationReportView(APIView):
    permission_classes = [IsAuthenticated, IsModerator]

    @extend_schema(operation_id="moderation_reports_retrieve", parameters=[REPORT_ID],
                   responses={200: ModerationReportOut, **ERRORS},
                   summary="One report, a chat message's with the messages around it")
    def get(self, request, id):
        report = _reports().filter(pk=id).first()
        if report is None:
            raise NotFound("No such report.")
        return Response(report_payload(report))


class HideMessageView(APIView):
    permission_classes = [IsAuthenticated, IsModerator]

    @extend_schema(
        operation_id="moderation_chat_hide", parameters=[MESSAGE_ID], request=HideIn,
        responses={200: ChatMessageOut, **ERRORS,
                   409: OpenApiResponse(ErrorOut, description="`already_hidden`")},
        summary="Hide a chat message from everyone but moderators (logged; its open reports "
                "are resolved)")
    def post(self, request, message_id):
        data = validated(HideIn, request.data)
        services.hide_message(request.user, message_id, data["reason"])
        message = selectors.chat_context(ChatMessage.objects.select_related("game")
                                         .get(pk=message_id), around=0)[0]
        return Response(selectors.chat_payload(message, catalog.find_kit(message.game.kind)))
