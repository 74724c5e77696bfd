"""The self-hosted mail receiver (games/mail/receiver.py, `manage.py mailreceiver`).

In a real subprocess, what needs no service: only play+…@MAIL_DOMAIN is accepted (550 at RCPT
otherwise), messages over 10 MB get 552, SIGTERM stops it. In this process (the receiver in a
thread, ``games.mail.receive.receive_mail`` replaced by a recorder): what reaches the service
over SMTP and LMTP, and the answers when it raises (451) or the message is empty (554).
"""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
import types
from io import StringIO
from pathlib import Path

import pytest

from games.mail.receiver import DATA_SIZE_LIMIT, ReceiverHandler, is_play_address, start_receiver

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "mascarade.test"
PLAYER = "player@example.org"

MESSAGE = (
    b"From: Player <player@example.org>\r\n"
    b"To: play+abc.def@mascarade.test\r\n"
    b"Subject: my move\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Transfer-Encoding: 8bit\r\n"
    b"\r\n"
    b"exchange 2 swap\r\n"
    b".a line that starts with a dot\r\n"
    b"caf\xc3\xa9\r\n"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def service(monkeypatch):
    """``games.mail.receive.receive_mail`` replaced by a recorder (``calls``; ``raises`` makes
    it raise, ``delay`` makes it slow). Until the real module imports, a stand-in module."""
    try:
        import games.mail.receive as module
    except ImportError:
        module = types.ModuleType("games.mail.receive")
        monkeypatch.setitem(sys.modules, "games.mail.receive", module)
    recorder = types.SimpleNamespace(calls=[], raises=None, delay=0.0, started=threading.Event())

    def receive_mail(raw, *, recipients=(), sender=None, via):
        recorder.started.set()
        if recorder.delay:
            time.sleep(recorder.delay)
        if recorder.raises is not None:
            raise recorder.raises
        recorder.calls.append({"raw": raw, "recipients": list(recipients), "sender": sender,
                               "via": via, "thread": threading.current_thread().name})

    monkeypatch.setattr(module, "receive_mail", receive_mail, raising=False)
    return recorder


@pytest.fixture
def smtp_receiver(service):
    receiver = start_receiver(port=0, domain=DOMAIN)
    yield receiver
    receiver.stop()


@pytest.fixture
def lmtp_receiver(service):
    receiver = start_receiver(port=0, domain=DOMAIN, lmtp=True)
    yield receiver
    receiver.stop()


def test_play_addresses():
    assert is_play_address("play+abc.def@mascarade.test", DOMAIN)
    assert is_play_address("Play+X@MASCARADE.TEST", DOMAIN)
    assert not is_play_address("play+@mascarade.test", DOMAIN)
    assert not is_play_address("play@mascarade.test", DOMAIN)
    assert not is_play_address("play+abc@other.test", DOMAIN)
    assert not is_play_address("play+abc@mascarade.test.evil", DOMAIN)
    assert not is_play_address("someone@mascarade.test", DOMAIN)
    assert not is_play_address("play+abc", DOMAIN)


# --- In this process ----------------------------------------------------------------------------


def test_a_message_reaches_the_service_with_its_raw_bytes_recipients_and_sender(
        smtp_receiver, service):
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        refused = client.sendmail(PLAYER, ["play+abc.def@mascarade.test", "x@mascarade.test",
                                           "play+second@MASCARADE.test"],
                                  MESSAGE, mail_options=["BODY=8BITMIME"])
        # The refused recipient is reported; the message went to the two others.
        assert refused == {"x@mascarade.test": (550, (
            b"5.1.1 <x@mascarade.test>: recipient refused (only play+...@mascarade.test)"))}
    assert len(service.calls) == 1
    call = service.calls[0]
    # The bytes as sent (CRLF kept, the dot-stuffing undone, 8-bit bytes untouched).
    assert call["raw"] == MESSAGE
    assert call["recipients"] == ["play+abc.def@mascarade.test", "play+second@MASCARADE.test"]
    assert call["sender"] == PLAYER
    assert call["via"] == "smtp"
    # In a worker thread, never in the event loop's.
    assert call["thread"].startswith("mailreceiver_")


def test_the_answer_is_250_once_stored(smtp_receiver, service):
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.ehlo()
        assert client.mail(PLAYER)[0] == 250
        assert client.rcpt("play+abc@mascarade.test")[0] == 250
        code, text = client.data(MESSAGE)
    assert (code, text) == (250, b"2.0.0 OK: message stored")
    assert len(service.calls) == 1


def test_a_bounce_has_the_null_sender(smtp_receiver, service):
    """``MAIL FROM:<>`` reaches the service as "" (the null sender: an automatic mail), not as
    None (unknown)."""
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.sendmail("<>", ["play+abc@mascarade.test"], MESSAGE)
    assert service.calls[0]["sender"] == ""


def test_sessions_over_the_limit_are_told_to_come_back_later(service):
    """At most ``max_sessions`` sessions at once (each may hold a 10 MB message): one more
    connection is answered 421 and closed; once a session ends, a new one is served."""
    handler = ReceiverHandler(domain=DOMAIN, max_sessions=2)
    with start_receiver(port=0, handler=handler) as receiver:
        first = smtplib.SMTP("127.0.0.1", receiver.port, timeout=10)
        second = smtplib.SMTP("127.0.0.1", receiver.port, timeout=10)
        with pytest.raises(smtplib.SMTPConnectError) as refused:
            smtplib.SMTP("127.0.0.1", receiver.port, timeout=10)
        assert refused.value.smtp_code == 421
        first.quit()
        for _ in range(50):  # the session ends once its connection is closed
            if handler.sessions < 2:
                break
            time.sleep(0.05)
        assert second.sendmail(PLAYER, ["play+abc@mascarade.test"], MESSAGE) == {}
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=10) as third:
            assert third.sendmail(PLAYER, ["play+abc@mascarade.test"], MESSAGE) == {}
        second.quit()
    assert len(service.calls) == 2


