from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from tests.api.factories import UserFactory


@pytest.fixture(autouse=True)
def _test_settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    rates = {"user": "100000/minute", "anon": "100000/minute", "auth": "100000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.fixture
def moderator(db):
    user = UserFactory(is_staff=True)
    user.groups.add(Group.objects.get(name="Moderators"))
    return user
