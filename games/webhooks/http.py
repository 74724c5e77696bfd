"""Webhooks, the HTTP part: which URLs may be posted to, the signature, and the post itself.

Nothing here knows a model: :mod:`games.webhooks.endpoints` keeps the endpoints and the outbox and
calls :func:`check` (at registration, and again before every attempt) and :func:`post`.

**Where we post.** ``https://`` URLs only, without credentials, on port 443 or an unprivileged
port (1024 and up). The host is resolved once (``socket.getaddrinfo``, on a thread of a small
pool, so that a name server that never answers holds nobody longer than :data:`RESOLVE_TIMEOUT`
at registration, or than an attempt's :data:`TIMEOUT`) and refused if *any* of its addresses is
private, loopback, link-local, site-local, multicast, reserved, unspecified, shared (CGNAT) or
otherwise not global, IPv4-mapped, 6to4 and NAT64 forms of IPv6 addresses judged by the IPv4
address inside them (what is global: Python's ``ipaddress`` and ``netaddr`` must both say so).
The post then connects to one of the very addresses that were checked, never resolving the name
again (a DNS answer that changes between the check and the connection, "DNS rebinding", cannot
send it elsewhere), while TLS is checked against the host name (SNI and the certificate) and the
``Host`` header names it. The hosts of the ``WEBHOOK_ALLOWED_HOSTS``
setting (tests, development) may take plain ``http://``, any port and any address.

**How we post.** One ``POST`` of the stored body, with a 5-second limit for the whole attempt
(the host's resolution, connection, TLS, request, answer); redirects are never followed (a
3xx answer is a failure, its ``Location`` recorded); any 2xx answer is a success.

**The signature.** ``Mascarade-Signature: t=<unix seconds>,v1=<hex>``, where ``<hex>`` is
HMAC-SHA256 keyed with the endpoint's secret (the whole string, ``whsec_`` included, as UTF-8)
over ``f"{t}."`` as bytes followed by the body's bytes. Receivers check it with
``hmac.compare_digest`` and refuse a ``t`` older than five minutes (docs/api-guide.md, "Webhooks").
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import netaddr
from django.conf import settings
from django.utils.translation import gettext as _

#: The whole attempt (the host's resolution, connection, TLS, request and answer) must fit in
#: this many seconds.
TIMEOUT = 5.0
#: The longest wait for the host's addresses when an endpoint is registered or changed (a web
#: request waits for it).
RESOLVE_TIMEOUT = 3.0
#: Threads resolving host names at once, per process (a lookup that outlives its wait keeps its
#: thread until the system's resolver gives up; the next ones wait for a free thread, within
#: their own time limit).
RESOLVER_THREADS = 16
USER_AGENT = "MascaradeOnline-Webhooks/1"
#: The longest URL taken.
MAX_URL_LENGTH = 2000
#: Ports below this one are refused, but 443.
LOWEST_PORT = 1024
#: How much of a failed answer's body is kept in its error (characters).
ERROR_BODY_CHARS = 200

SIGNATURE_HEADER = "Mascarade-Signature"
EVENT_HEADER = "Mascarade-Event"
DELIVERY_HEADER = "Mascarade-Delivery"

Resolver = Callable[..., list]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class Refused(ValueError):
    """A URL or an address we do not post to; ``str()`` says why, in the active language."""


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``addresses``, every one of them checked) and what to
    ask for there."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Result:
    """What an attempt gave: ``ok`` for a 2xx answer; the answer's status if there was one; an
    error in words otherwise."""

    ok: bool
    status: int | None = None
    error: str = ""


def allowed_hosts() -> frozenset[str]:
    return frozenset(getattr(settings, "WEBHOOK_ALLOWED_HOSTS", ()))


def forbidden_address(address: str) -> bool:
    """Whether an IP address is one we never post to (anything but a global unicast address;
    an IPv6 address carrying an IPv4 one, mapped, 6to4 or NAT64, is judged by that one)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            return forbidden_address(str(inner))
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:  # fec0::/10, deprecated
        return True
    # Global for the interpreter's ipaddress and for netaddr, both from IANA's special-purpose
    # registries: ipaddress' table is as old as the interpreter (before Python 3.11.10,
    # CVE-2024-4032, it took 192.0.0.0/24 and others for global), netaddr's is the package's.
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
            or ip.is_reserved or ip.is_unspecified or not ip.is_global
            or not netaddr.IPAddress(int(ip), ip.version).is_global())


