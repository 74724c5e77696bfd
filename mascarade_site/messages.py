"""The pages' one-time messages (``django.contrib.messages``) stored as Django's default storage
stores them, its two storages made when a request first uses them.

Django's ``FallbackStorage`` makes a cookie storage (and its signer) and a session storage for
every request, when the middleware starts it, though most requests (every API request, every
page without a message) neither read nor write one: its end then touches neither. Here they are
made on first use: what is stored and read, where, is Django's. ``PERF_OFF=lazy_messages``
makes them at once, as Django does (``bench/api_cpu.py`` and ``bench/api_instr.py`` compare).
``MESSAGE_STORAGE`` names it in the settings.
"""

from __future__ import annotations

from django.contrib.messages.storage.base import BaseStorage
from django.contrib.messages.storage.fallback import FallbackStorage
from django.utils.functional import cached_property

from mascarade_site import perf


class LazyFallbackStorage(FallbackStorage):
    """Django's ``FallbackStorage``, whose ``storages`` are made when first needed."""

    def __init__(self, request, *args, **kwargs):
        if not perf.on("lazy_messages"):
            super().__init__(request, *args, **kwargs)
            return
        BaseStorage.__init__(self, request, *args, **kwargs)
        self._made_with = (request, *args), kwargs
        self._used_storages = set()

    @cached_property
    def storages(self) -> list[BaseStorage]:
        args, kwargs = self._made_with
        return [storage_class(*args, **kwargs) for storage_class in self.storage_classes]
