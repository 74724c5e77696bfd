"""A push service for the tests of Web Push (RFC 8030), on 127.0.0.1: it takes the posts a
device's subscription names, keeps each (path, headers, body), and answers with the status set
for its path (201 by default). And a device: a real P-256 key pair and auth secret
(``cryptography``), whose subscription the site posts to, which decrypts what it receives
(``http_ece``, RFC 8291's ``aes128gcm``) and checks its VAPID signature (RFC 8292)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """Started with :meth:`start` (a thread), stopped with :meth:`stop`."""

    received: list[Received] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    server: ThreadingHTTPServer | None = None

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                service.received.append(Received(self.path, {
                    k.lower(): v for k, v in self.headers.items()}, body))
                status = service.answers.get(self.path, 201)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


class Device:
    """A browser's push subscription made with real keys."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint,
                             "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        """The payload of a push (RFC 8291: ``aes128gcm``, the sender's key in its header)."""
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                           version="aes128gcm"))


def vapid_claims(authorization: str, public_key: str) -> dict:
    """The claims of a push's VAPID header (RFC 8292 §3: ``vapid t=<JWT>, k=<key>``), once its
    ES256 signature is checked against ``public_key`` (the site's, base64url), which ``k``
    must be."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization
    params = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert params["k"] == public_key
    header_b64, claims_b64, signature_b64 = params["t"].split(".")
    assert json.loads(unb64(header_b64)) == {"typ": "JWT", "alg": "ES256"}
    signature = unb64(signature_b64)
    assert len(signature) == 64
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    key.verify(encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                    int.from_bytes(signature[32:], "big")),
               f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(unb64(claims_b64))
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    return claims
