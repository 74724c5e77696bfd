"""The site's game pages (``/games/…``, ``/rules/``)."""

from __future__ import annotations

from django.urls import path

from games.web import views as web

urlpatterns = [
    path("games/", web.lobby, name="lobby"),
    path("games/new/", web.create, name="game-create"),
    path("games/new/check/", web.create_check, name="game-create-check"),
    path("games/<uuid:game_id>/", web.table, name="game"),
    path("games/<uuid:game_id>/live/", web.live, name="game-live"),
    path("games/<uuid:game_id>/move/", web.move, name="game-move"),
    path("games/<uuid:game_id>/join/", web.join, name="game-join"),
    path("games/<uuid:game_id>/leave/", web.leave, name="game-leave"),
    path("games/<uuid:game_id>/bots/", web.bots, name="game-bots"),
    path("games/<uuid:game_id>/back/", web.back, name="game-back"),
    path("games/<uuid:game_id>/pause/", web.pause, name="game-pause"),
    path("games/<uuid:game_id>/mute/", web.mute, name="game-mute"),
    path("games/<uuid:game_id>/report/", web.report, name="game-report"),
    path("games/<uuid:game_id>/chat/", web.chat, name="game-chat"),
    path("games/<uuid:game_id>/chat/mute/", web.chat_mute, name="game-chat-mute"),
    path("games/<uuid:game_id>/chat/<int:message_id>/report/", web.chat_report,
         name="game-chat-report"),
    path("rules/", web.rules, name="rules"),
    path("notifications/unsubscribe/<str:token>/", web.unsubscribe, name="unsubscribe"),
]
