"""The ratings' rows: a player's rating in each game, the change each rated game made to it
(the player page's chart), and the figures of their reliability.

A :class:`Rating` is the model's belief about a player's skill at one game (OpenSkill's
Plackett-Luce: ``mu`` and its uncertainty ``sigma``), kept with its ``ordinal`` (``mu − 3σ``, the
figure the leaderboards sort by). Ratings are derived data: ``manage.py recompute_ratings``
rebuilds them all from the finished games (:mod:`games.ratings.services`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game


class Rating(models.Model):
    """One player's rating at one game (``kind``: the game's id)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="ratings")
    kind = models.CharField(_("game"), max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma: what is shown (scaled, games.ratings.skill.shown) and sorted by.
    ordinal = models.FloatField()
    # Rated games played (the rating is provisional below skill.PROVISIONAL_GAMES).
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"],
                                               name="rating_unique_user_kind")]
        indexes = [models.Index(fields=["kind", "-ordinal", "user"],
                                name="rating_leaderboard")]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")

    def __str__(self) -> str:
        return f"{self.user_id} at {self.kind}: {self.ordinal:.2f}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating: before and after, and their place."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    kind = models.CharField(max_length=32)
    # The player's place in the game among the rated players, 1 the first (ties share one).
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    # The game's end.
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"],
                                               name="rating_change_unique_game_user")]
        indexes = [models.Index(fields=["user", "kind", "at"], name="rating_change_history")]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: {self.ordinal:.2f}"


class Tally(models.Model):
    """How many games of one game (``kind``) a player finished, and how many rated ones they
    won (finished first among the rated players): counted when each game ends (the subscriber
    that rates it), rebuilt by ``manage.py recompute_ratings``, so that a player's page reads
    one row a game whatever the number they played."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    kind = models.CharField(_("game"), max_length=32)
    finished = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"],
                                               name="tally_unique_user_kind")]
        verbose_name = _("games tally")
        verbose_name_plural = _("games tallies")

    def __str__(self) -> str:
        return f"{self.user_id} at {self.kind}: {self.finished} finished, {self.won} won"


class Reliability(models.Model):
    """A player's reliability figures over the 90 days before ``as_of`` (a UTC day), as
    :func:`games.ratings.reliability.measure` counts them; refreshed every day
    (``games.tasks.refresh_reliability``) and read with every seat."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                primary_key=True, related_name="reliability")
    as_of = models.DateField()
    # Decisions counted (vacation days left out) and those the player answered in time.
    decisions = models.PositiveIntegerField(default=0)
    answered = models.PositiveIntegerField(default=0)
    # The share answered, in percent (rounded down); null without any decision counted.
    percent = models.PositiveSmallIntegerField(null=True, blank=True)
    # Games the player was removed from (their seat given to someone else) or left (the game
    # ended with them marked absent).
    removed = models.PositiveIntegerField(default=0)
    left = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("reliability")
        verbose_name_plural = _("reliabilities")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.percent}% as of {self.as_of}"
