from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _test_settings(fast_passwords, eager_celery):
    return None


@pytest.fixture(autouse=True)
def _no_api_throttling(settings):
    """The pages' tests that read the API are not about its throttles (tests/api tests those):
    without Redis the throttles count in a cache that lives for the whole run."""
    from tests.api.conftest import HIGH

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        "user": HIGH, "anon": HIGH, "auth": HIGH}}
