"""The switches of the site's performance tricks, so that a bench can show what each one buys.

Each trick below uses only public extension points of Django, DRF, psycopg or Celery (or the
public API of the library it concerns: django-csp's middleware, redis-py's client), and each
can be switched off with ``PERF_OFF`` (a comma-separated list of names, in the environment or in
``settings.PERF_OFF``; read again when ``override_settings`` changes it or :func:`switch` sets
it): ``bench/api_cpu.py`` switches them one at a time in the same process and prints CPU and
statements per request with each on and off.

=================  ==========================================================================
``prepared``       the hot reads compiled once (:class:`mascarade_site.prepared.PreparedQuery`)
``read_together``  a game's seats and pending decisions read in one statement
                   (:func:`mascarade_site.prepared.read_together`); off, one each
``lock_together``  a write's lock of the game taken in the statement that reads its seats and
                   pending decisions (:func:`mascarade_site.prepared.lock_together`, in
                   ``open_table``); off, the lock, then the read
``fast_models``    the prepared reads' model instances made by setting their fields, where that
                   is what ``from_db`` does (:func:`mascarade_site.prepared._maker`), and a
                   move's new rows where that is what ``__init__`` does
                   (:func:`mascarade_site.prepared.new_instance`); off, ``from_db`` and
                   ``__init__``
``writes``         the hot writes built once per shape (``insert_rows``, ``update_row``,
                   ``delete_rows`` in :mod:`mascarade_site.prepared`), a move's sent as one
                   statement (``write_together``); off, the ORM's own, one by one
``fast_params``    the values those writes insert and update taken as they are where their
                   fields' conversions would give them back unchanged (a ``str`` for a
                   ``CharField``, an ``int`` for a key...: ``_write_params`` in
                   :mod:`mascarade_site.prepared`); off, each through its field's ``pre_save``
                   and ``get_db_prep_save``
``health``         the connection's health check by a look at its socket
                   (:mod:`mascarade_site.postgres`); off, Django's ``SELECT 1``
``timestamptz``    ``timestamptz`` values read by psycopg's own loader, in C (the
                   PostgreSQL backend, :mod:`mascarade_site.postgres`); off, Django's, in Python
``plain_move``     the usual body of a move (a ``move`` object, an ``expected_seq`` integer or
                   none) taken without building DRF's serializer (``MoveIn.plain`` in
                   ``games/api/serializers.py``); off, the serializer always
``csp_once``       the Content-Security-Policy header built once per process, not for each
                   response (``mascarade_site.middleware.CSPMiddleware``); off, django-csp's
                   own way
``locale_path``    no look-up of a language in the path where no URL has one
                   (``mascarade_site.middleware.LocaleMiddleware``); off, Django's two a request
``lazy_messages``  the pages' message storages made when a request first uses them
                   (``mascarade_site.messages``); off, for every request, as Django does
``conneg_once``    the API's choice of a renderer kept by the ``Accept`` header, the format
                   and the renderers (``games/api/negotiation.py``); off, DRF's for each request
``lua_throttle``   the API throttles in one Redis round trip (``games/api/throttling.py``);
                   off, DRF's read-then-write of the cache
``redis_single``   each thread's own Redis client with one connection, for the throttles and
                   the push messages (:mod:`mascarade_site.redis_clients`), a change's push
                   messages published by one script; off, a client shared by the process, its
                   connections in a pool, the messages in a pipeline
``gc_freeze``      long-lived objects of web and worker processes left out of the garbage
                   collector's walks (:mod:`mascarade_site.memory`)
``stream_inline``  a stream's step that needs no database (a decision told with its legal
                   moves) run on the stream server's event loop (``UserStream.quick`` in
                   :mod:`games.live.streams`); off, on the streams' database threads like any step
=================  ==========================================================================
"""

from __future__ import annotations

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

#: The tricks of a request, which ``bench/api_cpu.py`` switches one by one (``stream_inline``, the
#: stream server's, is switched for a whole run: ``PERF_OFF=stream_inline bench/api.py --push``).
TRICKS = ("prepared", "fast_models", "read_together", "lock_together", "writes", "fast_params",
          "health", "timestamptz", "plain_move", "csp_once", "locale_path", "lazy_messages",
          "conneg_once", "lua_throttle", "redis_single", "gc_freeze")


#: ``settings.PERF_OFF`` as last read (``None``: to read again). Read on every use, the setting
#: cost each of the tens of uses in a request a trip through ``LazySettings``.
_off: frozenset[str] | None = None


def on(name: str) -> bool:
    """Whether the trick ``name`` is switched on (the default)."""
    off = _off
    if off is None:
        off = _read()
    return name not in off


def _read() -> frozenset[str]:
    global _off
    _off = off = frozenset(settings.PERF_OFF)
    return off


def switch(off: frozenset[str]) -> None:
    """The tricks named in ``off`` off, the others on, from now on in this process (what
    ``bench/api_cpu.py`` calls between its stretches)."""
    global _off
    settings.PERF_OFF = frozenset(off)
    _off = None


@receiver(setting_changed, dispatch_uid="mascarade_site.perf")
def _setting_changed(setting: str, **kwargs) -> None:
    """``override_settings`` (and pytest-django's ``settings``) changed ``PERF_OFF``."""
    global _off
    if setting == "PERF_OFF":
        _off = None
