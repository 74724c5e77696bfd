"""OpenAPI post-processing: the uniform error answers every operation can give, and each game's
shapes (its options, moves, state and ``you``) from its kit (``games.core.kit.GameKit``)."""

from __future__ import annotations

import copy

from games.core import catalog

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


# --------------------------------------------------------------------------------------------
# The games' shapes

#: What ``state`` always has, whatever the game (API.md "The game as seen by a viewer").
STATE_ENVELOPE = {
    "type": "object",
    "required": ["phase", "awaiting", "seats", "winners"],
    "properties": {
        "phase": {"type": "string"},
        "awaiting": {"type": "array", "items": {
            "type": "object", "required": ["seat", "player", "decision", "deadline"],
            "properties": {"seat": {"type": "integer"}, "player": {"type": "string"},
                           "decision": {"type": "string"},
                           "timer": {"type": "string",
                                     "enum": ["move_timeout", "challenge_timeout"],
                                     "description": "the option that sets its deadline "
                                                    "(where the game says it)"},
                           "deadline": {"type": "string", "format": "date-time",
                                        "nullable": True}}}},
        "seats": {"type": "array", "items": {
            "type": "object", "required": ["seat", "player", "is_bot"],
            "properties": {"seat": {"type": "integer"}, "player": {"type": "string"},
                           "is_bot": {"type": "boolean"}}}},
        "winners": {"type": "array", "items": {"type": "integer"},
                    "description": "the winners' seats (empty while the game goes on)"},
    },
}
#: What ``you`` always has.
YOU_ENVELOPE = {
    "type": "object",
    "required": ["seat", "legal_moves"],
    "properties": {
        "seat": {"type": "integer"},
        "legal_moves": {"type": "array", "items": {"$ref": "#/components/schemas/Move"},
                        "description": "the moves you may send now, as `legal-moves` lists them "
                                       "(empty when nothing is awaited from you)"},
    },
}


