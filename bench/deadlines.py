"""Benchmark of asynchronous play: deadlines falling due together, and the mail outbox.

1. ``--games`` games (default 1,000) whose deadlines all fall due in the same second, one Celery
   worker with beat running the sweep every ``SWEEP_SECONDS``: time until every one is
   resolved, and the p50/p99 lateness of the timeout moves
   (goal: all within 10 s, p99 lateness <= sweep interval + 1 s). The deadlines are a day
   long when set (no countdown task): the sweep before they fall due hands them to tasks
   that run when they do. Their players want mail: each timeout writes a "your turn" message
   for the next player, delivered meanwhile. Lateness is a move record's ``created_at``
   (written in a transaction that commits with its batch, at most ``RESOLVE_BATCH`` games).
2. ``--mails`` queued notifications (default 10,000) delivered by the same worker to a local
   SMTP sink: messages per second (goal >= 200/s).

"One worker" is one ``celery worker`` (with beat) and its default pool: one process per core
(``--concurrency``, default the machine's cores); the sweep runs every ``--sweep`` seconds (the
service's default, 5).

    .venv/bin/python bench/deadlines.py          # --quick: 200 games, 1,000 mails

Real PostgreSQL (``BENCH_DATABASE_URL``, default ``mascarade_bench_deadlines`` on the local
server: dropped and created anew), real Redis (``BENCH_REDIS_URL``, default db 9 on the local
server: flushed), a real worker process.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from urllib.parse import urlsplit

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import asyncore as _asyncore
    import smtpd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_deadlines"
DEFAULT_REDIS = "redis://127.0.0.1:6379/9"


class Sink(smtpd.SMTPServer):
    """An SMTP server that accepts every message and counts them."""

    received = 0

    def process_message(self, peer, mailfrom, rcpttos, data, **kwargs):
        Sink.received += 1


def start_sink(port: int) -> threading.Thread:
    Sink(("127.0.0.1", port), None, decode_data=False)
    thread = threading.Thread(target=_asyncore.loop, kwargs={"timeout": 0.1}, daemon=True)
    thread.start()
    return thread


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def environment(db_url: str, redis_url: str, smtp_port: int, sweep: float) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": db_url, "REDIS_URL": redis_url, "DEBUG": "0",
        "ALLOWED_HOSTS": "localhost",
        "SECRET_KEY": secrets.token_urlsafe(50), "SWEEP_SECONDS": str(sweep),
        "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}", "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "mascarade_site.settings",
        "VAR_DIR": str(ROOT / "var" / "bench"),
    })
    return env


def fresh(db_url: str, redis_url: str, env: dict[str, str]) -> None:
    parts = urlsplit(db_url)
    args = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
            "-U", parts.username or "postgres"]
    name = parts.path.lstrip("/")
    subprocess.run(["dropdb", "--if-exists", *args, name], check=True)
    subprocess.run(["createdb", *args, name], check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)
    import redis

    redis.Redis.from_url(redis_url).flushdb()


def start_worker(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "mascarade_site", "worker", "--beat",
         "--concurrency", env["BENCH_CONCURRENCY"], "--loglevel", "WARNING", "--schedule",
         str(Path(env["VAR_DIR"]) / "celerybeat-schedule")],
        cwd=ROOT, env=env, start_new_session=True)


def stop_worker(proc: subprocess.Popen) -> None:
    """Warm shutdown (SIGTERM to the main process: the tasks under way finish, the others stay
    queued); the whole process group is killed if it takes more than 30 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def make_games(count: int) -> list[str]:
    """``count`` started games of four seats (four users each, who want their mails), nothing
    played yet."""
    from accounts.models import User
    from games.core import services

    users = User.objects.bulk_create([User(username=f"d{i}", email=f"d{i}@bench.test",
                                           notify_email=True) for i in range(4 * count)])
    ids = []
    for k in range(count):
        seat_users = users[4 * k:4 * k + 4]
        game_id = services.create_game(seat_users[0], "mascarade", {"players": 4}).body["id"]
        for user in seat_users[1:]:
            services.join_game(user, game_id)
        ids.append(game_id)
    return ids


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot (Linux ``/proc/stat``; zeros elsewhere)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except OSError:
        return 0, 0
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def cpu_busy(before: tuple[int, int], after: tuple[int, int]) -> float:
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total else float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def bench_deadlines(count: int, env: dict[str, str], sweep: float) -> None:
    import datetime as dt

    from django.db import connection
    from django.utils import timezone

    from games.models import MoveRecord, Notification, PendingDecision

    make_games(count)
    # Set-up left its own mails and their delivery tasks behind: not part of the measure.
    Notification.objects.all().delete()
    # Statistics as autovacuum keeps them in a service that has been running (a fresh bulk
    # load has none, and the planner then scans whole tables).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    # Far enough ahead that the worker is up and beat has swept at least once before: as in a
    # service that has been running, the sweep before the deadline sees it coming.
    due = timezone.now().replace(microsecond=0) + dt.timedelta(seconds=sweep + 8)
    PendingDecision.objects.update(deadline=due, remind_at=None)
    connection.close()
    worker = start_worker(env)
    try:
        while timezone.now() < due:
            time.sleep(0.05)
        cpu_at_due = cpu_times()
        limit = due + dt.timedelta(seconds=120)
        while timezone.now() < limit:
            done = MoveRecord.objects.filter(actor="timeout").count()
            if done >= count:
                break
            time.sleep(0.2)
        busy = cpu_busy(cpu_at_due, cpu_times())
        records = list(MoveRecord.objects.filter(actor="timeout", seq=1)
                       .values_list("created_at", flat=True))
    finally:
        stop_worker(worker)
    late = [(at - due).total_seconds() for at in records]
    all_in = max(late) if late else float("nan")
    p50, p99 = percentile(late, 0.5), percentile(late, 0.99)
    first = min(late) if late else float("nan")
    print(f"deadlines: {len(records)} of {count} games resolved; all within {all_in:.2f} s "
          f"(goal <= 10 s {'PASS' if len(records) == count and all_in <= 10 else 'MISS'}); "
          f"lateness: first {first:.2f} s, p50 {p50:.2f} s, p99 {p99:.2f} s "
          f"(goal <= {sweep + 1:.1f} s "
          f"{'PASS' if p99 <= sweep + 1 else 'MISS'}); the machine's cores were "
          f"{busy:.0%} busy meanwhile", flush=True)


