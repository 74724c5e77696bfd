"""API v1 ratings: a player's public page (ratings, reliability, games) and each game's
leaderboard (``docs/api/API.md``, "Players and ratings")."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.usernames import normalize
from games.api.pagination import Pagination
from games.api.serializers import SeatRatingOut
from games.api.views import error, paginated
from games.core import catalog
from games.core.errors import NotFound
from games.ratings import selectors as ratings


class GameRatingOut(SeatRatingOut):
    game = serializers.CharField(help_text="The game's id.")


class ReliabilityOut(serializers.Serializer):
    percent = serializers.IntegerField(
        allow_null=True, help_text="The share of the decisions counted that the player took "
                                   "before their deadline, in percent rounded down; null "
                                   "without any.")
    decisions = serializers.IntegerField(
        help_text="Decisions counted: their own moves, the deadline's defaults and the moves a "
                  "bot made while they were absent, over the days counted, their vacation days "
                  "left out.")
    answered = serializers.IntegerField(help_text="Those they took themselves, in time.")
    removed = serializers.IntegerField(help_text="Games a moderator gave their seat away in.")
    left = serializers.IntegerField(help_text="Games that ended with them marked absent.")
    days = serializers.IntegerField(help_text="The days counted (90), up to `as_of`.")
    as_of = serializers.DateField(help_text="The day (UTC) the days counted end before.")


class GameCountsOut(serializers.Serializer):
    finished = serializers.IntegerField()
    active = serializers.IntegerField(help_text="Under way or paused.")
    won = serializers.IntegerField(help_text="Rated games they finished first in.")
    rated = serializers.IntegerField(help_text="Games that changed their rating.")


class GamesPlayedOut(GameCountsOut):
    by_game = serializers.DictField(child=GameCountsOut(), help_text="The same, by game id.")


class PlayerProfileOut(serializers.Serializer):
    player = serializers.CharField()
    joined = serializers.DateTimeField()
    ratings = GameRatingOut(many=True, help_text="One per game the site serves.")
    reliability = ReliabilityOut()
    games = GamesPlayedOut()


class LeaderboardRowOut(SeatRatingOut):
    rank = serializers.IntegerField(help_text="1 for the best.")
    player = serializers.CharField()


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_retrieve",
        parameters=[OpenApiParameter("name", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses={200: PlayerProfileOut, 404: error("`not_found`: no such player")},
        summary="A player's ratings, reliability and games (public)")
    def get(self, request, name):
        user = User.objects.filter(username=normalize(name), is_active=True).first()
        if user is None:
            raise NotFound(_("No such player."))
        return Response(ratings.player_profile(user, catalog.ids()))


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboards_retrieve",
        parameters=[OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     description="A game's id.")],
        responses={200: paginated("PaginatedLeaderboard", LeaderboardRowOut),
                   404: error("`not_found`: no such game")},
        summary="A game's rated players, best first (by the conservative figure)")
    def get(self, request, game):
        if catalog.find_kit(game) is None:
            raise NotFound(_("No such game; the games are: %(games)s.") % {
                "games": ", ".join(catalog.ids())})
        paginator = Pagination()
        page = paginator.paginate_queryset(ratings.leaderboard(game), request, view=self)
        first = 1 + (paginator.page.number - 1) * paginator.page.paginator.per_page
        return paginator.get_paginated_response(ratings.leaderboard_rows(page, first))
