"""API tokens: made at login, listed and revoked by their user, all revoked when the password
changes or is reset (by the user, by a reset link, or by a superuser in the admin).

The revocation hangs on the user's row: whatever path sets a new password (allauth's change and
reset forms, the admin, ``manage.py changepassword``) ends by saving the user, and a saved user
whose stored password differs from the one in the database loses every token. Connected in
:meth:`games.apps.GamesConfig.ready`.
"""

from __future__ import annotations

from django.db.models.signals import pre_save
from knox.models import AuthToken

#: Tokens one user may hold; making one more ends the oldest.
TOKENS_PER_USER = 20


def new_token(user) -> tuple[AuthToken, str]:
    """A new token for ``user`` (no expiry: it lasts until revoked); the oldest beyond
    :data:`TOKENS_PER_USER` are revoked. Returns the row and the token (shown once)."""
    row, token = AuthToken.objects.create(user, expiry=None)
    old = list(AuthToken.objects.filter(user=user).order_by("-created", "-digest")
               .values_list("digest", flat=True)[TOKENS_PER_USER:])
    if old:
        AuthToken.objects.filter(digest__in=old).delete()
    return row, token


def revoke_all(user) -> int:
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted


def _password_changed(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    """Before a user is saved: if the password is written and differs from the stored one,
    every token of theirs goes."""
    if raw or instance.pk is None:
        return
    if update_fields is not None and "password" not in update_fields:
        return
    stored = type(instance)._default_manager.filter(pk=instance.pk).values_list(
        "password", flat=True).first()
    if stored is not None and stored != instance.password:
        revoke_all(instance)


def connect(user_model) -> None:
    pre_save.connect(_password_changed, sender=user_model,
                     dispatch_uid="games.api.tokens.password_changed")
