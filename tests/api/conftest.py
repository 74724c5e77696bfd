"""API test settings: no throttling unless a test asks, Celery tasks run eagerly. (The ``users``
and ``clients`` fixtures are :mod:`tests.plugin`'s, for the games' own API tests too.)"""

from __future__ import annotations

import pytest

from tests.plugin import HIGH


@pytest.fixture(autouse=True)
def _fast_passwords(fast_passwords):
    return fast_passwords


@pytest.fixture(autouse=True)
def _no_throttling(settings):
    rates = {"user": HIGH, "anon": HIGH, "auth": HIGH}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture(autouse=True)
def _eager_celery(eager_celery):
    return eager_celery
