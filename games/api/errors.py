"""Uniform error bodies: ``{"code": "<machine_code>", "detail": "<sentence>", ...}``.

Every error the API gives goes through :func:`exception_handler` (DRF views) or the JSON handlers
below (paths under ``/api/`` that no view matched, and server errors).
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

from games.engine import (
    EngineError,
    IllegalMove,
    InvalidOptions,
    MalformedMove,
    NotYourDecision,
)

logger = logging.getLogger(__name__)


class APIError(exceptions.APIException):
    """An error with a machine ``code`` from API.md and extra body fields."""

    status_code = status.HTTP_400_BAD_REQUEST
    code = "invalid"
    default_detail = "The request is not valid."

    def __init__(self, detail: str | None = None, *, code: str | None = None,
                 status_code: int | None = None, **extra: Any) -> None:
        self.detail_text = detail or self.default_detail
        super().__init__(self.detail_text)
        if code:
            self.code = code
        if status_code:
            self.status_code = status_code
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.detail_text, **self.extra}


class Invalid(APIError):
    def __init__(self, fields: dict[str, list[str]], detail: str | None = None, **extra):
        super().__init__(detail or "The request is not valid: see `fields`.", fields=fields,
                         **extra)


class Forbidden(APIError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "forbidden"
    default_detail = "You are not allowed to do this."


class NotFound(APIError):
    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"
    default_detail = "Not found."


class Conflict(APIError):
    status_code = status.HTTP_409_CONFLICT


class StaleSeq(Conflict):
    code = "stale_seq"

    def __init__(self, seq: int):
        super().__init__(f"The game is at seq {seq}, not at the expected_seq you sent: read it "
                         f"again and decide on the current position.", seq=seq)


class GameNotActive(Conflict):
    code = "game_not_active"


class GameFull(Conflict):
    code = "game_full"
    default_detail = "Every seat of this game is taken."


class AlreadySeated(Conflict):
    code = "already_seated"
    default_detail = "You already have a seat in this game."


class IdempotencyConflict(APIError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    code = "idempotency_conflict"
    default_detail = ("This Idempotency-Key was already used with a different request in the "
                      "last 24 hours; use a new key for a new request.")


class InvalidCredentials(APIError):
    code = "invalid_credentials"
    default_detail = "Unable to log in with this username and password."


def engine_error(exc: EngineError) -> APIError:
    """Map an engine error to its API error (see API.md "Conventions")."""
    if isinstance(exc, NotYourDecision):
        return APIError(exc.message, code="not_your_decision", status_code=403,
                        rule_code=exc.code)
    if isinstance(exc, MalformedMove):
        return Invalid({"move": [exc.message]}, detail=f"The move is malformed: {exc.message}",
                       rule_code=exc.code)
    if isinstance(exc, IllegalMove):  # GameOver included
        return APIError(exc.message, code="illegal_move", rule_code=exc.code)
    if isinstance(exc, InvalidOptions):
        extra: dict[str, Any] = {"rule_code": exc.code}
        if exc.field:
            extra["field"] = exc.field
        return APIError(exc.message, code="invalid_options", **extra)
    return APIError(exc.message, code="invalid", fields={}, rule_code=exc.code)


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
    if isinstance(exc, EngineError):
        exc = engine_error(exc)
    if isinstance(exc, Http404):
        exc = NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = Forbidden()
    headers: dict[str, str] = {}
    if isinstance(exc, APIError):
        return exc.status_code, exc.body(), headers
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
