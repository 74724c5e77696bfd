from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShadowHouseConfig(AppConfig):
    """Shadow House Mascarade's package as a Django application: its templates, and its kit
    registered in ``games.core.catalog`` once the applications are loaded."""

    name = "games.shadow_house"
    label = "shadow_house"
    verbose_name = _("Shadow House Mascarade")

    def ready(self):
        from games.core import catalog

        from .kit import KIT

        catalog.register(KIT)
