from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    """The ratings' rows and reads (the write path rates each finished game:
    ``games.core.services.ratings``)."""

    name = "games.ratings"
    label = "games_ratings"
    verbose_name = _("Ratings")
