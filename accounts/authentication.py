"""API authentication that refuses suspended and banned accounts with a clear 403."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token

from games.api.errors import Forbidden
from mascarade_site.prepared import PreparedQuery

# Every API request reads its token: compiled once (mascarade_site.prepared).
_TOKEN = PreparedQuery(lambda key: Token.objects.select_related("user").filter(key=key), str)


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

    def authenticate_credentials(self, key):
        """As DRF's, with the token read by a prepared query."""
        found = _TOKEN(key)
        if not found:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token = found[0]
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)


class ModeratedSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        return _check(super().authenticate(request))