def parse(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path and query)`` of a URL we could post to, whatever its host's
    addresses; :class:`Refused` says what is wrong with it."""
    if not isinstance(url, str) or not url.strip():
        raise Refused(_("Give the URL of your endpoint."))
    if len(url) > MAX_URL_LENGTH:
        raise Refused(_("The URL is too long (%(most)d characters at most).") % {
            "most": MAX_URL_LENGTH})
    if any(ord(char) <= 32 or ord(char) == 127 for char in url):
        raise Refused(_("The URL may not contain spaces or control characters."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # (its words are Python's, in English: not shown)
        raise Refused(_("This is not a valid URL: check its host and its port.")) from exc
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in ("https", "http") or not host:
        raise Refused(_("The URL must start with https:// and name a host."))
    if parts.username is not None or parts.password is not None:
        raise Refused(_("The URL may not contain a user name or a password: authenticate "
                        "the posts by their signature."))
    allowed = host in allowed_hosts()
    if scheme == "http" and not allowed:
        raise Refused(_("Only https:// URLs are taken."))
    if not _is_ip(host):
        try:
            host.encode("idna")
        except UnicodeError as exc:
            raise Refused(_("The host name %(host)s is not valid.") % {"host": host}) from exc
    if port is None:
        port = 443 if scheme == "https" else 80
    if not 0 < port < 65536 or (not allowed and port != 443 and port < LOWEST_PORT):
        raise Refused(_("The port must be 443 or a number from %(low)d to 65535.") % {
            "low": LOWEST_PORT})
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return scheme, host, port, path


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


_pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _resolver_pool() -> concurrent.futures.ThreadPoolExecutor:
    """This process's resolver threads (made at first use, and again in a forked child, which
    inherits no thread)."""
    pid = os.getpid()
    pool = _pools.get(pid)
    if pool is None:
        with _pools_lock:
            pool = _pools.get(pid)
            if pool is None:
                _pools.clear()
                pool = _pools[pid] = concurrent.futures.ThreadPoolExecutor(
                    RESOLVER_THREADS, thread_name_prefix="webhook-resolver")
    return pool


def _resolve(resolve: Resolver | None, host: str, port: int, timeout: float) -> list:
    """``getaddrinfo`` (or ``resolve``) of the host, waited for ``timeout`` seconds at most:
    :class:`Refused` if it fails or takes longer."""
    if timeout <= 0:
        raise _not_resolved_in_time(host, timeout)
    # (socket.getaddrinfo looked up at each call: tests replace it)
    future = _resolver_pool().submit(resolve or socket.getaddrinfo, host, port,
                                     type=socket.SOCK_STREAM)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()  # (still waiting for a thread: it will not run)
        raise _not_resolved_in_time(host, timeout) from None
    except (OSError, UnicodeError) as exc:
        raise Refused(_("The host name %(host)s could not be resolved.") % {"host": host}
                      ) from exc


def _not_resolved_in_time(host: str, timeout: float) -> Refused:
    return Refused(_("The host name %(host)s was not resolved within %(seconds)s seconds.") % {
        "host": host, "seconds": f"{max(timeout, 0):g}"})


def check(url: str, resolve: Resolver | None = None, *,
          timeout: float | None = None) -> Target:
    """The URL parsed and its host resolved (within ``timeout`` seconds,
    :data:`RESOLVE_TIMEOUT` by default), every address checked; :class:`Refused` says why not.
    A host of ``WEBHOOK_ALLOWED_HOSTS`` is resolved but not checked."""
    scheme, host, port, path = parse(url)
    allowed = host in allowed_hosts()
    if _is_ip(host) and not allowed and forbidden_address(host):
        raise Refused(_("The address %(host)s is private, local or reserved: webhooks go to "
                        "public addresses only.") % {"host": host})
    infos = _resolve(resolve, host, port, RESOLVE_TIMEOUT if timeout is None else timeout)
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        if sockaddr[0] not in addresses:
            addresses.append(sockaddr[0])
    if not addresses:
        raise Refused(_("The host name %(host)s could not be resolved.") % {"host": host})
    if not allowed:
        bad = [address for address in addresses if forbidden_address(address)]
        if bad:
            raise Refused(_("The host %(host)s resolves to %(address)s, a private, local or "
                            "reserved address: webhooks go to public addresses only.") % {
                "host": host, "address": bad[0]})
    return Target(scheme, host, port, path, tuple(addresses))


# --------------------------------------------------------------------------------------------
# The signature


def signature(secret: str, body: bytes, timestamp: int) -> str:
    """The ``Mascarade-Signature`` header's value for ``body`` sent at ``timestamp``."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body,
                      hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def headers(delivery_id: str, event_type: str, secret: str, body: bytes,
            timestamp: int | None = None) -> dict[str, str]:
    """Every header of a post (signed now, or at ``timestamp``)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        EVENT_HEADER: event_type,
        DELIVERY_HEADER: delivery_id,
        SIGNATURE_HEADER: signature(secret, body, timestamp),
    }


# --------------------------------------------------------------------------------------------
# The post


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Plain HTTP (allowed hosts only) to a checked address, not to what the name resolves to
    now."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = _open(self.address, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to a checked address; the certificate and SNI are the host name's."""

    def __init__(self, host: str, port: int, address: str, timeout: float,
                 context: ssl.SSLContext):
        super().__init__(host, port, timeout=timeout, context=context)
        self.address = address

    def connect(self) -> None:
        # (kept in self.sock during the handshake too, so that the deadline can cut it)
        self.sock = _open(self.address, self.port, self.timeout)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.host)