def test_the_session_limit_defaults_to_the_setting(settings):
    settings.MAIL_RECEIVER_MAX_SESSIONS = 7
    handler = ReceiverHandler(domain=DOMAIN)
    try:
        assert handler.max_sessions == 7
    finally:
        handler.close(timeout=0)


def test_a_refused_recipient_gets_550_and_no_recipient_no_data(smtp_receiver, service):
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.ehlo()
        client.mail(PLAYER)
        assert client.rcpt("play+abc@elsewhere.test")[0] == 550
        assert client.rcpt("postmaster@mascarade.test")[0] == 550
        with pytest.raises(smtplib.SMTPDataError) as refused:  # no recipient accepted
            client.data(MESSAGE)
        assert refused.value.smtp_code == 503
    assert service.calls == []


def test_the_service_raising_gives_451_try_again_later(smtp_receiver, service):
    service.raises = RuntimeError("the database is down")
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.ehlo()
        client.mail(PLAYER)
        client.rcpt("play+abc@mascarade.test")
        code, text = client.data(MESSAGE)
        assert code == 451
        assert b"try again later" in text
        assert b"database" not in text  # nothing of the error is told
        # The session goes on: the sender may try again at once.
        service.raises = None
        assert client.sendmail(PLAYER, ["play+abc@mascarade.test"], MESSAGE) == {}
    assert len(service.calls) == 1


def test_an_empty_message_gets_554(smtp_receiver, service):
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.ehlo()
        client.mail(PLAYER)
        client.rcpt("play+abc@mascarade.test")
        assert client.data(b"")[0] == 554
    assert service.calls == []


def test_the_size_limit_is_announced(smtp_receiver):
    with smtplib.SMTP("127.0.0.1", smtp_receiver.port, timeout=10) as client:
        client.ehlo()
        assert client.esmtp_features["size"] == str(DATA_SIZE_LIMIT) == "10485760"


def test_a_stop_waits_for_the_message_being_stored(service):
    receiver = start_receiver(port=0, domain=DOMAIN)
    service.delay = 1.0
    answers = []

    def send():
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=10) as client:
            client.ehlo()
            client.mail(PLAYER)
            client.rcpt("play+abc@mascarade.test")
            answers.append(client.data(MESSAGE)[0])

    sender = threading.Thread(target=send)
    sender.start()
    assert service.started.wait(5)
    receiver.stop()  # while receive_mail is still running
    sender.join(10)
    assert answers == [250]
    assert len(service.calls) == 1
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", receiver.port), timeout=1)


def test_a_taken_port_raises_oserror(service):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        with pytest.raises(OSError):
            start_receiver(port=sock.getsockname()[1], domain=DOMAIN)


