"""Benchmark of the decision mails' latency: the time from a decision's creation to its mail in a
local SMTP sink, with many games under way.

``--games`` games of Mascarade (200 by default), each with one human player, who wants mail,
and three bots, are kept under way (an ended game is replaced by a new one). This script plays
the humans: each decision awaited from one is answered (a random legal move, through the same
service as every move) ``--think`` seconds after it was created (uniform between the two bounds;
people by mail take their time). The bots are played by the worker, as in production. The
worker is one ``celery worker`` with beat (the sweep every ``SWEEP_SECONDS``), its default
pool (one process per core, ``--concurrency``), sending its mail over SMTP to an aiosmtpd sink
in this process, which notes when each message arrives.

A decision's latency is from its mail row's ``created_at`` (written in the transaction that
created the decision) to the arrival at the sink of the mail that carried it: its own, or the
one it was folded into (a burst of decisions gives one mail). Decisions created during the
``--seconds`` measured (after ``--warmup``: the games are all created at the start, and the
worker needs about a minute to catch up with their first moves and mails) count; the mails
then have ``MAIL_MAX_WAIT_SECONDS`` and two sweeps to arrive. It prints the decisions, the
mails that carried them, those skipped (answered or passed before their mail went) and the
p50/p99/max latency (goal: p99 under 10 s).

    .venv/bin/python bench/mail_latency.py
    .venv/bin/python bench/mail_latency.py --games 50 --seconds 20 --warmup 30

The servers are started here and stopped at the end, as ``bench/api.py`` starts them (its
``Servers``): a PostgreSQL cluster and a Redis of their own in a temporary folder; none of the
machine's own is used.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from _common import bench_module
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[1]
DOMAIN = "mascarade.bench"


def load_servers():
    """``bench/api.py``'s ``Servers`` (how the benches start PostgreSQL and Redis)."""
    module = bench_module("api")
    return module.Servers, module.percentile, module.free_port


class Sink:
    """aiosmtpd's handler: when each message arrived, by recipient."""

    def __init__(self):
        self.arrived: dict[str, list[float]] = defaultdict(list)
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        now = time.time()
        with self.lock:
            for address in envelope.rcpt_tos:
                self.arrived[address.lower()].append(now)
            self.count += 1
        return "250 OK"

    def arrival(self, address: str, sent_at: float) -> float | None:
        """When the mail to ``address`` that the worker recorded sent at ``sent_at`` arrived:
        the last arrival for that address before then (the worker records a mail sent once the
        sink has answered it)."""
        with self.lock:
            before = [at for at in self.arrived.get(address.lower(), []) if at <= sent_at]
        return before[-1] if before else None


def start_worker(env: dict[str, str], concurrency: int, tmp: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "mascarade_site", "worker", "--beat",
         "--concurrency", str(concurrency), "--loglevel", "WARNING",
         "--schedule", str(tmp / "celerybeat-schedule")],
        cwd=ROOT, env=env, start_new_session=True)


