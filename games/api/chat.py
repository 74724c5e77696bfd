"""The table chat in API v1: ``/games/{id}/chat/`` (read, write), a message's report, and the
viewer's chat mutes under ``/me/chat-mutes/``. Moderators' reads and hides are in
:mod:`games.api.moderation`."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.pagination import Pagination
from games.api.serializers import ErrorOut
from games.api.views import GAME_ID, _loaded_or_404, error, paginated, validated, validated_query
from games.core import catalog, selectors, services
from games.models import CHAT_MAX_LENGTH
from moderation import services as moderation
from moderation.models import Report

MESSAGE_ID = OpenApiParameter("message_id", {"type": "integer", "minimum": 1},
                              OpenApiParameter.PATH)
USERNAME = OpenApiParameter("username", {"type": "string", "minLength": 1, "maxLength": 150},
                            OpenApiParameter.PATH)


class ChatQuery(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, min_value=0, max_value=2**63 - 1,
        help_text="Only the messages after this message id (the last one you have).")


class StrictCharField(serializers.CharField):
    """A JSON string, as the schema says (DRF's own also takes a number and makes it one)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ChatIn(serializers.Serializer):
    text = StrictCharField(
        max_length=4 * CHAT_MAX_LENGTH, trim_whitespace=False, allow_blank=True,
        help_text=f"Plain text: 1 to {CHAT_MAX_LENGTH} characters once the blanks around it "
                  f"are stripped; line breaks and tabs are the only control characters taken.")


class ChatMessageOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Ascending: pass the last one as `after`.")
    seq = serializers.IntegerField(help_text="The game's seq when it was written.")
    player = serializers.CharField(allow_null=True,
                                   help_text="Who wrote it: a username, or `Bot N`.")
    position = serializers.IntegerField(allow_null=True,
                                        help_text="The writer's seat (as in `players`).")
    is_bot = serializers.BooleanField(help_text="A line of the game's for a bot's seat.")
    text = serializers.CharField(help_text="As written, never escaped: escape it where you "
                                           "show it.")
    source = serializers.CharField(allow_null=True,
                                   help_text="null for what a person typed; for a line of the "
                                             "game's rules, its key (a card's id)")
    source_label = serializers.CharField(allow_null=True,
                                         help_text="the source in words, in your language")
    created_at = serializers.DateTimeField()
    hidden = serializers.BooleanField(help_text="Hidden by a moderator: only moderators are "
                                                "given hidden messages.")


class ChatReportIn(serializers.Serializer):
    reason = serializers.ChoiceField(choices=Report.Reason.choices, required=False,
                                     default=Report.Reason.ABUSE)
    text = StrictCharField(required=False, allow_blank=True, max_length=2000)


class ChatReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    message = serializers.IntegerField()
    reported = serializers.CharField()
    reason = serializers.CharField()
    seq = serializers.IntegerField()
    status = serializers.CharField()


class ChatMuteIn(serializers.Serializer):
    username = StrictCharField(max_length=150)


class ChatMuteOut(serializers.Serializer):
    username = serializers.CharField()
    created_at = serializers.DateTimeField()


class ChatMutesOut(serializers.Serializer):
    results = ChatMuteOut(many=True)


def viewer_is_moderator(request) -> bool:
    return moderation.is_moderator(request.user)


def messages_payload(messages, kit) -> list[dict]:
    return [selectors.chat_payload(message, kit) for message in messages]


class ChatView(APIView):
    @extend_schema(
        operation_id="games_chat_list", parameters=[GAME_ID, ChatQuery],
        responses={200: paginated("PaginatedChatMessageList", ChatMessageOut)},
        summary="The table chat, oldest first (players and spectators; `after` for newer "
                "messages only)")
    def get(self, request, id):
        query = validated_query(ChatQuery, request.query_params)
        loaded = _loaded_or_404(request, id, with_state=False)
        kit = catalog.get_kit(loaded.game.kind)
        messages = selectors.chat_messages(loaded.game, request.user,
                                           with_hidden=viewer_is_moderator(request),
                                           after=query.get("after"))
        paginator = Pagination()
        page = paginator.paginate_queryset(messages, request, view=self)
        return paginator.get_paginated_response(messages_payload(page, kit))

    @extend_schema(
        operation_id="games_chat_post", parameters=[GAME_ID], request=ChatIn,
        responses={201: ChatMessageOut,
                   400: error(f"`invalid` (`fields.text`): empty, over {CHAT_MAX_LENGTH} "
                              f"characters, or control characters"),
                   401: error("`not_authenticated`"),
                   403: error("`forbidden`: not a player of this game (spectators read only), "
                              "or a blocked account"),
                   404: error("`not_found`: no such game (or a private one you do not play)"),
                   429: OpenApiResponse(ErrorOut, description=(
                       f"`throttled`: more than {services.chat.MESSAGES_PER_WINDOW} messages "
                       f"a minute at this table; `retry_after` and the `Retry-After` header "
                       f"say when to try again"))},
        summary="Write at the table (its players only)")
    def post(self, request, id):
        data = validated(ChatIn, request.data)
        message = services.chat.post_message(request.user, id, data["text"])
        kit = catalog.get_kit(message.game.kind)
        return Response(selectors.chat_payload(message, kit), status=201)


class ChatReportView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_chat_report", parameters=[GAME_ID, MESSAGE_ID],
        request=ChatReportIn,
        responses={201: ChatReportOut,
                   400: error("`invalid`: your own message, a line of the game's, reported "
                              "already, or over the daily limit of reports"),
                   403: error("`forbidden`: you do not play in this game"),
                   404: error("`not_found`: no such game or message")},
        summary="Report a chat message of this table to the moderators")
    def post(self, request, id, message_id):
        data = validated(ChatReportIn, request.data)
        report = moderation.report_message(request.user, id, message_id, data["reason"],
                                           data.get("text", ""))
        return Response({"id": report.pk, "message": report.message_id,
                         "reported": report.reported.username, "reason": report.reason,
                         "seq": report.seq, "status": report.status}, status=201)


def _mute_out(mute) -> dict:
    return {"username": mute.muted.username, "created_at": selectors.iso(mute.created_at)}


class MyChatMutesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_chat_mutes_list", responses={200: ChatMutesOut},
                   summary="The users whose table chat messages you do not see")
    def get(self, request):
        return Response({"results": [_mute_out(m) for m in
                                     services.chat.mutes_of(request.user)]})

    @extend_schema(
        operation_id="me_chat_mutes_create", request=ChatMuteIn,
        responses={200: OpenApiResponse(ChatMuteOut, description="muted already"),
                   201: ChatMuteOut,
                   400: error("`invalid`: yourself"),
                   404: error("`not_found`: no such user")},
        summary="Stop seeing a user's table chat messages (pages, API, digest)")
    def post(self, request):
        data = validated(ChatMuteIn, request.data)
        mute, created = services.chat.mute(request.user, data["username"])
        return Response(_mute_out(mute), status=201 if created else 200)


class MyChatMuteView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_chat_mutes_delete", parameters=[USERNAME], request=None,
        responses={204: OpenApiResponse(description="their messages show again"),
                   404: error("`not_found`: not muted, or no such user")},
        summary="See a muted user's table chat messages again")
    def delete(self, request, username):
        services.chat.unmute(request.user, username)
        return Response(status=204)
