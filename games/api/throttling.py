"""Per-user and anonymous throttles whose rates are read at each request.

The rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (from ``API_THROTTLE_*`` in the
environment, see the README); DRF's own classes read them once at import, these read them through
``api_settings`` so that a settings change (tests) applies at once.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class _LiveRates:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class UserThrottle(_LiveRates, UserRateThrottle):
    """Authenticated clients, per user."""

    scope = "user"


class AnonThrottle(_LiveRates, AnonRateThrottle):
    """Anonymous clients (spectators), per IP address."""

    scope = "anon"


class AuthThrottle(_LiveRates, SimpleRateThrottle):
    """Registration and token login, per IP address whoever asks (slows password guessing)."""

    scope = "auth"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
