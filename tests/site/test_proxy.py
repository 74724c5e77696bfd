"""The compose file's proxy as it runs: ``docker/nginx.conf`` served by nginx (Debian's), its
template filled in as ``docker/prod_local.py`` fills it, its upstreams pointed at a stand-in
that holds every stream open. One client address holds at most
the ``limit_conn`` of the stream paths; past it, 429 with the API's error body and Retry-After,
while the other paths are not held back; a stream closed frees its place.

Needs nginx (``apt-get install nginx``; ``.ci/run`` installs it): skips without it, fails under
``REQUIRE_SERVICES=1``."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import socketserver
import subprocess
import threading
import time
from pathlib import Path

import pytest

from .servers import free_port, installed, listening, prod_local

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "docker" / "nginx.conf"


class _Upstream(socketserver.ThreadingTCPServer):
    """Answers a stream path with an open-ended event stream it holds until the client goes,
    anything else with a short 200."""

    daemon_threads = True
    allow_reuse_address = True

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                head += chunk
            path = head.split(b" ", 2)[1]
            if path.endswith(b"/stream/"):
                self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                     b"Connection: close\r\n\r\n: open\n\n")
                while self.request.recv(4096):
                    pass
            else:
                self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                                     b"Connection: close\r\n\r\nok")


@pytest.fixture
def proxy(tmp_path):
    """nginx on a free port with the compose file's config, both upstreams the stand-in:
    ``(port, streams' limit per address)``."""
    binary = installed("nginx")
    upstream = _Upstream(("127.0.0.1", 0), _Upstream.Handler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{upstream.server_address[1]}"
    port = free_port()
    conf = prod_local().render_template(CONF.read_text(), {
        "NGINX_LISTEN": f"127.0.0.1:{port}",
        "NGINX_WEB_SERVERS": f"server {address};",
        "NGINX_STREAM_SERVERS": f"server {address};",
    })
    (tmp_path / "default.conf").write_text(conf)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(f"{kind}_temp_path {tmp_path / kind};\n"
                   for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {tmp_path / 'nginx.pid'};\n"
        f"error_log {tmp_path / 'error.log'} warn;\n"
        "events { worker_connections 512; }\n"
        f"http {{\naccess_log off;\n{temp}include {tmp_path / 'default.conf'};\n}}\n")
    proc = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    listening(proc, port, seconds=20)
    stream_location = conf[conf.index("location ~ ^/api/v1/"):]
    stream_location = stream_location[:stream_location.index("}")]
    limit = re.search(r"limit_conn streams_per_address (\d+);", stream_location)
    assert limit, "no limit_conn on the stream paths"
    try:
        yield port, int(limit.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        upstream.shutdown()
        upstream.server_close()


def open_stream(port: int, path: str = "/api/v1/me/stream/"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Host": "localhost"})
    answer = conn.getresponse()
    if answer.status == 200:
        assert answer.readline() == b": open\n"
    return conn, answer


def test_the_proxy_caps_the_streams_of_one_address(proxy):
    port, limit = proxy
    held = [open_stream(port, f"/api/v1/games/{k}/stream/" if k % 2 else "/api/v1/me/stream/")
            for k in range(limit)]
    try:
        assert {answer.status for _conn, answer in held} == {200}
        conn, refused = open_stream(port)
        assert refused.status == 429 and refused.getheader("Retry-After") == "10"
        assert json.loads(refused.read())["code"] == "throttled"
        conn.close()
        # The other paths are not held back.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/healthz", headers={"Host": "localhost"})
        assert conn.getresponse().status == 200
        conn.close()
        # A stream closed frees its place (once nginx has seen it go).
        first, _answer = held.pop(0)
        first.sock.shutdown(socket.SHUT_RDWR)
        first.close()
        for _ in range(50):
            conn, again = open_stream(port)
            if again.status == 200:
                held.append((conn, again))
                break
            conn.close()
            time.sleep(0.1)
        assert again.status == 200
    finally:
        for conn, _answer in held:
            conn.close()
