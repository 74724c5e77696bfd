"""API test settings: no throttling unless a test asks, Celery tasks run eagerly."""

from __future__ import annotations

import pytest

from .factories import UserFactory, client_for

HIGH = "1000000/minute"


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


@pytest.fixture
def users(db):
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def clients(users):
    return [client_for(u) for u in users]
