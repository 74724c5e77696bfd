"""API test settings: no throttling unless a test asks, Celery tasks run eagerly."""

from __future__ import annotations

import pytest

from mascarade_site.celery import app as celery_app

from .factories import UserFactory, client_for

HIGH = "1000000/minute"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_throttling(settings):
    rates = {"user": HIGH, "anon": HIGH, "auth": HIGH}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture(autouse=True)
def _eager_celery():
    old = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = old


@pytest.fixture
def users(db):
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def clients(users):
    return [client_for(u) for u in users]
