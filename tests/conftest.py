"""Shared fixtures and the service markers.

``@pytest.mark.postgres`` tests need the database to be PostgreSQL, ``@pytest.mark.redis`` tests
need ``REDIS_URL``. Without them they skip with a message, except under ``REQUIRE_SERVICES=1``
(CI), where a missing service is a failure: CI must never pass by skipping them.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings


def _require_services() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false", "False")


def _missing(item: pytest.Item) -> str | None:
    if item.get_closest_marker("postgres"):
        from django.db import connection

        if connection.vendor != "postgresql":
            return "needs PostgreSQL: set DATABASE_URL=postgres://… (see README)"
    if item.get_closest_marker("redis") and not settings.REDIS_URL:
        return "needs Redis: set REDIS_URL=redis://… (see README)"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    reason = _missing(item)
    if reason is None:
        return
    if _require_services():
        pytest.fail(f"REQUIRE_SERVICES=1 but this test {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def eager_celery():
    """Celery tasks run in the test's own process, at once (``.delay`` included)."""
    from mascarade_site.celery import app as celery_app

    old = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = old


@pytest.fixture
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, then, before the test database is dropped, the connections that threads
    of the tests left open (a real worker's, the browser test's server) are closed: otherwise
    PostgreSQL refuses to drop it and pytest warns."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
