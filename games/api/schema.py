"""OpenAPI post-processing: the uniform error answers every operation can give."""

from __future__ import annotations

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "detail"],
    "properties": {
        "code": {"type": "string"},
        "detail": {"type": "string"},
        "fields": {"type": "object",
                   "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "field": {"type": "string"},
        "seq": {"type": "integer"},
        "rule_code": {"type": "string"},
        "retry_after": {"type": "integer"},
    },
    "additionalProperties": True,
}

COMMON = {
    "400": "`invalid` (see `fields`): a malformed request",
    "401": "`not_authenticated`: a missing or wrong token where one is needed",
    "403": "`forbidden`: not allowed (or a CSRF failure with the session cookie)",
    "404": "`not_found`",
    "405": "`method_not_allowed`",
    "415": "`unsupported_media_type`: send JSON",
    "429": "`throttled`: see the `Retry-After` header",
}
BODYLESS = {"415"}


def add_error_responses(result, generator, request, public):
    """Every operation documents the errors any request may meet, with the Error body."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            responses = operation.setdefault("responses", {})
            for status, text in COMMON.items():
                if status in BODYLESS and method == "get":
                    continue
                responses.setdefault(status, {
                    "description": text,
                    "content": {"application/json": {"schema": ERROR_REF}},
                })
            if "429" in responses:
                responses["429"].setdefault("headers", {"Retry-After": {
                    "description": "seconds to wait", "schema": {"type": "integer"}}})
    return result
