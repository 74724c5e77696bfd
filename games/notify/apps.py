from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "games.notify"
    label = "games_notify"
    verbose_name = "Notifications"

    def ready(self):
        from games.notify import subscribers  # noqa: F401 (the events' subscriptions)