def _pascal(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def _merge(envelope: dict, own: dict) -> dict:
    """The game's schema over the envelope: its properties win (they say more), the required
    keys of both hold."""
    out = copy.deepcopy(own)
    out.setdefault("type", "object")
    properties = copy.deepcopy(envelope["properties"])
    properties.update(copy.deepcopy(own.get("properties", {})))
    out["properties"] = properties
    out["required"] = list(dict.fromkeys([*envelope["required"], *own.get("required", [])]))
    return out


def add_game_schemas(result, generator, request, public):
    """Per game ``<Game>Options``, ``<Game>Move``, ``<Game>State`` and ``<Game>You``; ``Move``,
    ``GameState`` and ``GameYou``: any of the games'. A move's ``type`` is one every game
    knows of (a request's schema stays one for all games: the game refuses another's moves)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    states, yous, types = [], [], []
    for kit in catalog.kits():
        name = _pascal(kit.id)
        schemas[f"{name}Options"] = copy.deepcopy(kit.options_schema)
        schemas[f"{name}Move"] = copy.deepcopy(kit.move_schema)
        schemas[f"{name}State"] = _merge(STATE_ENVELOPE, kit.state_schema)
        schemas[f"{name}You"] = _merge(YOU_ENVELOPE, kit.you_schema)
        states.append({"$ref": f"#/components/schemas/{name}State"})
        yous.append({"$ref": f"#/components/schemas/{name}You"})
        move_types = kit.move_schema.get("properties", {}).get("type", {}).get("enum", [])
        types.extend(t for t in move_types if t not in types)
    schemas["Move"] = {
        "type": "object",
        "description": "A move exactly as the game's page under docs/api/ spells it, e.g. "
                       '{"type": "exchange", "target": 5, "swap": true} in Mascarade. GET '
                       "legal-moves lists the concrete moves the viewer may send now. Each "
                       "game's moves are a component (`MascaradeMove`...).",
        "required": ["type"],
        "properties": {"type": {"type": "string", "enum": types}},
        "additionalProperties": True,
    }
    schemas["GameState"] = {"anyOf": states, "description": "one schema per game"}
    schemas["GameYou"] = {"anyOf": yous, "description": "one schema per game"}
    return result


# --------------------------------------------------------------------------------------------
# The event streams (plain Django views, games.api.streams: described here)

STREAM_DESCRIPTION = (
    "Server-Sent Events (`text/event-stream`), held open: what each message says is in "
    "[docs/api/README.md](/api/docs/contract/README.md), \"Event streams\". A heartbeat comment "
    "comes every 15 s; a viewer who loses access gets `event: error` and the stream ends.")


def _stream_operation(operation_id: str, tag: str, summary: str, parameters: list,
                      security: list, extra: dict, events: list[str]) -> dict:
    return {
        "operationId": operation_id, "tags": [tag], "summary": summary,
        "description": STREAM_DESCRIPTION, "parameters": parameters, "security": security,
        "responses": {
            "200": {"description": "the stream",
                    "content": {"text/event-stream": {"schema": {
                        "type": "object",
                        "description": "one message (`data` is JSON text)",
                        "properties": {"event": {"type": "string", "enum": events},
                                       "data": {"type": "string"},
                                       "id": {"type": "string"},
                                       "retry": {"type": "integer"}}}}}},
            **extra,
        },
    }


def add_stream_paths(result, generator, request, public):
    """``GET /api/v1/games/{id}/stream/`` and ``GET /api/v1/me/stream/``."""
    paths = result.setdefault("paths", {})
    cursor = {"type": "integer", "minimum": 0, "maximum": 2147483647}
    paths["/api/v1/games/{id}/stream/"] = {"get": _stream_operation(
        "games_stream", "games", "The viewer's events of this game as they are committed",
        [{"in": "path", "name": "id", "required": True,
          "schema": {"type": "string", "format": "uuid"}},
         {"in": "query", "name": "after", "schema": cursor,
          "description": "the last seq the client has (a browser's EventSource sends "
                         "Last-Event-ID instead); without it, the stream starts now"},
         {"in": "header", "name": "Last-Event-ID", "schema": cursor,
          "description": "the `id:` of the last message received: the stream resumes after it"}],
        [{"tokenAuth": []}, {"cookieAuth": []}, {}],
        {"204": {"description": "the game is over and the cursor has everything: nothing more "
                                "will come (an EventSource does not reconnect)"},
         "400": {"description": "`invalid`: the cursor is not a seq, or is past the game's "
                                "last seq (no stream sent it)"},
         "404": {"description": "`not_found`: no such game, or a private game of others"}},
        ["move", "game", "end", "chat", "you", "error"])}
    paths["/api/v1/me/stream/"] = {"get": _stream_operation(
        "me_stream", "me", "The decisions awaiting you, and your games' starts and ends, "
        "across all your games", [], [{"tokenAuth": []}, {"cookieAuth": []}], {},
        ["decision", "game_started", "game_ended", "error"])}
    return result


# --------------------------------------------------------------------------------------------
# Nullable references, as OpenAPI 3.0.3 reads them

#: What a nullable reference may be instead: ``null``.
NULL = {"type": "object", "nullable": True, "enum": [None]}


def nullable_references(result, generator, request, public):
    """drf-spectacular writes a reference that may be null (``allow_null``) as ``{"allOf":
    [{"$ref": ...}], "nullable": true}``; under OpenAPI 3.0.3, ``nullable`` means something only
    beside a ``type``, so a strict validator (openapi-core) or a client generated from the
    schema refuses the ``null`` the server sends (drf-spectacular's issue 925). Written instead
    as ``oneOf`` the reference or :data:`NULL`, as the specification's clarification of
    ``nullable`` advises; for the same reason, a nullable ``enum`` lists ``null``."""

    def visit(node):
        if isinstance(node, list):
            for item in node:
                visit(item)
        elif isinstance(node, dict):
            if (node.get("nullable") is True and "type" not in node
                    and len(node.get("allOf", ())) == 1):
                del node["nullable"]
                node["oneOf"] = [node.pop("allOf")[0], copy.deepcopy(NULL)]
            if node.get("nullable") is True and isinstance(node.get("enum"), list) \
                    and None not in node["enum"]:
                node["enum"] = [*node["enum"], None]
            for value in node.values():
                visit(value)

    visit(result)
    return result
