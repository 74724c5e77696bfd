from django.apps import AppConfig


class WebPushConfig(AppConfig):
    name = "games.webpush"
    label = "games_webpush"
    verbose_name = "Web Push"
