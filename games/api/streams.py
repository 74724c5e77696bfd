"""The event streams' HTTP end: ``GET /api/v1/games/{id}/stream/`` and ``GET
/api/v1/me/stream/`` (Server-Sent Events; what they send: :mod:`games.live.streams`).

Plain Django views (async: under ASGI a stream holds no thread while it waits), authenticated
as the rest of the API: ``Authorization: Token <token>`` (the same check as every API request,
:class:`~games.api.authentication.ModeratedTokenAuthentication`) or the session (the pages).
Errors before the stream starts are the API's ``{"code", "detail"}``; a viewer who loses their
access while it runs gets ``event: error`` and the stream ends.

``Last-Event-ID`` (what a browser's ``EventSource`` sends when it reconnects), or ``?after=<seq>``,
sets the game stream's cursor; without either, it starts at the game's current seq.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.crypto import constant_time_compare
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions

from games.api.authentication import ModeratedTokenAuthentication
from games.api.throttling import client_address
from games.core import selectors
from games.live import streams

#: The largest seq a cursor may name (the column's range).
MAX_SEQ = 2_147_483_647

#: Streams open in this process: per account (its id; a cap: ``STREAM_MAX_PER_USER``), and the
#: anonymous ones per client address (``("address", address)``: ``STREAM_MAX_PER_ADDRESS``).
_open: Counter = Counter()
_open_lock = threading.Lock()


def _error(status: int, code: str, detail: str, **headers) -> JsonResponse:
    response = JsonResponse({"code": code, "detail": str(detail)}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _token_user(token: bytes):
    """``(user, None)``, or ``(None or user, (code, detail))`` when the token may not read."""
    try:
        user, _auth = ModeratedTokenAuthentication().authenticate_credentials(token)
    except exceptions.AuthenticationFailed as exc:
        return None, ("not_authenticated", str(exc.detail))
    reason = user.blocked_reason()
    return user, (("forbidden", reason) if reason else None)


def _session_check(session_key: str | None, user_id):
    """What checks a session's access: ``(user, None)``, or ``(None or user, (code,
    detail))`` when it may not read."""
    engine = import_string(settings.SESSION_ENGINE)

    def check():
        if session_key is None:
            return None, ("not_authenticated", _("You are logged out."))
        session = engine.SessionStore(session_key)
        user = get_user_model().objects.filter(pk=user_id).first()
        if (user is None or not user.is_active or session.get(SESSION_KEY) != str(user_id)
                or not constant_time_compare(session.get(HASH_SESSION_KEY, ""),
                                             user.get_session_auth_hash())):
            return None, ("not_authenticated", _("You are logged out."))
        reason = user.blocked_reason()
        return user, (("forbidden", reason) if reason else None)

    return check


def _kept(user, check) -> streams.Viewer:
    """The viewer ``user``, whose access ``check`` (``() -> (user, refusal)``) reads again,
    keeping the account as it reads now."""
    viewer = streams.Viewer(user)

    def again():
        fresh, refusal = check()
        if fresh is not None:
            viewer.user = fresh
        return refusal

    viewer.check = again
    return viewer


def _in_db(request, func):
    """``func`` made awaitable for its reads: under ASGI on the streams' database threads
    (:func:`games.live.streams.in_db_threads`); under WSGI on the request's own thread and
    connection (Django runs this async view there), as every other view's reads."""
    if isinstance(request, ASGIRequest):
        return streams.in_db_threads(func)
    return sync_to_async(func)


async def _viewer(request) -> streams.Viewer | JsonResponse:
    """Who reads, with the check of their access; or the error answer."""
    header = request.headers.get("Authorization", "")
    if header:
        parts = header.split()
        if len(parts) != 2 or parts[0].lower() != "token":
            return _error(401, "not_authenticated",
                          _("Invalid token header: use \"Authorization: Token <token>\"."),
                          WWW_Authenticate="Token")
        token = parts[1].encode()
        user, refusal = await _in_db(request, _token_user)(token)
        if refusal:
            return _error(401 if refusal[0] == "not_authenticated" else 403, *refusal)
        return _kept(user, lambda: _token_user(token))
    user = await request.auser()
    if not user.is_authenticated:
        return streams.Viewer(user)
    check = _session_check(request.session.session_key, user.pk)
    _user, refusal = await _in_db(request, check)()
    if refusal:
        return _error(401 if refusal[0] == "not_authenticated" else 403, *refusal)
    return _kept(user, check)


def _key(request, viewer: streams.Viewer):
    """What a stream counts against: its account, or for an anonymous viewer the client's
    address, as the API's throttles tell it (:func:`games.api.throttling.client_address`)."""
    if viewer.user.is_authenticated:
        return viewer.user.pk
    return ("address", client_address(request))


