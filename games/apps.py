from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from django.contrib.auth import get_user_model

        from games.api import tokens
        from games.core.services import ratings, scheduling  # noqa: F401 (events' subscribers)

        # A new password (changed, reset, set by a superuser) revokes the user's API tokens.
        tokens.connect(get_user_model())
