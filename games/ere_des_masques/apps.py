from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EreDesMasquesConfig(AppConfig):
    """L'Ère des Masques's package as a Django application: its templates, and its kit registered
    in ``games.core.catalog`` once the applications are loaded."""

    name = "games.ere_des_masques"
    label = "ere_des_masques"
    verbose_name = _("L'Ère des Masques")

    def ready(self):
        from games.core import catalog

        from .kit import KIT

        catalog.register(KIT)
