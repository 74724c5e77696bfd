"""The REST API v1 (``shared/API.md``): views, serializers, errors, throttles, idempotency."""