class LMTPClient:
    """Enough LMTP by hand to read the one reply per recipient after DATA (RFC 2033 4.2), which
    smtplib does not."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        assert self.reply()[0] == 220

    def reply(self) -> tuple[int, list[bytes]]:
        lines = []
        while True:
            line = self.file.readline()
            assert line, "connection closed"
            lines.append(line.rstrip(b"\r\n"))
            if line[3:4] != b"-":
                return int(line[:3]), lines

    def command(self, line: bytes) -> tuple[int, list[bytes]]:
        self.sock.sendall(line + b"\r\n")
        return self.reply()

    def close(self) -> None:
        self.command(b"QUIT")
        self.file.close()
        self.sock.close()


def send_lmtp(port: int, recipients: list[str]) -> list[int]:
    """LHLO, MAIL, RCPT… and DATA: returns the codes after the data (one per accepted
    recipient)."""
    client = LMTPClient(port)
    try:
        assert client.command(b"HELO client")[0] == 500  # LMTP has LHLO only
        assert client.command(b"LHLO client")[0] == 250
        assert client.command(f"MAIL FROM:<{PLAYER}>".encode())[0] == 250
        accepted = sum(client.command(f"RCPT TO:<{r}>".encode())[0] == 250 for r in recipients)
        assert client.command(b"DATA")[0] == 354
        client.sock.sendall(MESSAGE.replace(b"\r\n.", b"\r\n..") + b".\r\n")
        return [client.reply()[0] for _ in range(accepted)]
    finally:
        client.close()


def test_lmtp_answers_once_per_recipient(lmtp_receiver, service):
    codes = send_lmtp(lmtp_receiver.port, ["play+one@mascarade.test", "other@mascarade.test",
                                           "play+two@mascarade.test"])
    assert codes == [250, 250]
    assert len(service.calls) == 1
    call = service.calls[0]
    assert call["raw"] == MESSAGE
    assert call["recipients"] == ["play+one@mascarade.test", "play+two@mascarade.test"]
    assert call["sender"] == PLAYER
    assert call["via"] == "lmtp"


def test_lmtp_with_the_service_raising_gives_451_for_each_recipient(lmtp_receiver, service):
    service.raises = RuntimeError("the database is down")
    codes = send_lmtp(lmtp_receiver.port, ["play+one@mascarade.test", "play+two@mascarade.test"])
    assert codes == [451, 451]


def test_smtplib_lmtp_client(lmtp_receiver, service):
    with smtplib.LMTP("127.0.0.1", lmtp_receiver.port) as client:
        assert client.sendmail(PLAYER, ["play+abc@mascarade.test"], MESSAGE) == {}
    assert service.calls[0]["via"] == "lmtp"


def test_the_handler_defaults_to_the_settings_domain(settings):
    settings.MAIL_DOMAIN = "example.net"
    handler = ReceiverHandler()
    try:
        assert handler.domain == "example.net"
    finally:
        handler.close(timeout=0)


# --- A real `manage.py mailreceiver` -----------------------------------------------------------


@pytest.fixture
def mailreceiver_process(tmp_path):
    port = free_port()
    env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path), "MAIL_DOMAIN": DOMAIN,
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "manage.py", "mailreceiver", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        first = proc.stdout.readline()  # printed once it listens
        assert f"listening on 127.0.0.1:{port}" in first, (first, proc.stderr.read()
                                                            if proc.poll() is not None else "")
        yield types.SimpleNamespace(proc=proc, port=port, banner=first)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()


def test_the_command_refuses_other_recipients_and_large_messages(mailreceiver_process):
    port = mailreceiver_process.port
    assert "SMTP" in mailreceiver_process.banner
    assert f"play+<token>@{DOMAIN}" in mailreceiver_process.banner
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        assert client.mail(PLAYER)[0] == 250
        code, text = client.rcpt("someone@example.org")
        assert (code, text) == (550, b"5.1.1 <someone@example.org>: recipient refused "
                                     b"(only play+...@mascarade.test)")
        assert client.rcpt("play+abc@example.org")[0] == 550
        assert client.rcpt("play+abc@mascarade.test")[0] == 250
        # Over 10 MB: the data is read to its end, then refused with 552.
        big = b"Subject: big\r\n\r\n" + (b"x" * 998 + b"\r\n") * (DATA_SIZE_LIMIT // 1000 + 10)
        assert len(big) > DATA_SIZE_LIMIT
        assert client.data(big) == (552, b"Error: Too much mail data")
        # Announced beforehand (MAIL FROM's SIZE), it is refused at once.
        assert client.mail(PLAYER, [f"SIZE={len(big)}"])[0] == 552


def test_the_command_stops_on_sigterm(mailreceiver_process):
    proc = mailreceiver_process.proc
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 0
    assert "stopped" in proc.stdout.read()


def test_the_command_says_when_the_port_is_taken(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path)}
        proc = subprocess.run([sys.executable, "manage.py", "mailreceiver", "--lmtp",
                               "--port", str(port)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60)
    assert proc.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr


# --- `make run` (rundev) ------------------------------------------------------------------------


def test_rundev_starts_the_receiver_and_says_where_to_send(settings, service):
    from mascarade_site.management.commands.rundev import Command

    settings.MAIL_DOMAIN = DOMAIN
    settings.MAIL_RECEIVER_PORT = free_port()
    command = Command(stdout=StringIO(), stderr=StringIO())
    receiver, line = command.start_mail(skip=False)
    try:
        assert line == (f"Play by mail: send to play+<token>@{DOMAIN} through "
                        f"smtp://127.0.0.1:{settings.MAIL_RECEIVER_PORT}")
        with smtplib.SMTP("127.0.0.1", settings.MAIL_RECEIVER_PORT, timeout=10) as client:
            assert client.sendmail(PLAYER, ["play+abc@mascarade.test"], MESSAGE) == {}
        assert service.calls[0]["via"] == "smtp"
    finally:
        receiver.stop()


def test_rundev_goes_on_without_the_receiver_when_its_port_is_taken(settings):
    from mascarade_site.management.commands.rundev import Command

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        settings.MAIL_RECEIVER_PORT = sock.getsockname()[1]
        stderr = StringIO()
        receiver, line = Command(stdout=StringIO(), stderr=stderr).start_mail(skip=False)
    assert receiver is None
    assert "NOT running" in line
    assert f"port {settings.MAIL_RECEIVER_PORT} on 127.0.0.1 is not free" in stderr.getvalue()
    assert "going on without the mail receiver" in stderr.getvalue()
