"""The game's tests that use the site run as the site's own tests do (tests.plugin's
``site_test_settings``: fast passwords, Celery tasks run eagerly, the API's throttles out of the
way); its rules' tests do not notice."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _site_test_settings(site_test_settings):
    return site_test_settings
