"""The test suite's own pytest plugin, loaded for every run wherever its tests are (``tests/`` and
each game's ``games/<game>/tests/``): pyproject's ``addopts`` says ``-p tests.plugin``, so that a
run of one game's tests alone has it too (``tests/conftest.py`` only reaches ``tests/``).

- The service markers: ``@pytest.mark.postgres`` tests need the database to be PostgreSQL,
  ``@pytest.mark.redis`` tests need ``REDIS_URL``. Without them they skip with a message, except
  under ``REQUIRE_SERVICES=1`` (CI), where a missing service is a failure: CI must never pass by
  skipping them.
- The profiles, chosen by ``HYPOTHESIS_PROFILE`` (pytest's header names the one in use):

  - ``dev`` (the default, ``make test``): 30 examples per hypothesis test (one example of a
    rules' property test is one whole game), and the parametrisations marked
    ``@pytest.mark.thorough`` (the longest ones) left out;
  - ``thorough`` (CI, ``.ci/run``): 500 examples per test, every parametrisation;
  - ``exhaustive``: a long run by hand, at least 10,000 examples per test, every parametrisation::

        HYPOTHESIS_PROFILE=exhaustive .venv/bin/python -m pytest games/*/tests/test_properties.py

  A test's own ``@settings(max_examples=...)`` keeps its number. A test reads the profile with
  :func:`thorough`, for its own sizes (games per case...).
- Parallel runs (pytest-xdist): each worker gets a Redis database of its own (``REDIS_URL``'s
  database + 1 + the worker's number), so that one worker's ``cache.clear()`` (a FLUSHDB), its
  published messages and its Celery queues are not another's; PostgreSQL test databases are
  already one per worker (pytest-django), and the tests' servers listen on ports from the OS.
- The figures of the rules' property tests (:func:`game_stats`), summed over the workers and
  printed at the end of the run.
- The fixtures shared by every test folder: ``eager_celery``, ``fast_passwords``,
  ``site_test_settings`` (the two, and the API's throttles out of the way), ``users`` and
  ``clients``; and, for every test, decision mails due at once (``_mail_due_at_once``).

Nothing here imports Django's models at import time: the plugin is imported before Django is set
up.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# --- Redis: a database per xdist worker ---------------------------------------------------------
# Done at import, before pytest-django sets Django up (the settings read REDIS_URL once); the
# processes the tests start inherit it.

#: Redis's default number of databases is 16; 15 is left to the tests that name "another" one.
_REDIS_DATABASES = 15


def _redis_url_for_worker(url: str, worker: str) -> str:
    number = int(re.sub(r"\D", "", worker) or 0)
    match = re.match(r"^(rediss?://[^/]*)(?:/(\d*))?(\?.*)?$", url)
    if not match:
        return url
    base, database, query = match.group(1), int(match.group(2) or 0), match.group(3) or ""
    database += 1 + number
    if database >= _REDIS_DATABASES:
        raise pytest.UsageError(
            f"xdist worker {worker} would use Redis database {database}: run fewer workers "
            f"(-n N, --maxprocesses N) or point REDIS_URL at a lower database")
    return f"{base}/{database}{query}"


if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_URL"] = _redis_url_for_worker(os.environ["REDIS_URL"],
                                                    os.environ["PYTEST_XDIST_WORKER"])

# --- Hypothesis profiles ------------------------------------------------------------------------

PROFILES = {"dev": 30, "thorough": 500, "exhaustive": 10_000}
DEFAULT_PROFILE = "dev"

for _name, _examples in PROFILES.items():
    hypothesis_settings.register_profile(
        _name,
        max_examples=_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )


def profile() -> str:
    """The profile of this run: ``HYPOTHESIS_PROFILE``, ``dev`` when unset."""
    return os.environ.get("HYPOTHESIS_PROFILE") or DEFAULT_PROFILE


def thorough() -> bool:
    """Whether this run is CI's (``thorough``) or longer: the longest parametrisations and
    sizes run in full."""
    return profile() != DEFAULT_PROFILE


if profile() not in PROFILES:
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE={profile()!r}: the profiles are "
                            f"{', '.join(PROFILES)}")
hypothesis_settings.load_profile(profile())

# --- Services -----------------------------------------------------------------------------------


def _require_services() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false", "False")


def _missing(item: pytest.Item) -> str | None:
    if item.get_closest_marker("postgres"):
        from django.db import connection

        if connection.vendor != "postgresql":
            return "needs PostgreSQL: set DATABASE_URL=postgres://… (see README)"
    if item.get_closest_marker("redis"):
        from django.conf import settings

        if not settings.REDIS_URL:
            return "needs Redis: set REDIS_URL=redis://… (see README)"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    reason = _missing(item)
    if reason is None:
        return
    if _require_services():
        pytest.fail(f"REQUIRE_SERVICES=1 but this test {reason}", pytrace=False)
    pytest.skip(reason)


# --- The profile: header, and the thorough parametrisations -------------------------------------


def pytest_report_header(config: pytest.Config) -> str:
    left_out = "" if thorough() else "; tests marked thorough left out"
    return (f"profile: {profile()} ({hypothesis_settings.default.max_examples} hypothesis "
            f"examples per test{left_out}; HYPOTHESIS_PROFILE=thorough runs CI's)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if thorough():
        return
    kept, left = [], []
    for item in items:
        (left if item.get_closest_marker("thorough") else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


# --- Figures of the property tests, over the xdist workers --------------------------------------

_GAME_STATS: dict[str, dict[str, float]] = defaultdict(
    lambda: {"games": 0, "moves": 0, "failed": 0, "seconds": 0.0})


def game_stats(game_id: str) -> dict[str, float]:
    """The counters a game's property test fills: games played, moves applied, games that failed,
    seconds in games; printed at the end of the run."""
    return _GAME_STATS[game_id]


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: its figures go to the controller
        workeroutput["game_stats"] = {game: dict(stats) for game, stats in _GAME_STATS.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    for game, stats in (getattr(node, "workeroutput", None) or {}).get("game_stats", {}).items():
        for key, value in stats.items():
            _GAME_STATS[game][key] += value


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    for game, stats in sorted(_GAME_STATS.items()):
        if stats["games"]:
            terminalreporter.write_line(
                f"{game} property games ({hypothesis_settings.default.max_examples} examples "
                f"per test, profile {profile()}): {int(stats['games'])} games, "
                f"{int(stats['moves'])} moves, {int(stats['failed'])} failed, "
                f"{stats['seconds']:.1f} s in games")


# --- Shared fixtures ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _language_restored():
    """A French page activates French in the test's thread (Django's LocaleMiddleware does not
    put it back): the default language again after each test, so that no later test reads
    French by accident, whatever order xdist runs them in."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _mail_due_at_once():
    """Decision mails and the answers to mails are due at once in the tests (a debounce of 0:
    a test delivers what a move wrote without moving the clock, and an eager task, which runs
    before its eta, finds it due); the tests of their pace set ``MAIL_DEBOUNCE_SECONDS``
    themselves (``tests/api/test_mail_pace.py``, ``tests/site/test_mail_worker.py``)."""
    from django.test import override_settings

    with override_settings(MAIL_DEBOUNCE_SECONDS=0):
        yield


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