def stop_worker(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class Table:
    """The games under way and their human players, played from this process."""

    def __init__(self, count: int, think: tuple[float, float], rng: random.Random):
        from accounts.models import User

        self.count, self.think, self.rng = count, think, rng
        self.users = list(User.objects.bulk_create(
            [User(username=f"h{i}", email=f"h{i}@bench.test", notify_email=True)
             for i in range(4 * count)]))
        self.free = list(self.users)
        self.games: dict[str, object] = {}  # game id -> its human
        self.answer_at: dict[int, float] = {}
        self.moves = 0

    def keep_under_way(self) -> None:
        """New games for those that ended (each with a human not playing elsewhere)."""
        from games.core import services
        from games.models import Game

        ended = set(Game.objects.filter(pk__in=list(self.games))
                    .exclude(status=Game.Status.ACTIVE).values_list("pk", flat=True))
        for game_id in ended:
            self.free.append(self.games.pop(str(game_id)))
        while len(self.games) < self.count and self.free:
            human = self.free.pop(0)
            body = services.create_game(human, "mascarade", {"players": 4}, bots=3).body
            self.games[str(body["id"])] = human

    def answer_due(self) -> None:
        """Each human decision whose think time has passed: a random legal move."""
        from games.core import selectors, services
        from games.core.catalog import get_game
        from games.core.errors import ApplicationError, StaleSeq
        from games.engine import EngineError
        from games.models import PendingDecision

        now = time.time()
        rows = list(PendingDecision.objects.filter(game_id__in=list(self.games), bot=False)
                    .values_list("pk", "game_id", "player", "created_at"))
        live = set()
        for pk, game_id, player, created in rows:
            live.add(pk)
            if pk not in self.answer_at:
                self.answer_at[pk] = created.timestamp() + self.rng.uniform(*self.think)
            if self.answer_at[pk] > now:
                continue
            game = selectors.find_game(game_id)
            legal = get_game(game.kind).legal_moves(selectors.load_state(game), player)
            if not legal:
                continue
            try:
                services.submit_move(game.pk, self.rng.choice(legal),
                                     user=self.games[str(game_id)], expected_seq=game.seq)
                self.moves += 1
            except (StaleSeq, EngineError, ApplicationError):
                pass  # the game moved on meanwhile: its next decision is answered next
        self.answer_at = {pk: at for pk, at in self.answer_at.items() if pk in live}


def measure(sink: Sink, start: float, end: float) -> dict:
    """The decisions' mails written between ``start`` and ``end``: their fate and latency."""
    import datetime as dt

    from games.models import Notification
    from games.notify.outbox import DECISION_KINDS

    since = dt.datetime.fromtimestamp(start, dt.UTC)
    until = dt.datetime.fromtimestamp(end, dt.UTC)
    rows = list(Notification.objects.filter(kind__in=DECISION_KINDS, created_at__gte=since,
                                            created_at__lt=until)
                .values_list("pk", "status", "folded_into", "created_at"))
    carriers = {pk: (email, sent_at) for pk, email, sent_at in Notification.objects.filter(
        pk__in={r[2] or r[0] for r in rows}, status=Notification.Status.SENT)
        .values_list("pk", "user__email", "sent_at")}
    latencies, skipped, unsent, mails = [], 0, 0, set()
    for pk, status, folded_into, created in rows:
        if status == Notification.Status.SKIPPED:
            skipped += 1
            continue
        carrier = folded_into or pk
        arrived = None
        if carrier in carriers:
            address, sent_at = carriers[carrier]
            arrived = sink.arrival(address, sent_at.timestamp() + 0.05)
        if arrived is None:
            unsent += 1
            continue
        mails.add(carrier)
        latencies.append(arrived - created.timestamp())
    return {"decisions": len(rows), "mailed": len(latencies), "mails": len(mails),
            "skipped": skipped, "unsent": unsent, "latencies": latencies}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games under way (200)")
    parser.add_argument("--seconds", type=float, default=60, help="measured (60)")
    parser.add_argument("--warmup", type=float, default=120,
                        help="before the measure (120: the games' creation, all at once, "
                             "leaves the worker about a minute of work)")
    parser.add_argument("--think", default="30,120",
                        help="a human answers between these many seconds (30,120)")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="the worker's processes (the machine's cores)")
    args = parser.parse_args()
    think = tuple(float(x) for x in args.think.split(","))
    Servers, percentile, free_port = load_servers()
    servers = Servers(ROOT)
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    worker = None
    try:
        servers.start_postgres()
        servers.start_redis()
        env = {**servers.env("postgres"), "EMAIL_URL": f"smtp://127.0.0.1:{controller.port}",
               "SITE_URL": f"https://{DOMAIN}", "MAIL_DOMAIN": DOMAIN}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        controller.start()
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings

        worker = start_worker(env, args.concurrency, servers.tmp)
        table = Table(args.games, think, random.Random(42))
        table.keep_under_way()
        print(f"{args.games} games under way (one human, three bots each), the humans "
              f"answering in {think[0]:g}-{think[1]:g} s; a worker with beat (concurrency "
              f"{args.concurrency}, sweep every {settings.SWEEP_SECONDS:g} s); "
              f"MAIL_DEBOUNCE_SECONDS={settings.MAIL_DEBOUNCE_SECONDS:g}, "
              f"MAIL_MAX_WAIT_SECONDS={settings.MAIL_MAX_WAIT_SECONDS:g}; PostgreSQL and "
              f"Redis of their own; {os.cpu_count()} cores", flush=True)
        deadlines = bench_module("deadlines")  # (how it reads the cores' busy time)
        cpu_times, cpu_busy = deadlines.cpu_times, deadlines.cpu_busy
        began = time.time()
        start, end = began + args.warmup, began + args.warmup + args.seconds
        last_kept = 0.0
        cpu = None
        while time.time() < end:
            if cpu is None and time.time() >= start:
                cpu = cpu_times()
            table.answer_due()
            if time.time() - last_kept > 1:
                table.keep_under_way()
                last_kept = time.time()
            time.sleep(0.1)
        busy = cpu_busy(cpu or cpu_times(), cpu_times())
        # The mails of the last decisions: their debounce, the bots' burst, two sweeps.
        time.sleep(settings.MAIL_MAX_WAIT_SECONDS + 2 * settings.SWEEP_SECONDS + 2)
        result = measure(sink, start, end)
    finally:
        if worker is not None:
            stop_worker(worker)
        controller.stop()
        servers.stop()
    lat = result["latencies"]
    p50, p99 = percentile(lat, 0.5), percentile(lat, 0.99)
    print(f"{table.moves} human moves in {args.warmup + args.seconds:g} s; "
          f"{result['decisions']} decisions awaited from the humans during the "
          f"{args.seconds:g} s measured: {result['mailed']} mailed in {result['mails']} mails, "
          f"{result['skipped']} skipped (passed before their mail), {result['unsent']} "
          f"not mailed; the machine's cores were {busy:.0%} busy meanwhile", flush=True)
    verdict = "PASS" if lat and p99 < 10 and not result["unsent"] else "MISS"
    print(f"decision to mail at the SMTP sink: p50 {p50:.2f} s, p99 {p99:.2f} s, max "
          f"{max(lat) if lat else float('nan'):.2f} s (goal: p99 < 10 s {verdict})",
          flush=True)


if __name__ == "__main__":
    main()
