"""Benchmark of the mail receiver's memory under large messages sent at once.

``--clients`` clients (10 by default) each send one message of ``--megabytes`` MB (9.9 by
default: just under the receiver's 10 MB limit; a line of text and a base64 attachment) at the
same moment to a ``manage.py mailreceiver --lmtp`` process, as production runs it, on a real
PostgreSQL database: each message goes through the whole service (parsed, stored). A client
the receiver turns away for now (``421``: too many sessions) tries again after ``--retry``
seconds, as a sending MTA does (later). The script prints the receiver's resident memory at
rest and its peak (Linux's ``VmHWM``), how many messages were stored, how many times a client
was asked to come back later, and how long it all took.

    .venv/bin/python bench/mail_receiver.py
    .venv/bin/python bench/mail_receiver.py --clients 20 --megabytes 5

Real PostgreSQL (``BENCH_DATABASE_URL``, default ``mascarade_bench_mail`` on the local server:
dropped and created anew); no Redis.
"""

from __future__ import annotations

import argparse
import email.policy
import os
import secrets
import smtplib
import socket
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_mail"
DOMAIN = "mascarade.bench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fresh(db_url: str, env: dict[str, str]) -> None:
    parts = urlsplit(db_url)
    args = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
            "-U", parts.username or "postgres"]
    name = parts.path.lstrip("/")
    subprocess.run(["dropdb", "--if-exists", *args, name], check=True)
    subprocess.run(["createdb", *args, name], check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)


def memory_mb(pid: int) -> dict[str, float]:
    """The process's resident memory now (VmRSS) and at its peak (VmHWM), in MB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) / 1024
    return found


def message(size: int, n: int) -> bytes:
    """A reply of about ``size`` bytes: a command, then a base64 attachment."""
    mail = EmailMessage()
    mail["From"] = f"player{n}@example.org"
    mail["To"] = f"play+{n}.{'0' * 24}@{DOMAIN}"
    mail["Subject"] = "Re: your turn"
    mail.set_content("1\n")
    raw_size = int((size - 2000) * 3 / 4 * 76 / 78)
    mail.add_attachment(secrets.token_bytes(raw_size), maintype="application",
                        subtype="octet-stream", filename="photo.bin")
    return mail.as_bytes(policy=email.policy.SMTP)


def send(port: int, raw: bytes, n: int, retry: float, outcome: dict, start: threading.Event):
    start.wait()
    while True:
        try:
            with smtplib.LMTP("127.0.0.1", port, timeout=120) as client:
                refused = client.sendmail(f"player{n}@example.org",
                                          [f"play+{n}.{'0' * 24}@{DOMAIN}"], raw)
            outcome["stored"] += not refused
            return
        except smtplib.SMTPResponseException as error:
            if error.smtp_code == 421 or 400 <= error.smtp_code < 500:
                outcome["deferred"] += 1
                time.sleep(retry)
                continue
            outcome["errors"].append(f"{error.smtp_code} {error.smtp_error!r}")
            return
        except smtplib.SMTPServerDisconnected as error:  # 421 said at the connection's start
            outcome["deferred"] += 1
            outcome["disconnects"].append(str(error))
            time.sleep(retry)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--megabytes", type=float, default=9.9)
    parser.add_argument("--retry", type=float, default=0.5,
                        help="seconds a client turned away waits before it tries again")
    options = parser.parse_args()
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    env = {**os.environ, "DATABASE_URL": db_url, "DEBUG": "0", "ALLOWED_HOSTS": "localhost",
           "SECRET_KEY": secrets.token_urlsafe(50), "MAIL_DOMAIN": DOMAIN,
           "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"}
    env.pop("REDIS_URL", None)
    fresh(db_url, env)
    size = int(options.megabytes * 1024 * 1024)
    raws = [message(size, n) for n in range(options.clients)]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "manage.py", "mailreceiver", "--lmtp", "--port",
                             str(port)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()
        if f":{port}" not in banner:
            sys.exit(f"the receiver did not start: {banner!r}")
        time.sleep(1.0)
        idle = memory_mb(proc.pid)["VmRSS"]
        outcome = {"stored": 0, "deferred": 0, "errors": [], "disconnects": []}
        start = threading.Event()
        threads = [threading.Thread(target=send, args=(port, raw, n, options.retry, outcome,
                                                       start))
                   for n, raw in enumerate(raws)]
        for thread in threads:
            thread.start()
        began = time.monotonic()
        start.set()
        for thread in threads:
            thread.join()
        took = time.monotonic() - began
        peak = memory_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(60)
    print(f"mail receiver (LMTP), {options.clients} clients at once, "
          f"{len(raws[0]) / 1024 / 1024:.1f} MB each:")
    print(f"  memory: {idle:.0f} MB at rest, peak {peak['VmHWM']:.0f} MB (VmHWM), "
          f"{peak['VmRSS']:.0f} MB after")
    print(f"  stored {outcome['stored']} of {options.clients} in {took:.1f} s; "
          f"asked to come back later {outcome['deferred']} times")
    for error in outcome["errors"]:
        print("  refused:", error)


if __name__ == "__main__":
    main()