def _open(address: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection to an IP address, as given (``socket.create_connection`` would hand it
    to ``getaddrinfo`` again)."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect((address, port) if family == socket.AF_INET else (address, port, 0, 0))
    except BaseException:
        sock.close()
        raise
    return sock


def _connection(target: Target, address: str, timeout: float) -> http.client.HTTPConnection:
    if target.scheme == "https":
        return _PinnedHTTPSConnection(target.host, target.port, address, timeout,
                                      ssl.create_default_context())
    return _PinnedHTTPConnection(target.host, target.port, address, timeout)


def _clean(text: str) -> str:
    text = " ".join(text.split())
    return text[:ERROR_BODY_CHARS] + ("…" if len(text) > ERROR_BODY_CHARS else "")


class _Deadline:
    """Cuts the connection in use when the time is up, whatever the server does (a trickle of
    bytes included): the socket's own timeout bounds each read, not the exchange."""

    def __init__(self, seconds: float, said: float | None = None):
        self.seconds = seconds
        #: The limit as errors name it (the attempt's, of which this exchange has what is left).
        self.said = seconds if said is None else said
        self.end = time.monotonic() + seconds
        self.expired = threading.Event()
        self.connection: http.client.HTTPConnection | None = None
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def left(self) -> float:
        return self.end - time.monotonic()

    def _cut(self) -> None:
        self.expired.set()
        sock = getattr(self.connection, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()


def post(target: Target, body: bytes, headers: dict[str, str], *,
         timeout: float | None = None, said: float | None = None) -> Result:
    """POST ``body`` to a checked target, trying its addresses in turn until one connects; the
    whole exchange within ``timeout`` (:data:`TIMEOUT`) seconds (``said``: the limit its errors
    name, if not that one). Never raises."""
    with _Deadline(TIMEOUT if timeout is None else timeout, said) as deadline:
        errors: list[str] = []
        for address in target.addresses:
            if deadline.left() <= 0 or deadline.expired.is_set():
                break
            connection = deadline.connection = _connection(target, address, deadline.left())
            try:
                connection.connect()
            except ssl.SSLError as exc:
                connection.close()
                if deadline.expired.is_set():
                    break
                return Result(False, error=_("TLS failed: %(error)s") % {
                    "error": _clean(str(exc))})
            except OSError as exc:
                connection.close()
                if deadline.expired.is_set() or isinstance(exc, TimeoutError):
                    break
                errors.append(f"{address}: {_clean(exc.strerror or str(exc))}")
                continue
            return _exchange(connection, target, body, headers, deadline)
        if deadline.expired.is_set() or deadline.left() <= 0 or not errors:
            return Result(False, error=_late(deadline))
        return Result(False, error=_("Could not connect: %(errors)s") % {
            "errors": "; ".join(errors)})


def _late(deadline: _Deadline) -> str:
    return _no_answer(deadline.said)


def _no_answer(seconds: float) -> str:
    return _("no answer within %(seconds)s seconds") % {"seconds": f"{seconds:g}"}


def _exchange(connection: http.client.HTTPConnection, target: Target, body: bytes,
              headers: dict[str, str], deadline: _Deadline) -> Result:
    """The request and its answer on an open connection."""
    try:
        connection.request("POST", target.path, body=body,
                           headers={**headers, "Content-Length": str(len(body)),
                                    "Connection": "close"})
        answer = connection.getresponse()
        status = answer.status
        location = answer.getheader("Location") or ""
        text = "" if 200 <= status < 300 else answer.read(4 * ERROR_BODY_CHARS).decode(
            "utf-8", "replace")
    except (OSError, http.client.HTTPException) as exc:
        if deadline.expired.is_set() or isinstance(exc, TimeoutError):
            return Result(False, error=_late(deadline))
        return Result(False, error=_("The connection failed: %(error)s") % {
            "error": _clean(str(exc) or type(exc).__name__)})
    finally:
        connection.close()
    if deadline.expired.is_set():
        return Result(False, status, _late(deadline))
    if 200 <= status < 300:
        return Result(True, status)
    if 300 <= status < 400:
        return Result(False, status, _("HTTP %(status)d: redirects are not followed "
                                       "(to %(location)s)") % {
            "status": status, "location": _clean(location) or "?"})
    return Result(False, status, f"HTTP {status}" + (f": {_clean(text)}" if text.strip()
                                                     else ""))


def send(url: str, body: bytes, headers: dict[str, str], *, resolve: Resolver | None = None,
         timeout: float | None = None) -> Result:
    """Check ``url`` again (its host resolved now, every address checked) and post to it, the
    whole within ``timeout`` (:data:`TIMEOUT`) seconds, the resolution included: a refusal is a
    failed attempt like any other."""
    seconds = TIMEOUT if timeout is None else timeout
    end = time.monotonic() + seconds
    try:
        target = check(url, resolve, timeout=seconds)
    except Refused as exc:
        return Result(False, error=str(exc))
    left = end - time.monotonic()
    if left <= 0:
        return Result(False, error=_no_answer(seconds))
    return post(target, body, headers, timeout=left, said=seconds)
