"""Routes of API v1 (``/api/v1/``)."""

from __future__ import annotations

from django.urls import path

from . import chat, moderation, streams, views
from .accounts import (
    MeView,
    MyTokensView,
    MyTokenView,
    RegisterView,
    TokenView,
    VacationDetailView,
    VacationsView,
)

urlpatterns = [
    # The hottest first (no two of these routes match the same path: their order is free).
    path("games/<uuid:id>/", views.GameDetailView.as_view(), name="api-game"),
    path("games/<uuid:id>/moves/", views.MovesView.as_view(), name="api-game-moves"),
    path("auth/register/", RegisterView.as_view(), name="api-register"),
    path("auth/token/", TokenView.as_view(), name="api-token"),
    path("me/", MeView.as_view(), name="api-me"),
    path("me/tokens/", MyTokensView.as_view(), name="api-my-tokens"),
    path("me/tokens/<str:id>/", MyTokenView.as_view(), name="api-my-token"),
    path("me/vacations/", VacationsView.as_view(), name="api-my-vacations"),
    path("me/vacations/<int:id>/", VacationDetailView.as_view(), name="api-my-vacation"),
    path("me/games/", views.MyGamesView.as_view(), name="api-my-games"),
    path("games/", views.GamesView.as_view(), name="api-games"),
    path("games/<uuid:id>/join/", views.JoinView.as_view(), name="api-game-join"),
    path("games/<uuid:id>/leave/", views.LeaveView.as_view(), name="api-game-leave"),
    path("games/<uuid:id>/bots/", views.BotsView.as_view(), name="api-game-bots"),
    path("games/<uuid:id>/legal-moves/", views.LegalMovesView.as_view(),
         name="api-game-legal-moves"),
    path("games/<uuid:id>/back/", views.BackView.as_view(), name="api-game-back"),
    path("games/<uuid:id>/pause/", views.PauseView.as_view(), name="api-game-pause"),
    path("games/<uuid:id>/mute/", views.MuteView.as_view(), name="api-game-mute"),
    path("games/<uuid:id>/events/", views.EventsView.as_view(), name="api-game-events"),
    path("games/<uuid:id>/stream/", streams.game_stream, name="api-game-stream"),
    path("me/stream/", streams.my_stream, name="api-my-stream"),
    path("games/<uuid:id>/reports/", moderation.ReportsView.as_view(), name="api-game-reports"),
    path("games/<uuid:id>/chat/", chat.ChatView.as_view(), name="api-game-chat"),
    path("games/<uuid:id>/chat/<int:message_id>/report/", chat.ChatReportView.as_view(),
         name="api-game-chat-report"),
    path("me/chat-mutes/", chat.MyChatMutesView.as_view(), name="api-my-chat-mutes"),
    path("me/chat-mutes/<str:username>/", chat.MyChatMuteView.as_view(),
         name="api-my-chat-mute"),
    path("moderation/games/<uuid:id>/pause/", moderation.PauseView.as_view()),
    path("moderation/games/<uuid:id>/resume/", moderation.ResumeView.as_view()),
    path("moderation/games/<uuid:id>/extend/", moderation.ExtendView.as_view()),
    path("moderation/games/<uuid:id>/timeout/", moderation.TimeoutView.as_view()),
    path("moderation/games/<uuid:id>/replace/", moderation.ReplaceView.as_view()),
    path("moderation/games/<uuid:id>/remove/", moderation.RemoveView.as_view()),
    path("moderation/games/<uuid:id>/abort/", moderation.AbortView.as_view()),
    path("moderation/games/<uuid:id>/full/", moderation.FullTableView.as_view()),
    path("moderation/users/<str:username>/suspend/", moderation.SuspendView.as_view()),
    path("moderation/users/<str:username>/ban/", moderation.BanView.as_view()),
    path("moderation/users/<str:username>/lift/", moderation.LiftView.as_view()),
    path("moderation/reports/", moderation.ModerationReportsView.as_view()),
    path("moderation/reports/<int:id>/", moderation.ModerationReportView.as_view()),
    path("moderation/chat/<int:message_id>/hide/", moderation.HideMessageView.as_view()),
]
