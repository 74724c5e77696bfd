from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "games.live"
    label = "games_live"
    verbose_name = "Live"

    def ready(self):
        from django.contrib.auth import get_user_model

        from games.live import push, subscribers  # noqa: F401 (the events' subscriptions)

        # A token revoked, an account suspended, a logout: the user's event streams check their
        # access again.
        push.connect(get_user_model())
