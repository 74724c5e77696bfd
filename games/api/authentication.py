"""API authentication: tokens (django-rest-knox's: a user may hold several, stored as digests,
each revocable) and the session, both refusing suspended and banned accounts with a clear 403.

The header is ``Authorization: Token <token>`` as API.md says. A token is found by its first
characters (knox's ``token_key``, read by a prepared query: every API request reads it) and
checked against its digest. Tokens end when their user revokes them (``/api/v1/me/tokens/``), and
all of a user's tokens end when the password changes or is reset (``games.api.tokens``).
"""

from __future__ import annotations

import binascii
from hmac import compare_digest

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.authentication import SessionScheme, TokenScheme
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication

from games.core.errors import Forbidden


def _check(result):
    if result is not None:
        user, _auth = result
        reason = user.blocked_reason()
        if reason:
            raise Forbidden(reason)
    return result


class ModeratedTokenAuthentication(TokenAuthentication):
    #: The header's word (knox's AUTH_HEADER_PREFIX, named as DRF's own class names it, which the
    #: OpenAPI scheme reads).
    keyword = "Token"

    def authenticate(self, request):
        return _check(super().authenticate(request))

    def authenticate_credentials(self, token: bytes):
        """As knox's, with the candidates' users read with them; an expired token is refused
        (and deleted), an inactive user too."""
        invalid = _("Invalid token.")
        try:
            text = token.decode("utf-8")
            digest = hash_token(text)
        except (UnicodeDecodeError, TypeError, ValueError, binascii.Error) as exc:
            raise exceptions.AuthenticationFailed(invalid) from exc
        for auth_token in AuthToken.objects.select_related("user").filter(
                token_key=text[:CONSTANTS.TOKEN_KEY_LENGTH]):
            if not compare_digest(digest, auth_token.digest):
                continue
            if auth_token.expiry is not None and auth_token.expiry < timezone.now():
                auth_token.delete()
                break
            if not auth_token.user.is_active:
                raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
            return auth_token.user, auth_token
        raise exceptions.AuthenticationFailed(invalid)


class ModeratedSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        return _check(super().authenticate(request))


# OpenAPI: the moderated classes are a token scheme ("Token <token>") and DRF's session scheme
# (drf-spectacular finds these extensions once this module is imported, which DRF's settings
# do).


class ModeratedTokenScheme(TokenScheme):
    target_class = ModeratedTokenAuthentication


class ModeratedSessionScheme(SessionScheme):
    target_class = ModeratedSessionAuthentication
