"""Site-wide views, wiring only: the health check, the favicon and the API's written contract
(the pages, the home page among them, are games.web's)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from games.live import streams

from .celery import app as celery_app

logger = logging.getLogger(__name__)


@require_GET
def api_contract(request, name: str = "README.md"):
    """The API's written contract, docs/api/*.md, as plain text (any browser shows it, nothing in
    it runs): README.md the entry, API.md the contract, a page per game."""
    pages = {page.name: page for page in (settings.BASE_DIR / "docs" / "api").glob("*.md")}
    if name not in pages:
        raise Http404(name)
    return HttpResponse(pages[name].read_text(encoding="utf-8"),
                        content_type="text/plain; charset=utf-8")


@require_GET
def favicon(request):
    """/favicon.ico, which browsers ask for whatever the page links: the site's SVG icon."""
    return HttpResponseRedirect(static("favicon.svg"))


def _check_database() -> str | None:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "down"; the reason goes to the log and the body
        logger.warning("health check: database unreachable: %s", exc)
        return f"{type(exc).__name__}: {exc}"
    return None


def _check_database_where_served(request) -> str | None:
    """The database as this process's requests read it: under ASGI (the stream server, which
    serves nothing but the streams and this check) through the streams' database threads, whose
    connections the streams read with (a thread of a request of its own would open a fresh one
    and say "ok" while theirs were dead); under WSGI (web) on the request's thread, as every
    page."""
    if isinstance(request, ASGIRequest):
        return async_to_sync(streams.in_db_threads(_check_database))()
    return _check_database()


def _check_broker(timeout: float = 2.0) -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2,
                                   interval_max=0.2, timeout=timeout)
            # ensure_connection alone may succeed lazily on some transports: open a channel.
            conn.default_channel  # noqa: B018
    except Exception as exc:
        logger.warning("health check: broker unreachable: %s", exc)
        return f"{type(exc).__name__}: {exc}"
    return None


def _check_redis(timeout: float = 1.0) -> str | None:
    """Redis (the cache and the throttles), when the settings use it."""
    if not settings.REDIS_URL:
        return None
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=timeout,
                             socket_timeout=timeout).ping()
    except Exception as exc:
        logger.warning("health check: Redis unreachable: %s", exc)
        return f"{type(exc).__name__}: {exc}"
    return None


@never_cache
@require_GET
def healthz(request):
    """200 with every component "ok", or 503 naming the one(s) that did not answer. With Redis
    down the pages and the API still work (the throttles let requests through, the outbox
    waits): the answer says which part is down."""
    checks = {"database": _check_database_where_served(request), "broker": _check_broker(),
              "redis": _check_redis()}
    body = {
        "status": "ok" if not any(checks.values()) else "unavailable",
        "database": "ok" if checks["database"] is None else "down",
        "broker": "ok" if checks["broker"] is None else "down",
        "redis": ("ok" if checks["redis"] is None else "down") if settings.REDIS_URL
        else "not used",
    }
    failing = [name for name, err in checks.items() if err]
    if failing:
        body["failing"] = failing
        body["errors"] = {name: checks[name] for name in failing}
    return JsonResponse(body, status=503 if failing else 200)
