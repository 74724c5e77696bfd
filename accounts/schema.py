"""OpenAPI: the moderated authentication classes are the token and the session schemes."""

from __future__ import annotations

from drf_spectacular.authentication import SessionScheme, TokenScheme


class ModeratedTokenScheme(TokenScheme):
    target_class = "accounts.authentication.ModeratedTokenAuthentication"


class ModeratedSessionScheme(SessionScheme):
    target_class = "accounts.authentication.ModeratedSessionAuthentication"
