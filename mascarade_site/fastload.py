"""Model instances read from the database without ``Model.__init__``, where that changes nothing.

Every row the ORM reads becomes an instance through ``Model.from_db``, which calls
``Model.__init__``: two signals sent (``pre_init``, ``post_init``), then one ``setattr`` per
field, through the field's descriptor. On this project's hot paths (a game, its seats and their
users, read for every API request) that is about a tenth of a request's CPU. Django documents
``from_db`` as the place to customise loading; :class:`FastLoad`'s ``from_db`` builds the same
instance directly (a ``ModelState`` marked as loaded from ``db``, then each field's value in the
instance's ``__dict__``), when doing so is exactly what ``__init__`` would have done:

- the row has every concrete field (no ``only()`` / ``defer()``: deferred fields take Django's
  way);
- nobody listens to ``pre_init`` or ``post_init`` (checked at each call: a receiver connected
  later is honoured);
- the model defines no ``__init__`` of its own and each concrete field's attribute on the class
  is Django's plain ``DeferredAttribute`` or ``ForeignKeyDeferredAttribute`` (whose ``__set__``
  on a new instance only stores the value), checked once per model.

``tests/site/test_fastload.py`` compares the instances with those of Django's ``from_db``.
"""

from __future__ import annotations

import inspect

from django.db import models
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

_PLAIN = (DeferredAttribute, ForeignKeyDeferredAttribute)


def _fit(cls) -> tuple[tuple[str, ...], bool] | None:
    """The attnames of ``cls``'s concrete fields in order, and whether one is a foreign key, if
    its instances may skip ``__init__``; else ``None``."""
    if cls.__init__ is not models.Model.__init__:
        return None
    attnames, foreign = [], False
    for field in cls._meta.concrete_fields:
        kind = type(inspect.getattr_static(cls, field.attname, None))
        if kind not in _PLAIN:
            return None
        attnames.append(field.attname)
        foreign = foreign or kind is ForeignKeyDeferredAttribute
    return tuple(attnames), foreign


class FastLoad:
    """Mixin for a model (before ``models.Model`` among its bases): see the module's text."""

    @classmethod
    def from_db(cls, db, field_names, values):
        fit = cls.__dict__.get("_fastload")
        if fit is None:
            fit = _fit(cls) or ((), False)
            cls._fastload = fit  # (on this very class, not inherited)
        attnames, foreign = fit
        if (not attnames or len(values) != len(attnames) or pre_init.receivers
                or post_init.receivers):
            return super().from_db(db, field_names, values)
        new = cls.__new__(cls)
        state = new._state = ModelState()
        if foreign:  # (a foreign key's __set__ makes the related objects' cache: so here)
            state.fields_cache = {}
        state.adding = False
        state.db = db
        new.__dict__.update(zip(attnames, values, strict=True))
        return new
