from tests.api.conftest import _eager_celery, _fast_passwords, _no_throttling  # noqa: F401
