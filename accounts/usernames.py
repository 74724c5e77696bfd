"""Usernames that cannot pass for someone else's.

Django already stores a username in its NFKC form (``AbstractBaseUser.normalize_username``:
``ｂｏｂ`` becomes ``bob``) and compares them without case here. What remains is a name that mixes
alphabets to imitate another: ``аlice`` with a Cyrillic ``а``. :class:`UsernameValidator`, the
``username`` field's validator (so the API's registration, allauth's sign-up and the admin all
apply it), refuses a name in which letters of several scripts could be confused with one another
(the Unicode confusables, through ``confusable_homoglyphs``).
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import confusables
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _


def normalize(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


@deconstructible
class UsernameValidator(UnicodeUsernameValidator):
    """Django's (letters, digits and @/./+/-/_), and no letters of several alphabets that could
    pass for one another."""

    def __call__(self, value):
        super().__call__(value)
        if confusables.is_dangerous(normalize(str(value))):
            raise ValidationError(
                _("This name mixes letters of several alphabets that look alike (such as a "
                  "Cyrillic “а” among Latin letters): choose one that cannot pass for "
                  "another."), code="confusable")