def _refusal(user_key) -> JsonResponse | None:
    """The 429 for a stream over its account's or its address's cap, else ``None``."""
    if isinstance(user_key, tuple):
        cap = int(getattr(settings, "STREAM_MAX_PER_ADDRESS", 10))
        message = _("Too many streams open from your address without an account (at most "
                    "%(count)d): close one first, or log in.")
    else:
        cap = int(getattr(settings, "STREAM_MAX_PER_USER", 20))
        message = _("Too many streams open for this account (at most %(count)d): close "
                    "one first.")
    if _open[user_key] < cap:
        return None
    # (a stream's slot is free as soon as one of them closes: 10 s is a fair wait)
    return _error(429, "throttled", message % {"count": cap}, Retry_After="10")


async def _respond(request, stream, user_key) -> StreamingHttpResponse | JsonResponse:
    refused = _refusal(user_key)
    if refused is not None:
        return refused
    slot = None
    if isinstance(request, ASGIRequest):
        # The slot taken now, before anything awaits: streams opened at once cannot all pass
        # the check above. Given back when the stream ends, or when the answer is closed
        # without its body ever being read (the client gone at once).
        slot = _Slot(user_key)
        try:
            # What the middleware read (the session, the user) was read on this request's own
            # thread, whose connection would otherwise stay open as long as the stream: closed
            # now (the stream's own reads share the streams' threads).
            await sync_to_async(connections.close_all)()
        except BaseException:
            slot.release()
            raise
        body = _counted(streams.async_stream(stream), slot)
    else:
        body = streams.sync_stream(stream)
    response = _StreamResponse(body, content_type="text/event-stream; charset=utf-8")
    response.slot = slot
    response["Cache-Control"] = "no-cache, no-transform"
    # nginx: pass each message on at once.
    response["X-Accel-Buffering"] = "no"
    return response


class _Slot:
    """One open stream of an account, or of an anonymous client address, in :data:`_open`,
    given back once."""

    def __init__(self, user_key):
        self.user_key = user_key
        self.held = True
        with _open_lock:
            _open[user_key] += 1

    def release(self) -> None:
        # (from the event loop when the stream ends, from a thread when its answer is closed)
        with _open_lock:
            if self.held:
                self.held = False
                _open[self.user_key] -= 1
                if _open[self.user_key] <= 0:
                    del _open[self.user_key]


class _StreamResponse(StreamingHttpResponse):
    """A stream's answer, whose slot is given back when it is closed (Django's handlers close
    every answer), even if its body was never read."""

    slot: _Slot | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.slot is not None:
                self.slot.release()


async def _counted(body: AsyncIterator[bytes], slot: _Slot) -> AsyncIterator[bytes]:
    try:
        async for chunk in body:
            yield chunk
    finally:
        slot.release()


def _after(request) -> int | JsonResponse | None:
    """The cursor: ``Last-Event-ID`` (what an EventSource sends when it comes back), else
    ``?after=``; either, when given, must be a seq."""
    found = None
    for raw in (request.GET.get("after"), request.headers.get("Last-Event-ID")):
        if raw in (None, ""):
            continue
        try:
            value = int(raw)
        except ValueError:
            value = -1
        if not 0 <= value <= MAX_SEQ:
            return _error(400, "invalid", _("Last-Event-ID (or ?after=) must be a seq: a whole "
                                            "number, 0 or more."))
        found = value
    return found


async def _opened(request) -> streams.Viewer | JsonResponse:
    """Who asks for a stream, or the answer that refuses it: ``405`` for any method but GET,
    else :func:`_viewer`'s."""
    if request.method != "GET":
        return _error(405, "method_not_allowed",
                      _("Method \"%(method)s\" not allowed.") % {"method": request.method},
                      Allow="GET")
    return await _viewer(request)


@csrf_exempt  # (GET only, and a token or the session: no state changes here)
async def game_stream(request, id):
    """``GET /api/v1/games/{id}/stream/``: the viewer's events of this game as they commit."""
    viewer = await _opened(request)
    if isinstance(viewer, JsonResponse):
        return viewer
    after = _after(request)
    if isinstance(after, JsonResponse):
        return after

    def visible():
        game = selectors.find_game(id)
        if game is None or not selectors.can_see(game, selectors.seats_of(game), viewer.user):
            return None
        return game

    game = await _in_db(request, visible)()
    if game is None:
        return _error(404, "not_found", _("No such game."))
    if after is not None and after > game.seq:
        # (no stream ever sent such an id: waiting for the game to reach it would skip the
        # moves in between)
        return _error(400, "invalid", _("Last-Event-ID (or ?after=) is past this game's last "
                                        "seq, %(seq)d.") % {"seq": game.seq})
    if game.status in streams.OVER and after is not None and after >= game.seq:
        # Over, and everything sent: 204 tells an EventSource not to come back.
        return HttpResponse(status=204)
    return await _respond(request, streams.GameStream(viewer, id, after), _key(request, viewer))


@csrf_exempt
async def my_stream(request):
    """``GET /api/v1/me/stream/``: the decisions awaiting the viewer, their games' starts and
    ends, across all their games."""
    viewer = await _opened(request)
    if isinstance(viewer, JsonResponse):
        return viewer
    if not viewer.user.is_authenticated:
        return _error(401, "not_authenticated",
                      _("Authentication credentials were not provided."),
                      WWW_Authenticate="Token")
    return await _respond(request, streams.UserStream(viewer), viewer.user.pk)
