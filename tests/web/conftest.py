from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _test_settings(fast_passwords, eager_celery):
    return None
