from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "games.notify"
    label = "games_notify"
    verbose_name = "Notifications"

    def ready(self):
        from games.notify import outbox  # noqa: F401 (its functions subscribe to the events)
