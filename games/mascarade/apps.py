from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MascaradeConfig(AppConfig):
    """Mascarade's package as a Django application: its templates, and its kit registered in
    ``games.core.catalog`` once the applications are loaded."""

    name = "games.mascarade"
    label = "mascarade"
    verbose_name = _("Mascarade")

    def ready(self):
        from games.core import catalog

        from .kit import KIT

        catalog.register(KIT)
