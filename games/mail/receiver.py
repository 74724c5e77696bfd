"""The self-hosted mail receiver: an SMTP (or LMTP) server, on aiosmtpd, in front of
``games.mail.receive.receive_mail``.

It accepts only the play addresses (``play+<token>@MAIL_DOMAIN``; any other recipient is refused
with 550 at RCPT) and messages of at most :data:`DATA_SIZE_LIMIT` bytes (larger: 552), hands each
message's raw bytes, its envelope recipients and its envelope sender (``""`` for the null sender
``MAIL FROM:<>`` of a bounce) to ``receive_mail`` in a worker thread (the Django ORM never runs in
the event loop), and answers 250 once the message is stored, 451 ("try again later") if
``receive_mail`` raised (the database is down: the sending MTA keeps the message and retries),
554 for a message it could not read.

Its memory is bounded: a session holds its message (up to 10 MB) in memory, so at most
``MAIL_RECEIVER_MAX_SESSIONS`` sessions are open at once; one more connection is answered
``421`` ("try again later", RFC 5321 3.8) and closed, and the sending MTA delivers it later (set
postfix's ``lmtp_destination_concurrency_limit`` to the same number: docs/mail.md).

Three ways to run it:

- ``manage.py mailreceiver [--lmtp] [--host H] [--port P]`` (production, behind postfix or
  alone): :func:`serve_forever`;
- ``manage.py rundev`` (``make run``) starts it in a thread of its own: :func:`start_receiver`;
- tests: :func:`start_receiver` too, which returns a :class:`RunningReceiver` with the port it
  listens on (port 0: a free one) and ``stop()``::

      receiver = start_receiver(port=0, lmtp=False)          # the real service behind it
      try:
          smtplib.SMTP("127.0.0.1", receiver.port).sendmail(...)
      finally:
          receiver.stop()
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP
from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)

#: The largest message accepted (aiosmtpd's ``data_size_limit``): larger ones get 552.
DATA_SIZE_LIMIT = 10 * 1024 * 1024
#: The local part every accepted recipient starts with: ``play+<token>@MAIL_DOMAIN``.
PLAY_PREFIX = "play+"
#: Threads that run ``receive_mail`` (each may hold a database connection).
DEFAULT_WORKERS = 4
#: How long a stop waits for messages being stored before it gives up on them (seconds).
STOP_GRACE_SECONDS = 30.0
#: Sessions open at once when ``MAIL_RECEIVER_MAX_SESSIONS`` is not set.
DEFAULT_MAX_SESSIONS = 4
#: Connections turned away are logged once per this many seconds.
BUSY_LOG_SECONDS = 60.0

OK = "250 2.0.0 OK: message stored"
REFUSED_RECIPIENT = "550 5.1.1 <{address}>: recipient refused (only play+...@{domain})"
TRY_LATER = "451 4.3.0 Message not stored, try again later"
UNREADABLE = "554 5.6.0 Message could not be read"
TOO_MANY_SESSIONS = b"421 4.3.2 Too many sessions at once, try again later\r\n"

#: ``receive(raw, *, recipients, sender, via)``: what a received message is handed to.
Receive = Callable[..., Any]


def receive_mail(raw: bytes, *, recipients: Sequence[str] = (), sender: str | None = None,
                 via: str) -> Any:
    """The service, imported when a message comes (``games.mail.receive.receive_mail``)."""
    from games.mail.receive import receive_mail as service

    return service(raw, recipients=recipients, sender=sender, via=via)


def is_play_address(address: str, domain: str) -> bool:
    """``play+<something>@<domain>`` (the local part's ``play`` and the domain in any case)."""
    local, at, host = (address or "").rpartition("@")
    return (bool(at) and host.lower() == domain.lower()
            and local.lower().startswith(PLAY_PREFIX) and len(local) > len(PLAY_PREFIX))


class ReceiverHandler:
    """aiosmtpd's handler: the recipients' check at RCPT, the message to ``receive`` at DATA.

    ``domain`` defaults to ``settings.MAIL_DOMAIN`` and ``receive`` to :func:`receive_mail` (the
    service, imported at each message: a test may monkeypatch
    ``games.mail.receive.receive_mail``). ``receive`` runs in a pool of ``workers`` threads, each
    call between two ``close_old_connections()`` as Django does around a request.
    """

    def __init__(self, *, domain: str | None = None, receive: Receive | None = None,
                 workers: int = DEFAULT_WORKERS, max_sessions: int | None = None) -> None:
        self.domain = domain or settings.MAIL_DOMAIN
        self.receive = receive or receive_mail
        #: Sessions open at once (more: 421 and closed); see the module's docstring.
        self.max_sessions = max(1, max_sessions or getattr(
            settings, "MAIL_RECEIVER_MAX_SESSIONS", DEFAULT_MAX_SESSIONS))
        #: Sessions open now (changed in the event loop's thread only).
        self.sessions = 0
        self.busy_logged_at = float("-inf")
        self.executor = ThreadPoolExecutor(max_workers=workers,
                                           thread_name_prefix="mailreceiver")
        self._pending = 0
        self._idle = threading.Condition()

    # aiosmtpd's hooks -----------------------------------------------------------------------

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not is_play_address(address, self.domain):
            log.info("refused recipient %r from %r", address, session.peer)
            return REFUSED_RECIPIENT.format(address=address, domain=self.domain)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        status = await self._deliver(server, envelope)
        if isinstance(server, LMTP):
            # LMTP answers DATA once per accepted recipient (RFC 2033 4.2); the message was
            # handed over once, for all of them, so each gets the same answer.
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status

    async def handle_exception(self, error: Exception) -> str:
        # Anything else that went wrong in a session: no detail to the client, a retry.
        log.exception("mail receiver session error", exc_info=error)
        return "451 4.3.0 Temporary failure, try again later"

    # The delivery ---------------------------------------------------------------------------

    async def _deliver(self, server, envelope) -> str:
        raw = envelope.original_content
        if raw is None:
            raw = envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        if not isinstance(raw, bytes | bytearray) or not raw.strip():
            return UNREADABLE
        via = "lmtp" if isinstance(server, LMTP) else "smtp"
        recipients = list(envelope.rcpt_tos)
        # The null sender of a bounce ("MAIL FROM:<>", which aiosmtpd keeps as "<>"): "", which
        # the service reads as an automatic mail (None would be "unknown").
        sender = "" if envelope.mail_from in ("", "<>") else envelope.mail_from
        # Counted until the answer is written (aiosmtpd writes it as soon as this returns,
        # before the loop runs anything else): a stop waits for it (close()).
        with self._idle:
            self._pending += 1
        try:
            try:
                future = self.executor.submit(self._call, bytes(raw), recipients, sender, via)
            except RuntimeError:  # stopping: the threads are gone
                return TRY_LATER
            try:
                await asyncio.wrap_future(future)
            except Exception:
                log.exception("receive_mail failed (%s, to %s): answered 451", via, recipients)
                return TRY_LATER
            log.info("message from %r to %s stored (%s, %d bytes)", sender, recipients, via,
                     len(raw))
            return OK
        finally:
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()

    def _call(self, raw: bytes, recipients: list[str], sender: str | None, via: str) -> None:
        close_old_connections()
        try:
            self.receive(raw, recipients=recipients, sender=sender, via=via)
        finally:
            close_old_connections()

    def close(self, timeout: float = STOP_GRACE_SECONDS) -> None:
        """Wait (up to ``timeout``) for the messages being stored, then stop the threads."""
        with self._idle:
            self._idle.wait_for(lambda: self._pending == 0, timeout=timeout)
        self.executor.shutdown(wait=True)


class _Busy(asyncio.Protocol):
    """A connection over ``max_sessions``: 421 ("try again later") and closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(TOO_MANY_SESSIONS)
        transport.close()


def _factory(handler: ReceiverHandler, *, lmtp: bool) -> Callable[[], asyncio.Protocol]:
    """The protocol of each new connection: an aiosmtpd session, counted in
    ``handler.sessions`` until its connection is lost, or :class:`_Busy` when
    ``handler.max_sessions`` are open."""
    base = LMTP if lmtp else SMTP

    class Session(base):
        def connection_lost(self, error: Exception | None) -> None:
            try:
                super().connection_lost(error)
            finally:
                handler.sessions -= 1

    def make() -> asyncio.Protocol:
        if handler.sessions >= handler.max_sessions:
            now = time.monotonic()
            if now - handler.busy_logged_at > BUSY_LOG_SECONDS:  # (once a minute at most)
                handler.busy_logged_at = now
                log.warning("mail receiver: %d sessions open (MAIL_RECEIVER_MAX_SESSIONS), "
                            "more connections answered 421", handler.sessions)
            return _Busy()
        session = Session(handler, data_size_limit=DATA_SIZE_LIMIT, enable_SMTPUTF8=True,
                          decode_data=False, hostname=handler.domain,
                          ident="Mascarade Online mail receiver",
                          loop=asyncio.get_running_loop())
        handler.sessions += 1
        return session

    return make


async def _open(handler: ReceiverHandler, host: str, port: int, *,
                lmtp: bool) -> asyncio.AbstractServer:
    """Bind and listen (OSError if the address is taken)."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(_factory(handler, lmtp=lmtp), host=host, port=port)


async def _close(server: asyncio.AbstractServer, handler: ReceiverHandler) -> None:
    """Stop accepting, let the messages being stored finish, then end the sessions."""
    server.close()
    await server.wait_closed()
    await asyncio.get_running_loop().run_in_executor(None, handler.close)
    current = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def serve_forever(handler: ReceiverHandler, host: str, port: int, *, lmtp: bool = False,
                  on_listening: Callable[[str, int], None] | None = None) -> None:
    """Run the receiver in this (main) thread until SIGTERM or SIGINT, then stop gracefully.
    ``on_listening(host, port)`` is called once it listens; OSError if it cannot bind."""

    async def main() -> None:
        server = await _open(handler, host, port, lmtp=lmtp)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        bound = server.sockets[0].getsockname()
        if on_listening is not None:
            on_listening(bound[0], bound[1])
        await stop.wait()
        log.info("mail receiver stopping")
        await _close(server, handler)

    asyncio.run(main())


class RunningReceiver:
    """A receiver running in a thread of its own (see :func:`start_receiver`)."""

    def __init__(self, handler: ReceiverHandler, host: str, port: int, *, lmtp: bool) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.lmtp = lmtp
        self.loop = asyncio.new_event_loop()
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mailreceiver", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self._server = self.loop.run_until_complete(
                _open(self.handler, self.host, self.port, lmtp=self.lmtp))
        except BaseException as error:  # the address is taken, most likely
            self._error = error
            self._ready.set()
            self.loop.close()
            return
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    def start(self, timeout: float = 10.0) -> RunningReceiver:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the mail receiver did not start")
        if self._error is not None:
            raise self._error
        return self

    def stop(self, timeout: float = STOP_GRACE_SECONDS + 5) -> None:
        if self._server is None or not self._thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(_close(self._server, self.handler), self.loop)
        try:
            future.result(timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)

    def __enter__(self) -> RunningReceiver:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


def start_receiver(host: str = "127.0.0.1", port: int = 0, *, lmtp: bool = False,
                   handler: ReceiverHandler | None = None, domain: str | None = None,
                   receive: Receive | None = None) -> RunningReceiver:
    """Start a receiver in a daemon thread and return it once it listens (``.port`` is the port
    it got; 0 asks for a free one). Raises OSError if the address is taken. Without ``handler``
    or ``receive``, the messages go to the real service (``games.mail.receive.receive_mail``).
    """
    if handler is None:
        handler = ReceiverHandler(domain=domain, receive=receive)
    return RunningReceiver(handler, host, port, lmtp=lmtp).start()
