"""The site's game pages (``/games/…``, ``/rules/``, the emails' unsubscribe links)."""

from __future__ import annotations

from django.urls import path

from games.web import chat, create, lobby, push, rules_page, table, table_actions, unsubscribe
from games.web.players import leaderboard, leaderboards, player

urlpatterns = [
    path("games/", lobby.lobby, name="lobby"),
    path("games/new/", create.create, name="game-create"),
    path("games/new/check/", create.create_check, name="game-create-check"),
    path("games/<uuid:game_id>/", table.table, name="game"),
    path("games/<uuid:game_id>/live/", table.live, name="game-live"),
    path("games/<uuid:game_id>/move/", table_actions.move, name="game-move"),
    path("games/<uuid:game_id>/join/", table_actions.join, name="game-join"),
    path("games/<uuid:game_id>/leave/", table_actions.leave, name="game-leave"),
    path("games/<uuid:game_id>/rematch/", table_actions.rematch, name="game-rematch"),
    path("games/<uuid:game_id>/decline/", table_actions.decline, name="game-decline"),
    path("games/<uuid:game_id>/bots/", table_actions.bots, name="game-bots"),
    path("games/<uuid:game_id>/back/", table_actions.back, name="game-back"),
    path("games/<uuid:game_id>/pause/", table_actions.pause, name="game-pause"),
    path("games/<uuid:game_id>/mute/", table_actions.mute, name="game-mute"),
    path("games/<uuid:game_id>/report/", table_actions.report, name="game-report"),
    path("games/<uuid:game_id>/chat/", chat.chat, name="game-chat"),
    path("games/<uuid:game_id>/chat/mute/", chat.chat_mute, name="game-chat-mute"),
    path("games/<uuid:game_id>/chat/<int:message_id>/report/", chat.chat_report,
         name="game-chat-report"),
    path("rules/", rules_page.rules, name="rules"),
    path("players/<str:name>/", player, name="player"),
    path("leaderboards/", leaderboards, name="leaderboards"),
    path("leaderboards/<str:game>/", leaderboard, name="leaderboard"),
    path("notifications/unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
    # Web Push and the installable site: the service worker at the root (its scope: the site).
    path("sw.js", push.service_worker, name="service-worker"),
    path("manifest.webmanifest", push.manifest, name="manifest"),
    path("notifications/push/subscribe/", push.subscribe, name="push-subscribe"),
    path("notifications/push/not-now/", push.not_now, name="push-not-now"),
]
