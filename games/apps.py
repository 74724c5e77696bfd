from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from django.contrib.auth import get_user_model

        from games.api import tokens
        from games.live import push
        from games.mail import providers as mail_webhooks

        # A new password (changed, reset, set by a superuser) revokes the user's API tokens.
        tokens.connect(get_user_model())
        # Inbound mail posted by a provider's webhook (django-anymail) goes to the mail service.
        mail_webhooks.connect()
        # A token revoked, an account suspended, a logout: the user's event streams check their
        # access again.
        push.connect(get_user_model())
