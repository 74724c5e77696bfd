"""Uniform error bodies: ``{"code": "<machine_code>", "detail": "<sentence>", ...}``.

Every error the API gives goes through :func:`exception_handler` (DRF views) or the JSON handlers
below (paths under ``/api/`` that no view matched, and server errors): the one place where the
services' refusals (:mod:`games.core.errors`), the rules' (``games.engine``) and DRF's own become
the
contract's status codes and bodies.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response

from games.core.errors import (
    ApplicationError,
    Conflict,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    RateLimited,
)
from games.engine import (
    EngineError,
    IllegalMove,
    InvalidOptions,
    MalformedMove,
    NotYourDecision,
)

logger = logging.getLogger(__name__)


#: The status of each domain error (the most specific class first).
STATUSES: list[tuple[type[ApplicationError], int]] = [
    (RateLimited, status.HTTP_429_TOO_MANY_REQUESTS),
    (IdempotencyConflict, status.HTTP_422_UNPROCESSABLE_ENTITY),
    (Forbidden, status.HTTP_403_FORBIDDEN),
    (NotFound, status.HTTP_404_NOT_FOUND),
    (Conflict, status.HTTP_409_CONFLICT),
    (ApplicationError, status.HTTP_400_BAD_REQUEST),
]


def domain_error(exc: ApplicationError) -> tuple[int, dict[str, Any]]:
    """The status and body of a service's refusal."""
    code = next(code for cls, code in STATUSES if isinstance(exc, cls))
    return code, exc.as_dict()


def engine_error(exc: EngineError) -> tuple[int, dict[str, Any]]:
    """The status and body of a refusal of the rules (API.md "Conventions")."""
    if isinstance(exc, NotYourDecision):
        return 403, {"code": "not_your_decision", "detail": exc.message, "rule_code": exc.code}
    if isinstance(exc, MalformedMove):
        return 400, {"code": "invalid", "detail": f"The move is malformed: {exc.message}",
                     "fields": {"move": [exc.message]}, "rule_code": exc.code}
    if isinstance(exc, IllegalMove):  # GameOver included
        return 400, {"code": "illegal_move", "detail": exc.message, "rule_code": exc.code}
    if isinstance(exc, InvalidOptions):
        body: dict[str, Any] = {"code": "invalid_options", "detail": exc.message,
                                "rule_code": exc.code}
        if exc.field:
            body["field"] = exc.field
        return 400, body
    return 400, {"code": "invalid", "detail": exc.message, "fields": {}, "rule_code": exc.code}


def _flatten(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        out: list[str] = []
        for key, value in detail.items():
            out.extend(f"{key}: {m}" for m in _flatten(value))
        return out
    if isinstance(detail, list):
        out = []
        for item in detail:
            out.extend(_flatten(item))
        return out
    return [str(detail)]


def _fields(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        return {str(key): _flatten(value) for key, value in detail.items()}
    return {"non_field_errors": _flatten(detail)}


_SIMPLE = {
    exceptions.NotAuthenticated: ("not_authenticated", None),
    exceptions.AuthenticationFailed: ("not_authenticated", None),
    exceptions.PermissionDenied: ("forbidden", None),
    exceptions.NotFound: ("not_found", "Not found."),
    exceptions.MethodNotAllowed: ("method_not_allowed", None),
    exceptions.NotAcceptable: ("not_acceptable", None),
    exceptions.UnsupportedMediaType: ("unsupported_media_type", None),
}


def error_body(exc: Exception) -> tuple[int, dict[str, Any], dict[str, str]]:
    """``(status, body, headers)`` for an exception a DRF view raised; 500 for the unexpected."""
    headers: dict[str, str] = {}
    if isinstance(exc, EngineError):
        return (*engine_error(exc), headers)
    if isinstance(exc, Http404):
        exc = NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = Forbidden()
    if isinstance(exc, ApplicationError):
        if isinstance(exc, RateLimited):
            headers["Retry-After"] = str(exc.retry_after)
        return (*domain_error(exc), headers)
    if isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait) + 1 if exc.wait is not None else 1
        headers["Retry-After"] = str(wait)
        return 429, {"code": "throttled",
                     "detail": f"Too many requests: try again in {wait} second(s).",
                     "retry_after": wait}, headers
    if isinstance(exc, exceptions.ValidationError):
        return 400, {"code": "invalid", "detail": "The request is not valid: see `fields`.",
                     "fields": _fields(exc.detail)}, headers
    if isinstance(exc, exceptions.ParseError):
        return 400, {"code": "invalid", "detail": str(exc.detail),
                     "fields": {"non_field_errors": [str(exc.detail)]}}, headers
    for cls, (code, detail) in _SIMPLE.items():
        if isinstance(exc, cls):
            auth_header = getattr(exc, "auth_header", None)
            if auth_header:
                headers["WWW-Authenticate"] = auth_header
            return exc.status_code, {"code": code, "detail": detail or str(exc.detail)}, headers
    if isinstance(exc, exceptions.APIException):
        return exc.status_code, {"code": str(exc.default_code), "detail": str(exc.detail)}, headers
    logger.exception("API server error", exc_info=exc)
    return 500, {"code": "server_error",
                 "detail": "The server failed to answer; this is a bug and it was logged."}, headers


def exception_handler(exc: Exception, context: dict) -> Response:
    status_code, body, headers = error_body(exc)
    response = Response(body, status=status_code, headers=headers)
    if status_code == 429 or status_code >= 500:
        response["Cache-Control"] = "no-store"
    return response


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


@csrf_exempt
def api_not_found(request, *args, **kwargs) -> JsonResponse:
    """Any path under /api/ that no route matched."""
    return JsonResponse({"code": "not_found",
                         "detail": f"No API endpoint at {request.path} (paths end with a slash; "
                                   f"see /api/docs/)."}, status=404)


def handler404(request, exception=None):
    if _is_api(request):
        return JsonResponse({"code": "not_found", "detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if _is_api(request):
        return JsonResponse({"code": "server_error",
                             "detail": "The server failed to answer; this is a bug and it was "
                                       "logged."}, status=500)
    return defaults.server_error(request)
