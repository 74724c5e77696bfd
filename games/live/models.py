"""Who has a table open in a live page right now (:mod:`games.live.presence`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TableWatch(models.Model):
    """``user`` had ``game``'s table open in a live page (its event stream, or its polling)
    until ``until``: each heartbeat of the stream moves it on, so that it lapses soon after the
    page closes. Push notifications are not sent about a game its player is watching."""

    # No index of its own: table_watch_unique (user, game) serves it.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+", db_index=False)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    until = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"],
                                               name="table_watch_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} watches {self.game_id} until {self.until}"