def bench_mails(count: int, env: dict[str, str]) -> None:
    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from games.models import Notification

    user = User.objects.create(username="reader", email="reader@bench.test")
    # The mails of the deadlines above and their delivery tasks: not part of this measure.
    Notification.objects.all().delete()
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    start_count = Sink.received
    now = timezone.now()
    Notification.objects.bulk_create(
        [Notification(user=user, kind="started", dedupe_key=f"bench:{i}", next_attempt_at=now)
         for i in range(count)], batch_size=2000)
    connection.close()
    worker = start_worker(env)
    started = time.perf_counter()
    try:
        deadline = started + 600
        while time.perf_counter() < deadline and Sink.received - start_count < count:
            time.sleep(0.1)
        elapsed = time.perf_counter() - started
    finally:
        stop_worker(worker)
    got = Sink.received - start_count
    sent = Notification.objects.filter(status="sent").count()
    rate = got / elapsed if elapsed else float("nan")
    print(f"mail: {got} of {count} messages at the SMTP sink ({sent} marked sent) in "
          f"{elapsed:.1f} s from the worker's start: {rate:.0f} messages/s "
          f"(goal >= 200/s {'PASS' if rate >= 200 else 'MISS'})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--mails", type=int, default=10_000)
    parser.add_argument("--sweep", type=float, default=5.0, help="SWEEP_SECONDS")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.games, args.mails = 200, 1000
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    port = free_port()
    env = environment(db_url, redis_url, port, args.sweep)
    env["BENCH_CONCURRENCY"] = str(args.concurrency)
    Path(env["VAR_DIR"]).mkdir(parents=True, exist_ok=True)
    fresh(db_url, redis_url, env)
    os.environ.update(env)
    import django

    django.setup()
    start_sink(port)
    print(f"PostgreSQL {urlsplit(db_url).path[1:]}, Redis {redis_url}, one worker "
          f"(concurrency {args.concurrency}) with beat, sweep every {args.sweep:g} s; "
          f"{os.cpu_count()} cores",
          flush=True)
    bench_deadlines(args.games, env, args.sweep)
    bench_mails(args.mails, env)


if __name__ == "__main__":
    main()
