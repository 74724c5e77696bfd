"""A local HTTP endpoint for the webhook tests: it records every request it gets and answers as
the test says (a status, headers, a delay, or a trickle of bytes)."""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds before answering.
    delay: float = 0.0
    #: Send the status line, then one header line every this many seconds, forever.
    trickle: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: The TLS server name the client asked for (SNI), for a TLS receiver.
    server_name: str | None = None


class Receiver:
    """``ThreadingHTTPServer`` on 127.0.0.1 (a free port), in a thread; with ``tls``
    (``(certfile, keyfile)``), over TLS."""

    def __init__(self, tls: tuple[str, str] | None = None):
        self.requests: list[Received] = []
        self.answers: dict[str, Answer] = {}
        self.default = Answer()
        self.server_names: list[str | None] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                name = getattr(self.connection, "server_name_seen", None)
                receiver.requests.append(Received(self.command, self.path,
                                                  dict(self.headers.items()), body, name))
                answer = receiver.answers.get(self.path.split("?")[0], receiver.default)
                if answer.delay:
                    time.sleep(answer.delay)
                if answer.trickle:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    self.wfile.flush()
                    for _ in range(200):
                        time.sleep(answer.trickle)
                        try:
                            self.wfile.write(b"X-Slow: a\r\n")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"ok")

            do_POST = do_GET = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)

            def remember(sock, server_name, _context):
                sock.server_name_seen = server_name
                receiver.server_names.append(server_name)

            context.sni_callback = remember
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def posts(self, path: str | None = None) -> list[Received]:
        return [r for r in self.requests if path is None or r.path == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
