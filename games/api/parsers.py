"""The API's JSON parser: orjson, with bounds a client cannot push the server past.

A body is read up to :data:`MAX_BODY` bytes (a longer one is refused with 413 before it is
parsed; the size limit middleware refuses one whose ``Content-Length`` says so before anything
is read), and a document nested deeper than :data:`MAX_DEPTH` is refused with 400: no move,
option or request of the contract nests more than a few levels, and a deeper one would only
make hashing (``Idempotency-Key``) and validation recurse.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError

#: Levels of arrays and objects a JSON body may nest.
MAX_DEPTH = 32


class TooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def max_body() -> int:
    return settings.API_MAX_BODY_BYTES


def depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests at most ``limit`` levels of lists and dicts (iteratively)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > limit:
            return False
        stack.extend((child, level + 1) for child in children
                     if isinstance(child, (dict, list)))
    return True


class BoundedJSONParser(ORJSONParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        limit = max_body()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise TooLarge(f"The body is larger than {limit} bytes.")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if not depth_ok(data):
            raise ParseError(f"The JSON body nests more than {MAX_DEPTH} levels.")
        return data
