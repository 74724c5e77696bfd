from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("games/<uuid:id>/reports/", api.ReportsView.as_view(), name="api-game-reports"),
    path("moderation/games/<uuid:id>/pause/", api.PauseView.as_view()),
    path("moderation/games/<uuid:id>/resume/", api.ResumeView.as_view()),
    path("moderation/games/<uuid:id>/extend/", api.ExtendView.as_view()),
    path("moderation/games/<uuid:id>/timeout/", api.TimeoutView.as_view()),
    path("moderation/games/<uuid:id>/replace/", api.ReplaceView.as_view()),
    path("moderation/games/<uuid:id>/remove/", api.RemoveView.as_view()),
    path("moderation/games/<uuid:id>/abort/", api.AbortView.as_view()),
    path("moderation/games/<uuid:id>/full/", api.FullTableView.as_view()),
    path("moderation/users/<str:username>/suspend/", api.SuspendView.as_view()),
    path("moderation/users/<str:username>/ban/", api.BanView.as_view()),
    path("moderation/users/<str:username>/lift/", api.LiftView.as_view()),
]
