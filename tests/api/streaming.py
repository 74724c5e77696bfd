"""A stream server for the tests (uvicorn serving the site's ASGI application in a thread of the
test process, on its test database) and a small Server-Sent Events reader."""

from __future__ import annotations

import contextlib
import http.client
import queue
import socket
import threading
import time

import orjson


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def asgi_server():
    """uvicorn on a free port of 127.0.0.1 (as the compose file runs it); yields the port."""
    import uvicorn

    from mascarade_site.asgi import application

    port = free_port()
    config = uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="off", loop="asyncio", http="h11")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the stream server did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


class Message(dict):
    """One message: ``event``, ``id``, ``data`` (parsed JSON)."""


class EventStream:
    """A client of one stream: ``status``, then :meth:`next` message by message."""

    def __init__(self, port: int, path: str, token: str | None = None,
                 headers: dict | None = None, timeout: float = 10.0):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        sent = {"Accept": "text/event-stream", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        self.connection.request("GET", path, headers=sent)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.comments: list[str] = []
        self.retry: int | None = None
        self.ended = False

    def json(self) -> dict:
        return orjson.loads(self.response.read())

    def next(self, deadline: float | None = None) -> Message | None:
        """The next message (``None`` once the stream ended); comments and ``retry:`` noted.
        With a ``deadline`` (``time.monotonic()``), an AssertionError once it is past (the
        heartbeats would otherwise keep the wait alive for ever)."""
        message = Message()
        data: list[str] = []
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise AssertionError("no message before the deadline (heartbeats only)")
            raw = self.response.readline()
            if not raw:
                self.ended = True
                return None
            line = raw.decode().rstrip("\n")
            if line == "":
                if data or "event" in message:
                    if data:
                        message["data"] = orjson.loads("\n".join(data))
                    message.setdefault("event", "message")
                    return message
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _colon, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "retry":
                self.retry = int(value)
            elif name in ("event", "id"):
                message[name] = value

    def until(self, test, limit: int = 500, seconds: float = 60.0) -> list[Message]:
        """Messages up to and including the first for which ``test`` is true, within
        ``seconds``."""
        seen = []
        deadline = time.monotonic() + seconds
        for _ in range(limit):
            message = self.next(deadline)
            if message is None:
                raise AssertionError(f"the stream ended before the awaited message: {seen}")
            seen.append(message)
            if test(message):
                return seen
        raise AssertionError(f"no awaited message in {limit}: {seen[-5:]}")

    def close(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # (no socket: the stream ended)
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def collect(stream: EventStream, seconds: float, keep_busy=None,
            until=None) -> list[Message]:
    """The messages of ``stream`` within ``seconds`` (read by a thread of their own, so that
    ``keep_busy()`` is called every 0.3 s meanwhile), up to the first for which ``until`` is
    true if given; ``{"event": "<closed>"}`` last if the stream ended."""
    found: queue.Queue = getattr(stream, "_collected", None) or queue.Queue()
    if getattr(stream, "_collected", None) is None:
        stream._collected = found

        def read() -> None:
            while True:
                try:
                    message = stream.next()
                except Exception:  # (closed under it)
                    message = None
                found.put(message if message is not None else Message(event="<closed>"))
                if message is None:
                    return

        threading.Thread(target=read, daemon=True).start()
    out: list[Message] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if keep_busy is not None:
            keep_busy()
        try:
            message = found.get(timeout=0.3)
        except queue.Empty:
            continue
        out.append(message)
        if message["event"] == "<closed>" or (until is not None and until(message)):
            break
    return out
