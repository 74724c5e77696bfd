from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "games.webhooks"
    label = "games_webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        from games.webhooks import outbox  # noqa: F401 (its functions subscribe to the events)
