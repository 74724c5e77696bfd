"""The ratings' tests use the site's test settings (tasks run at once, throttles off)."""

import pytest


@pytest.fixture(autouse=True)
def _site(site_test_settings):
    yield
