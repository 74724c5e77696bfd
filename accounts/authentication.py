"""API authentication that refuses suspended and banned accounts with a clear 403."""

from __future__ import annotations

from rest_framework.authentication import SessionAuthentication, TokenAuthentication

from games.api.errors import Forbidden


def _check(result):
    if result is not None:
        user, _auth = result
        reason = user.blocked_reason()
        if reason:
            raise Forbidden(reason)
    return result


class ModeratedTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        return _check(super().authenticate(request))


class ModeratedSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        return _check(super().authenticate(request))
