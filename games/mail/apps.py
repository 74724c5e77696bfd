from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "games.mail"
    label = "games_mail"
    verbose_name = "Play by mail"

    def ready(self):
        from games.mail import providers

        # Inbound mail posted by a provider's webhook (django-anymail) goes to the mail service.
        providers.connect()