#: The API's throttle rates when a test is not about them.
HIGH = "1000000/minute"


@pytest.fixture
def site_test_settings(settings, fast_passwords, eager_celery):
    """The site as its tests use it (``tests/api``'s, ``tests/web``'s, a game's own): fast
    passwords, Celery tasks run eagerly, and the API's throttles out of the way (without Redis
    they count in a cache that lives for the whole run; ``tests/api`` tests them)."""
    rates = {"user": HIGH, "anon": HIGH, "auth": HIGH}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture
def users(db):
    from tests.api.factories import UserFactory

    return [UserFactory() for _ in range(4)]


@pytest.fixture
def clients(users):
    from tests.api.factories import client_for

    return [client_for(u) for u in users]


class _TestDatabase:
    """pytest-django's ``django_db_setup``, then, before the test database is dropped, the
    connections that threads of the tests left open (a real worker's, the browser test's server)
    are closed: otherwise PostgreSQL refuses to drop it and pytest warns.

    Registered in :func:`pytest_configure`, after pytest-django (which setuptools loads after
    this plugin), so that this fixture is the one that overrides pytest-django's."""

    @pytest.fixture(scope="session")
    def django_db_setup(self, django_db_setup, django_db_blocker):
        yield
        from django.db import connection

        if connection.vendor != "postgresql":
            return
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_TestDatabase(), "tests-database")
