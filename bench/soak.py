"""The soak: bots play the three games for a set time through ``make prod-local`` (nginx in front
of two web processes, two stream processes, two workers, beat and the mail receiver, all under
supervisord), on loopback only, while its processes are killed on a schedule; then it checks
that nothing was lost, doubled or left behind, and prints the figures.

    .venv/bin/python bench/soak.py            # 60 minutes (docs/performance.md's figures)
    .venv/bin/python bench/soak.py --ci       # 3 minutes; exit status 1 if a check fails
    .venv/bin/python bench/soak.py --attach   # on a prod-local already running

What plays (each group plays its games one after the other, until the time is up):

- **API players** answer the ``decision`` messages of their ``/api/v1/me/stream/`` with
  ``POST /moves/`` (``expected_seq``, an ``Idempotency-Key`` kept across retries), through
  nginx; a few groups post to one web process directly (bypassing nginx) while a spectator of
  their game listens on the *other* stream process: the cross-process check. Every game has a
  spectator on one of the two stream processes (directly), timing each move's arrival. Each game
  has a chat message from its creator, and the first player of each group has a webhook endpoint
  (a local receiver).
- **Mail players** play games with bots by mail only: each decision mail that reaches the local
  SMTP sink (the site's ``EMAIL_URL``) is answered, from the player's verified address, with one
  of its numbered commands, over SMTP to the mail receiver (``play+<token>@MAIL_DOMAIN``).
- **Absent players** sit in games with an API player and bots and never play: this script moves
  each of their deadlines a few seconds ahead (as the tests do: the sweep then finds it due), the
  rules' default move is played for them, and once they are marked absent a bot plays their seat.

The faults, at fixed shares of the time: a web process, a stream process and a worker killed
with SIGKILL (supervisord starts them again), Redis restarted, the soak database's PostgreSQL
backends terminated (``pg_terminate_backend``, that database only), beat stopped for a minute
(a fifth of the time, in shorter runs).

What it checks and prints at the end: every game ended; each game replayed from its move records
equals its snapshot, and every move the API accepted (``201``) or a mail played is the record of
its seq (none lost, none doubled); every mail at the sink came once per Message-ID and every
webhook delivery once per ``Mascarade-Delivery`` and per cause (one more allowed for each worker
process killed or cut from the database: the one in flight), none left unsent (but a mail a
fault left "sending": the sweep takes it back 15 minutes later, by design); no 5xx answer
outside the instants of the faults;
every move of the cross-process games seen by the other stream process; the latencies (p50/p99)
of a move's ``POST``, of a move reaching the other players' ``/me/stream/``, of a move reaching
the spectators' game streams (each stream process), of a decision reaching its mail; each
program's memory (RSS, with its children) at the start and at the end.

It uses the database ``mascarade_soak`` of the PostgreSQL on 127.0.0.1:5432 (created if need be)
and prod-local's own Redis, ports 18500 to 18599. Push messages (Web Push) are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email
import email.policy
import http.client
import json
import os
import random
import re
import secrets
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import uvloop
from _common import bench_module
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[1]
DATABASE = "mascarade_soak"
PORT = 18500  # nginx (PROD_LOCAL_PORT); prod-local's other programs take the next six
SINK_PORT = 18510  # the SMTP sink: the site's EMAIL_URL
HOOK_PORT = 18511  # the webhook receiver
MAIL_DOMAIN = "soak.test"
#: The programs prod-local runs under supervisord.
PROGRAMS = ("nginx", "web-1", "web-2", "stream-1", "stream-2", "worker-1", "worker-2", "beat",
            "mailin", "redis")
#: A program's memory may grow by this share, or by this many MB, whichever is more.
MEMORY_GROWTH = (0.5, 100)
#: After a fault, answers within this many seconds of the program answering again are its own.
SETTLE = 10.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def now() -> float:
    return time.time()


# --------------------------------------------------------------------------------------------
# prod-local


class ProdLocal:
    """``make prod-local``'s stack (``docker/prod_local.py start``, or one already running:
    ``attach``), described by its ``prod-local.json``; its programs controlled with its
    ``supervisorctl``."""

    def __init__(self, env: dict[str, str], attach: bool):
        self.env, self.attach = env, attach
        self.dir = Path(env["PROD_LOCAL_DIR"])
        self.started = False
        self.ports: dict[str, int] = {}
        self.description: dict = {}

    def script(self, command: str) -> None:
        out = subprocess.run([sys.executable, str(ROOT / "docker" / "prod_local.py"), command],
                             cwd=ROOT, env=self.env, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"bench/soak.py: docker/prod_local.py {command} failed:\n"
                             f"{out.stdout}{out.stderr}")

    def start(self) -> None:
        if not self.attach:
            self.started = True
            self.script("start")
        path = self.dir / "prod-local.json"
        if not path.exists():
            raise SystemExit(f"bench/soak.py: no {path}: is prod-local running there?")
        self.description = json.loads(path.read_text())
        self.ports = {name: int(port) for name, port in self.description["ports"].items()}
        missing = [name for name in PROGRAMS if name not in self.description["programs"]]
        if missing or not self.description.get("own_redis"):
            raise SystemExit(f"bench/soak.py: prod-local lacks {missing or 'its own Redis'}")

    def ctl(self, *args: str, check: bool = False) -> str:
        out = subprocess.run([*self.description["supervisorctl"], *args], capture_output=True,
                             text=True, cwd=ROOT, timeout=120)
        if check and out.returncode:
            raise RuntimeError(f"supervisorctl {' '.join(args)}: {out.stdout}{out.stderr}")
        return out.stdout

    def status(self) -> dict[str, str]:
        out = {}
        for line in self.ctl("status").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                out[parts[0].split(":")[-1]] = parts[1]
        return out

    def pid(self, name: str) -> int:
        out = self.ctl("pid", name).strip()
        return int(out) if out.isdigit() and out != "0" else 0

    def wait_running(self, name: str, seconds: float = 120) -> float:
        """When ``name`` serves again: RUNNING in supervisord, and answering (``/healthz``
        for a web or stream process, a connection for the mail receiver, ``PING`` for
        Redis)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.status().get(name) == "RUNNING" and self.pid(name) and self.serves(name):
                return now()
            time.sleep(0.3)
        raise RuntimeError(f"{name} not serving again after {seconds:g} s")

    def serves(self, name: str) -> bool:
        port = self.ports.get(name)
        if port is None:
            return True
        if name.startswith(("web", "stream")):  # (as docker/prod_local.py asks when ready)
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
                ok = conn.getresponse().status == 200
                conn.close()
                return ok
            except (OSError, http.client.HTTPException):
                return False
        try:
            with socket.create_connection(("127.0.0.1", port), 2) as sock:
                if name == "redis":
                    sock.settimeout(5)
                    sock.sendall(b"PING\r\n")
                    return sock.recv(16).startswith(b"+PONG")
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.started:
            self.script("stop")


def rss_tree(pid: int) -> int:
    """The resident memory (kB) of ``pid`` and all its descendants."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
    family, grew = {pid}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    total = 0
    for each in family:
        with contextlib.suppress(OSError), open(f"/proc/{each}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


# --------------------------------------------------------------------------------------------
# The mail sink, the webhook receiver


class Sink:
    """The site's outgoing mail (aiosmtpd's handler): each message with when it arrived; those to
    a mail player handed to ``on_mail`` (from the SMTP thread)."""

    def __init__(self):
        self.messages: list[tuple[float, list[str], str, email.message.EmailMessage]] = []
        self.arrived: dict[str, list[float]] = defaultdict(list)
        self.lock = threading.Lock()
        self.on_mail = None

    async def handle_DATA(self, server, session, envelope):
        at = now()
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        rcpts = [r.lower() for r in envelope.rcpt_tos]
        with self.lock:
            self.messages.append((at, rcpts, str(message.get("Message-ID", "")), message))
            for rcpt in rcpts:
                self.arrived[rcpt].append(at)
        on_mail = self.on_mail
        if on_mail is not None:
            for rcpt in rcpts:
                with contextlib.suppress(RuntimeError):  # (the players' loop just closed)
                    on_mail(rcpt, message)
        return "250 OK"

    def arrival(self, address: str, sent_at: float) -> float | None:
        """As ``bench/mail_latency.py``'s sink: the last arrival at ``address`` before the
        worker recorded the mail sent."""
        with self.lock:
            before = [at for at in self.arrived.get(address.lower(), []) if at <= sent_at]
        return before[-1] if before else None


class Hooks:
    """The webhook receiver: each post's delivery id, type and body."""

    def __init__(self, port: int):
        self.posts: list[tuple[float, str, dict]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with contextlib.suppress(ValueError):
                    receiver.posts.append((now(), self.headers.get("Mascarade-Delivery", ""),
                                           orjson.loads(body)))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------------------------
# HTTP


class Unanswered(Exception):
    """No answer: the connection failed or closed before it."""


class Conn:
    """One kept-alive HTTP/1.1 connection to 127.0.0.1:port, one request at a time."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, token: str | None = None, body=None,
                      headers: dict | None = None, timeout: float = 30) -> tuple[int, object]:
        data = orjson.dumps(body) if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if token:
            head += f"Authorization: Token {token}\r\n"
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        request = head.encode() + b"\r\n" + data
        reused = self.writer is not None
        try:
            if self.writer is None:
                self.reader, self.writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", self.port), 10)
            self.writer.write(request)
            return await asyncio.wait_for(self.answer(), timeout)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            self.close()
            nothing = isinstance(exc, (ConnectionResetError, BrokenPipeError)) or (
                isinstance(exc, asyncio.IncompleteReadError) and not exc.partial)
            if not (reused and nothing):
                raise Unanswered(repr(exc)) from exc
        # A kept-alive connection the server had closed while idle (not one byte came back):
        # sent again on a new one, as HTTP clients do (a POST carries its Idempotency-Key).
        try:
            self.reader, self.writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.port), 10)
            self.writer.write(request)
            return await asyncio.wait_for(self.answer(), timeout)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            self.close()
            raise Unanswered(repr(exc)) from exc

    async def answer(self) -> tuple[int, object]:
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _sep, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            payload = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            payload = b""
            while True:
                size = int((await self.reader.readline()).split(b";")[0].strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if not size:
                    break
                payload += chunk[:-2]
        else:
            payload = await self.reader.read()
            self.close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        parsed: object = {}
        if payload and headers.get("content-type", "").startswith("application/json"):
            with contextlib.suppress(ValueError):
                parsed = orjson.loads(payload)
        return status, parsed


async def sse(port: int, path: str, token: str | None, on_message, stop: asyncio.Event) -> None:
    """Reads the Server-Sent Events of ``path`` (HTTP/1.0: no chunks), each message handed to
    ``on_message(event, id, data)``, until it ends (``end``), ``stop`` is set or the connection
    drops (then it returns: the caller opens it again)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
    except (OSError, TimeoutError):
        return
    try:
        head = f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if token:
            head += f"Authorization: Token {token}\r\n"
        writer.write(head.encode() + b"\r\n")
        status_line = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
        status = int(status_line.split(b" ", 2)[1])
        if status != 200:
            return
        event, ident, data = "message", None, []
        while not stop.is_set():
            line = await asyncio.wait_for(reader.readline(), 40)  # (a heartbeat every 15 s)
            if not line:
                return
            text = line.decode().rstrip("\r\n")
            if text == "":
                if data and on_message(event, ident, orjson.loads("\n".join(data))) is False:
                    return
                event, ident, data = "message", None, []
            elif text.startswith(":"):
                continue
            else:
                name, _sep, value = text.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "event":
                    event = value
                elif name == "id":
                    ident = value
                elif name == "data":
                    data.append(value)
    except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError,
            asyncio.LimitOverrunError):
        return
    finally:
        writer.close()


# --------------------------------------------------------------------------------------------
# The players


class Record:
    """What the clients saw: every answer (status, when), the moves accepted, the latencies."""

    def __init__(self):
        self.answers: list[tuple[float, float, int, str]] = []  # sent, answered, status, what
        self.unanswered: list[tuple[float, float, str]] = []
        self.accepted: list[tuple[str, int, str, dict]] = []  # game, seq, username, move
        self.posted: dict[tuple[str, int], float] = {}  # (game, seq) -> when its POST was sent
        self.post_ms: list[tuple[float, float]] = []  # (sent, ms)
        #: (game, seq) -> the first arrival of a decision at that seq on each user's stream
        self.told: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
        self.to_spectators: dict[str, dict[tuple[str, int], float]] = defaultdict(dict)
        self.cross: list[tuple[str, str]] = []  # (game, the stream process watching it)
        self.watched_to_end: set[str] = set()  # the games whose spectator was told their end
        #: (game, seq) of the moves whose answer was still awaited when the soak stopped
        self.in_flight: set[tuple[str, int]] = set()
        self.games: dict[str, str] = {}  # game -> its group's label
        self.refused: Counter = Counter()  # unexpected 4xx: (what, status, code)
        self.mail_sent = 0
        self.chat = 0
        self.errors: list[str] = []


class User:
    def __init__(self, name: str, token: str, email_address: str, pk: int):
        self.name, self.token, self.email, self.pk = name, token, email_address, pk
        self.decision: dict | None = None  # the newest decision told for the current game
        self.news = asyncio.Event()
        self.game: str | None = None
        #: The newest decision told for a game the table does not know yet: a game that starts
        #: as it is created (its other seats bots) tells it before the create's answer arrives.
        self.early: dict[str, dict] = {}
        self.ended = asyncio.Event()


class Soak:
    def __init__(self, args, ports: dict[str, int], record: Record, rng: random.Random):
        self.args, self.ports, self.record, self.rng = args, ports, record, rng
        self.stop = asyncio.Event()  # everything stops (the end)
        self.start_at = now()
        self.new_games_until = 0.0
        #: When the games should all have ended (a margin before the drain's end).
        self.games_end = 0.0
        self.mail_users: dict[str, User] = {}  # by address
        self.absent: list[User] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    # ---- requests

    async def call(self, conn: Conn, what: str, method: str, path: str, user: User | None,
                   body=None, expect=(200, 201), retries: int = 40,
                   key: str | None = None) -> tuple[int, object]:
        """A request, sent again (same ``Idempotency-Key`` for a ``POST``: ``key``, or a new
        one) while unanswered or answered 5xx, ``retries`` times at most (status 0: never
        answered); each answer recorded."""
        headers = {"Idempotency-Key": key or str(uuid.uuid4())} if method == "POST" else None
        status, answer = 0, {}
        for _ in range(retries):
            sent = time.monotonic()
            sent_at = now()
            try:
                status, answer = await conn.request(method, path, user.token if user else None,
                                                    body, headers)
            except Unanswered as exc:
                self.record.unanswered.append((sent_at, now(), f"{what}: {exc}"))
                await asyncio.sleep(0.5)
                continue
            self.record.answers.append((sent_at, now(), status, what))
            if what == "move":
                self.record.post_ms.append((sent_at, (time.monotonic() - sent) * 1000))
            if status >= 500:
                await asyncio.sleep(0.5)
                continue
            if status not in expect:
                code = answer.get("code") if isinstance(answer, dict) else None
                self.record.refused[(what, status, code)] += 1
            return status, answer
        return status, answer

    # ---- streams

    async def me_stream(self, user: User, port: int) -> None:
        """The user's ``/me/stream/``, opened again whenever it drops."""

        def told(event: str, _id, data: dict) -> None:
            if event == "decision":
                self.record.told[(data["game"], data["seq"])].setdefault(user.name, now())
                if data["game"] == user.game and (user.decision is None
                                                  or data["seq"] >= user.decision["seq"]):
                    user.decision = data
                    user.news.set()
                elif data["game"] != user.game and (data["game"] not in user.early or data["seq"]
                                                    >= user.early[data["game"]]["seq"]):
                    user.early[data["game"]] = data
            elif event == "game_ended" and data["game"] == user.game:
                user.ended.set()
                user.news.set()

        while not self.stop.is_set():
            await sse(port, "/api/v1/me/stream/", user.token, told, self.stop)
            await asyncio.sleep(0.5)

    async def spectator(self, game: str, watcher: User, process: str, done: asyncio.Event) -> None:
        """A spectator of ``game`` on one stream process (directly): when each move came (its
        ``move`` message, or for a move a spectator sees nothing of, no events, the ``game``
        message that says the game is at that seq or later)."""
        port = self.ports[process]
        last = [0]
        seen = self.record.to_spectators[process]

        def told(event: str, ident, data: dict):
            if event == "move":
                seen.setdefault((game, data["seq"]), now())
                last[0] = max(last[0], data["seq"])
            elif event == "game":
                at = now()
                for seq in range(1, data["seq"] + 1):
                    seen.setdefault((game, seq), at)
                last[0] = max(last[0], data["seq"])
            elif event == "end":
                self.record.watched_to_end.add(game)
                done.set()
                return False
            return None

        while not done.is_set() and not self.stop.is_set():
            # (always a cursor: every move after the last one seen, from the first)
            await sse(port, f"/api/v1/games/{game}/stream/?after={last[0]}", watcher.token, told,
                      self.stop)
            await asyncio.sleep(0.5)

    # ---- API players

    async def api_group(self, label: str, kind: str, humans: list[User], bots: int,
                        route: str, watch: str, watcher: User, absent: User | None = None,
                        options: dict | None = None) -> None:
        """A table of ``humans`` (and ``bots``, and an ``absent`` player) playing ``kind``,
        game after game, their moves posted to ``route`` (``nginx``, ``web-1``, ``web-2``),
        each game watched from the stream process ``watch``."""
        nginx = Conn(self.ports["nginx"])
        conns = {user.name: Conn(self.ports[route]) for user in humans}  # (one each)
        seats = len(humans) + bots + (1 if absent else 0)
        lengths: list[float] = []
        while not self.stop.is_set():
            if not self.another_game(lengths, 20.0):
                return
            began = now()
            status, game = await self.call(nginx, "create", "POST", "/api/v1/games/", humans[0], {
                "game": kind, "options": {"players": seats, **(options or {})}, "bots": bots})
            if status != 201:
                self.record.errors.append(f"{label}: create {status} {game}")
                await asyncio.sleep(5)
                continue
            gid = game["id"]
            self.record.games[gid] = label
            for user in (*humans, *( [absent] if absent else [])):
                user.game, user.decision = gid, user.early.pop(gid, None)
                user.early.clear()
                user.ended.clear()
                user.news.clear()
                if user.decision is not None:
                    user.news.set()
            for user in (*humans[1:], *([absent] if absent else [])):
                status, answer = await self.call(nginx, "join", "POST",
                                                 f"/api/v1/games/{gid}/join/", user, {},
                                                 expect=(200, 409))
                # (409 already_seated: a join sent again after an unanswered one, which had
                # seated the player)
                if status != 200 and answer.get("code") != "already_seated":
                    self.record.errors.append(f"{label}: join {status} {answer}")
            watched = asyncio.Event()
            watching = asyncio.create_task(self.spectator(gid, watcher, watch, watched))
            if route != "nginx":
                self.record.cross.append((gid, watch))
            if (await self.call(nginx, "chat", "POST", f"/api/v1/games/{gid}/chat/", humans[0],
                                {"text": f"good luck ({label})"}))[0] == 201:
                self.record.chat += 1
            await asyncio.gather(*(self.mover(user, gid, conns[user.name]) for user in humans),
                                 self.watchdog(gid, humans, nginx))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watched.wait(), 60)
            watching.cancel()
            if (await self.call(nginx, "chat", "POST", f"/api/v1/games/{gid}/chat/", humans[-1],
                                {"text": "good game"}))[0] == 201:
                self.record.chat += 1
            lengths.append(now() - began)

    def another_game(self, lengths: list[float], guess: float) -> bool:
        """Whether a table whose games lasted ``lengths`` (none yet: ``guess`` seconds) starts
        another one now: new games start as long as they do (``new_games_until``) and one as
        long as the table's median would end before ``games_end``."""
        if now() >= self.new_games_until:
            return False
        typical = percentile(lengths, 0.5) if lengths else guess
        return now() + typical <= self.games_end

    async def watchdog(self, gid: str, humans: list[User], conn: Conn) -> None:
        """Reads the game every few seconds: its end (told by the streams, unless one was
        reconnecting then)."""
        while not self.stop.is_set() and not all(u.ended.is_set() for u in humans):
            await asyncio.sleep(15)
            status, read = await self.call(conn, "read", "GET", f"/api/v1/games/{gid}/",
                                           humans[0])
            if status == 200 and read.get("status") not in ("active", "open", "paused"):
                for user in humans:
                    user.ended.set()
                    user.news.set()

    async def mover(self, user: User, gid: str, conn: Conn) -> None:
        done_seq = -1
        while not self.stop.is_set() and not user.ended.is_set():
            decision = user.decision
            if decision is None or decision["seq"] <= done_seq or not decision["legal_moves"]:
                user.news.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(user.news.wait(), 2)
                continue
            await asyncio.sleep(self.rng.uniform(0, 2 * self.args.think))
            move = self.rng.choice(decision["legal_moves"])
            sent = now()
            flying = (gid, decision["seq"] + 1)
            self.record.in_flight.add(flying)
            # The same move with the same Idempotency-Key until it is answered: a process
            # restarting may refuse connections for longer than one call's retries, and a
            # decision given up on is never told again (nobody else moves: the game stalls).
            key = str(uuid.uuid4())
            status, answer = 0, {}
            while not self.stop.is_set():
                status, answer = await self.call(
                    conn, "move", "POST", f"/api/v1/games/{gid}/moves/", user,
                    {"move": move, "expected_seq": decision["seq"]}, expect=(201, 409), key=key)
                if status and status < 500:
                    break
            done_seq = decision["seq"]
            if status:  # (unanswered when the soak stopped: still in flight)
                self.record.in_flight.discard(flying)
            if status == 201:
                self.record.accepted.append((gid, answer["seq"], user.name, move))
                self.record.posted[(gid, answer["seq"])] = sent
                read = answer["game"]
                if read["status"] != "active":
                    user.ended.set()
                    continue
                mine = (read.get("you") or {}).get("legal_moves")
                if mine and (user.decision is None or user.decision["seq"] <= answer["seq"]):
                    user.decision = {"game": gid, "seq": answer["seq"], "legal_moves": mine}

    # ---- mail players

    def on_mail(self, rcpt: str, message) -> None:
        """A mail at the sink (the SMTP thread): a mail player's listing is answered."""
        user = self.mail_users.get(rcpt)
        if user is None or self.loop is None:
            return
        reply_to = str(message.get("Reply-To", ""))
        if "play+" not in reply_to:
            return
        part = message.get_body(preferencelist=("plain",))
        text = part.get_content() if part is not None else ""
        numbers = re.findall(r"^  (\d+)\. \S", text, re.M)
        if not numbers:
            return
        self.loop.call_soon_threadsafe(
            lambda: asyncio.ensure_future(self.answer_mail(user, message, reply_to, numbers)))

    async def answer_mail(self, user: User, message, reply_to: str, numbers: list[str]) -> None:
        await asyncio.sleep(self.rng.uniform(0.2, 2 * self.args.think + 0.5))
        reply = EmailMessage()
        reply["From"] = user.email
        reply["To"] = parseaddr(reply_to)[1]
        reply["Subject"] = "Re: " + str(message.get("Subject", ""))
        reply["Message-ID"] = make_msgid(domain="players.soak.test")
        if message.get("Message-ID"):
            reply["In-Reply-To"] = str(message["Message-ID"])
        reply.set_content(self.rng.choice(numbers) + "\n")

        def send() -> None:
            for attempt in range(30):
                try:
                    with smtplib.LMTP("127.0.0.1", self.ports["mailin"], timeout=30) as server:
                        server.send_message(reply)
                    return
                except (OSError, smtplib.SMTPException):
                    if attempt == 29:
                        raise
                    time.sleep(1)

        try:
            await asyncio.to_thread(send)
            self.record.mail_sent += 1
        except (OSError, smtplib.SMTPException) as exc:
            self.record.errors.append(f"mail to the receiver failed: {exc!r}")

    async def mail_group(self, label: str, kind: str, user: User, bots: int) -> None:
        """A mail player and ``bots`` bots, game after game; the game read every few seconds
        to know when it ended."""
        nginx = Conn(self.ports["nginx"])
        lengths: list[float] = []
        while not self.stop.is_set():
            if not self.another_game(lengths, 40.0):
                return
            began = now()
            status, game = await self.call(nginx, "create", "POST", "/api/v1/games/", user, {
                "game": kind, "options": {"players": bots + 1}, "bots": bots})
            if status != 201:
                self.record.errors.append(f"{label}: create {status} {game}")
                await asyncio.sleep(5)
                continue
            gid = game["id"]
            self.record.games[gid] = label
            while not self.stop.is_set():
                await asyncio.sleep(5)
                status, read = await self.call(nginx, "read", "GET", f"/api/v1/games/{gid}/",
                                               user)
                if status == 200 and read.get("status") not in ("active", "open", "paused"):
                    break
            lengths.append(now() - began)

    # ---- absent players' deadlines

    async def hurry_deadlines(self) -> None:
        """Every second: the absent players' deadlines a few seconds ahead."""
        from django.db import connection
        from django.utils import timezone

        from games.models import PendingDecision

        ids = [u.pk for u in self.absent]

        def hurry() -> None:
            import datetime as dt

            try:
                soon = timezone.now() + dt.timedelta(seconds=3)
                PendingDecision.objects.filter(user_id__in=ids, bot=False,
                                               deadline__gt=soon).update(deadline=soon)
            except Exception:  # (its connection cut by the fault: a new one next time)
                connection.close()

        while not self.stop.is_set():
            await asyncio.to_thread(hurry)
            await asyncio.sleep(1)


# --------------------------------------------------------------------------------------------
# Faults


class Faults:
    def __init__(self, prod: ProdLocal, record: Record, length: float, beat_seconds: float):
        self.prod, self.record = prod, record
        self.windows: list[tuple[float, float, str]] = []
        self.done: list[str] = []
        self.worker_kills = 0
        self.backends_cut = 0
        self.plan = [(0.15, "kill", "web-1"), (0.25, "kill", "stream-1"),
                     (0.35, "kill", "worker-1"), (0.45, "redis", "redis"),
                     (0.55, "postgres", ""), (0.65, "beat", "beat")]
        self.length, self.beat_seconds = length, beat_seconds

    async def run(self, start: float, stop: asyncio.Event) -> None:
        """The faults on their schedule (one after the other: one whose program is slow to
        serve again delays the next); those not begun once ``stop`` is set are left out, and
        said so."""
        for share, action, name in self.plan:
            delay = start + share * self.length - now()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
            if stop.is_set():
                self.record.errors.append(f"fault {action} {name} not made: the time was up")
                continue
            began = now()
            try:
                await asyncio.to_thread(self.fault, action, name)
            except Exception as exc:
                self.record.errors.append(f"fault {action} {name}: {exc!r}")
                self.windows.append((began - 1.0, now() + SETTLE, f"{action} {name}"))

    def fault(self, action: str, name: str) -> None:
        began = now()
        if action == "kill":
            pid = self.prod.pid(name)
            os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
            back = self.prod.wait_running(name)
            if name.startswith("worker"):
                self.worker_kills += 1
            self.done.append(f"{name} (pid {pid}) killed with SIGKILL at "
                             f"{began - self.record_start:.0f} s, serving again after "
                             f"{back - began:.1f} s")
        elif action == "redis":
            self.prod.ctl("restart", "redis", check=True)
            back = self.prod.wait_running("redis")
            self.done.append(f"redis restarted at {began - self.record_start:.0f} s "
                             f"({back - began:.1f} s)")
        elif action == "postgres":
            out = subprocess.run(
                ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DATABASE, "-Atqc",
                 "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                 "WHERE datname = current_database() AND pid <> pg_backend_pid()"],
                capture_output=True, text=True, check=True)
            back = now()
            self.backends_cut += 1
            self.done.append(f"{out.stdout.strip()} PostgreSQL backends of {DATABASE} "
                             f"terminated at {began - self.record_start:.0f} s")
        elif action == "beat":
            self.prod.ctl("stop", "beat", check=True)
            time.sleep(self.beat_seconds)
            self.prod.ctl("start", "beat", check=True)
            self.done.append(f"beat stopped at {began - self.record_start:.0f} s for "
                             f"{self.beat_seconds:.0f} s")
            return  # (no request depends on beat: no window)
        self.windows.append((began - 1.0, back + SETTLE, f"{action} {name}".strip()))

    record_start = 0.0


# --------------------------------------------------------------------------------------------
# Setting up, checking


def make_users(prefix: str, count: int, mail: set[int]) -> list[tuple[str, str, str, int]]:
    """``count`` users with verified addresses and API tokens (the ORM, as the benches make
    them); those of ``mail`` want mail. ``(username, token, email, pk)``."""
    from allauth.account.models import EmailAddress
    from knox.models import AuthToken

    from accounts.models import User as Account

    accounts = Account.objects.bulk_create([
        Account(username=f"{prefix}{i}", email=f"{prefix}{i}@players.soak.test",
                notify_email=i in mail) for i in range(count)])
    EmailAddress.objects.bulk_create([EmailAddress(user=a, email=a.email, verified=True,
                                                   primary=True) for a in accounts])
    return [(a.username, AuthToken.objects.create(a, expiry=None)[1], a.email, a.pk)
            for a in accounts]


def check(soak: Soak, record: Record, sink: Sink, hooks: Hooks, faults: Faults,
          user_ids: list[int], run_start: float, run_end: float) -> tuple[list, list]:
    """The checks (name, passed, detail) and the figures (name, value)."""

    from django.db.models import Count

    from games.core.catalog import get_game
    from games.engine import replay_records
    from games.mail.outgoing import message_domain, thread_root
    from games.models import (
        Game,
        InboundMessage,
        MoveRecord,
        Notification,
        Snapshot,
        WebhookDelivery,
    )

    checks, figures = [], []
    games = list(Game.objects.filter(pk__in=list(record.games)))
    statuses = Counter(g.status for g in games)
    ended = statuses.get(Game.Status.FINISHED, 0)
    by_kind = Counter(g.kind for g in games)
    checks.append(("every game ended", ended == len(games) and games != [],
                   f"{ended} of {len(games)} finished ({dict(statuses)}); "
                   + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items()))))

    # Replays against snapshots
    bad = []
    snaps = {s.game_id: s for s in Snapshot.objects.filter(game__in=games)}
    records = defaultdict(list)
    for row in (MoveRecord.objects.filter(game__in=games).order_by("game_id", "seq")
                .values_list("game_id", "seq", "seat__position", "payload", "by_user__username",
                             "channel")):
        records[row[0]].append(row)
    for game in games:
        rows = records[game.pk]
        if [r[1] for r in rows] != list(range(1, game.seq + 1)):
            bad.append(f"{game.pk}: seqs not 1..{game.seq}")
            continue
        engine = get_game(game.kind)
        state, _table, _events = replay_records(engine, game.options, game.seed,
                                                [(r[2], r[3]) for r in rows])
        snap = snaps.get(game.pk)
        replayed = orjson.loads(orjson.dumps(engine.to_json(state)))
        if snap is None or snap.seq != game.seq or replayed != snap.state:
            bad.append(f"{game.pk}: replay differs from its snapshot "
                       f"(snapshot at {snap.seq if snap else None}, game at {game.seq})")
    checks.append(("each game replayed from its records equals its snapshot", not bad,
                   f"{len(games) - len(bad)} of {len(games)}" + (f"; {bad[:3]}" if bad else "")))

    # Accepted moves are records; records of the API are accepted moves
    by_key = {(str(r[0]), r[1]): r for rows in records.values() for r in rows}
    missing = [a for a in record.accepted
               if (lambda r: r is None or r[4] != a[2] or r[5] != "api" or r[3] != a[3])(
                   by_key.get((a[0], a[1])))]
    accepted_keys = {(a[0], a[1]) for a in record.accepted}
    unanswered = [k for k, r in by_key.items() if r[5] == "api" and k not in accepted_keys
                  and k not in record.in_flight]
    checks.append(("every accepted move's answer is its record (none lost)", not missing,
                   f"{len(record.accepted) - len(missing)} of {len(record.accepted)} accepted "
                   f"API moves" + (f"; {missing[:3]}" if missing else "")))
    checks.append(("no API move recorded without its answer (none doubled)", not unanswered,
                   f"{len(unanswered)} API records without an accepted answer ("
                   f"{len(record.in_flight)} POSTs in flight when the soak stopped, not counted)"
                   + (f": {unanswered[:3]}" if unanswered else "")))
    played = list(InboundMessage.objects.filter(user_id__in=user_ids,
                                                status=InboundMessage.Status.PLAYED)
                  .values_list("game_id", "move_seq", "user__username"))
    mail_records = sum(1 for r in by_key.values() if r[5] == "mail")
    mail_bad = [p for p in played if (lambda r: r is None or r[5] != "mail" or r[4] != p[2])(
        by_key.get((str(p[0]), p[1])))]
    checks.append(("every mail played is its record, once", not mail_bad
                   and mail_records == len(played),
                   f"{len(played)} mails played, {mail_records} mail records"
                   + (f"; {mail_bad[:3]}" if mail_bad else "")))
    inbound = Counter(InboundMessage.objects.filter(user_id__in=user_ids)
                      .values_list("status", flat=True))
    figures.append(("mails sent by the mail players / stored by the receiver",
                    f"{record.mail_sent} / {sum(inbound.values())} ({dict(inbound)})"))

    # Mails: once per Message-ID, every one sent arrived, none left
    # One more of each mail or post in flight when a worker's process was killed, or when the
    # workers' database connections were cut (two workers of two processes each).
    allowed = (faults.worker_kills * soak.args.worker_concurrency
               + faults.backends_cut * 2 * soak.args.worker_concurrency)
    ids = Counter(mid for _at, _r, mid, _m in sink.messages)
    doubled = {mid: n for mid, n in ids.items() if n > 1}
    notes = Notification.objects.filter(user_id__in=user_ids)
    left = notes.filter(status__in=[Notification.Status.PENDING,
                                    Notification.Status.FAILED]).count()
    # A mail a worker took and could not record (killed, or its connection cut) stays "sending"
    # until the sweep takes it back, SENDING_STALE_AFTER (15 minutes) later, by design: those
    # taken during a fault's window are the ones in flight, the others are not.
    fault_windows = [(a, b) for a, b, what in faults.windows
                     if what.startswith(("kill worker", "postgres"))]
    stuck = [at.timestamp() for at in notes.filter(status=Notification.Status.SENDING)
             .values_list("next_attempt_at", flat=True)]
    in_flight = sum(1 for at in stuck if any(a <= at <= b for a, b in fault_windows))
    left += len(stuck) - in_flight
    sent = list(notes.filter(status=Notification.Status.SENT).values_list(
        "dedupe_key", "kind", "game_id", "user_id"))
    arrived = {mid.strip("<>") for mid in ids}
    domain = message_domain()
    # (a game's "started" mail is the root of its conversation: the game's Message-ID)
    lost = [k for k, kind, game, user in sent
            if (thread_root(game, user) if kind == Notification.Kind.STARTED and game
                else f"{k.replace(':', '.')}@{domain}") not in arrived]
    checks.append(("every mail made once per cause (Message-ID)",
                   not lost and not left and in_flight <= allowed
                   and sum(n - 1 for n in doubled.values()) <= allowed,
                   f"{len(sink.messages)} mails at the sink, {len(ids)} Message-IDs, "
                   f"{sum(n - 1 for n in doubled.values())} repeated (allowed {allowed}: the "
                   f"processes of the workers killed or cut from the database); {len(sent)} "
                   f"recorded sent, {len(lost)} of them not at the sink; {in_flight} in flight "
                   f"at a fault (taken back 15 minutes later); {left} not sent at the end"
                   + (f"; {list(doubled.items())[:3]}" if doubled else "")))
    kinds = Counter(notes.values_list("kind", flat=True))
    figures.append(("mails by kind (the soak's players)", dict(kinds)))

    # Webhooks: once per delivery id and per cause (the posts for this run's endpoints: those
    # of an earlier run's, attached to the same stack, are left out)
    rows = WebhookDelivery.objects.filter(endpoint__user_id__in=user_ids)
    ours = {str(pk) for pk in rows.values_list("pk", flat=True)}
    posts = [post for post in hooks.posts if post[1] in ours]
    ids = Counter(d for _at, d, _b in posts)
    doubled = {d: n for d, n in ids.items() if n > 1}
    causes = Counter()
    seen = set()
    for _at, delivery, body in posts:
        if delivery in seen:
            continue
        seen.add(delivery)
        data = body.get("data", {})
        causes[(body.get("type"), data.get("game"), data.get("seq"), data.get("seat"),
                data.get("status"))] += 1
    twice = {c: n for c, n in causes.items() if n > 1}
    hook_left = rows.exclude(status=WebhookDelivery.Status.DELIVERED).count()
    delivered = {str(pk) for pk in rows.filter(status=WebhookDelivery.Status.DELIVERED)
                 .values_list("pk", flat=True)}
    hook_lost = delivered - set(ids)
    repeated = sum(n - 1 for n in doubled.values())
    checks.append(("every webhook delivery made once per event id and per cause",
                   not hook_lost and not hook_left and not twice and repeated <= allowed
                   and rows.exists(),
                   f"{len(posts)} posts, {len(ids)} delivery ids, {repeated} repeated "
                   f"(allowed {allowed}); {len(twice)} causes with two ids; {len(delivered)} "
                   f"recorded delivered, {len(hook_lost)} of them not received; {hook_left} "
                   f"not delivered at the end"))

    # 5xx outside the faults
    def in_window(a: float, b: float) -> bool:
        return any(a <= end and b >= begin for begin, end, _what in faults.windows)

    def both(timed: list[tuple[float, float]]) -> str:
        """The quantiles of all ``(sent, ms)``, then of those clear of every fault's window."""
        clear = [ms for t, ms in timed if not in_window(t, t + ms / 1000)]
        return (f"{quantiles([ms for _t, ms in timed])}; clear of the faults: "
                f"{quantiles(clear)}")

    fives = [(s, e, st, w) for s, e, st, w in record.answers if st >= 500]
    outside = [f for f in fives if not in_window(f[0], f[1])]
    lost_conns = [u for u in record.unanswered if not in_window(u[0], u[1])]
    checks.append(("no 5xx outside the instants of a fault", not outside,
                   f"{len(record.answers)} answers, {len(fives)} × 5xx, {len(outside)} outside "
                   f"the faults' windows" + (f" {Counter((f[2], f[3]) for f in outside)}"
                                             if outside else "")))
    checks.append(("no request unanswered outside the instants of a fault", not lost_conns,
                   f"{len(record.unanswered)} unanswered, {len(lost_conns)} outside"
                   + (f": {lost_conns[:3]}" if lost_conns else "")))
    if record.refused:
        figures.append(("answers refused (what, status, code)", dict(record.refused)))

    # Cross-process: every move of the direct groups' games seen by the other stream process
    cross_moves, seen_moves, cross_ms = 0, 0, []
    for gid, process in record.cross:
        if gid not in record.watched_to_end:
            continue  # (a game that did not end: see the first check)
        for (game, seq), at in record.posted.items():
            if game != gid or (game, seq) not in accepted_keys:
                continue
            cross_moves += 1
            came = record.to_spectators[process].get((game, seq))
            if came is not None:
                seen_moves += 1
                cross_ms.append((at, max(0.0, came - at) * 1000))
    checks.append(("a stream process sees the moves made through the other web process",
                   cross_moves > 0 and seen_moves == cross_moves,
                   f"{seen_moves} of {cross_moves} moves seen, from their POST: "
                   f"{both(cross_ms)}"))

    # Latencies
    figures.append(("POST /moves/ (ms)", both(record.post_ms)))
    to_players = []
    for gid, seq, name, _move in record.accepted:
        others = [at for who, at in record.told.get((gid, seq), {}).items() if who != name]
        if others:
            sent = record.posted[(gid, seq)]
            to_players.append((sent, max(0.0, min(others) - sent) * 1000))
    figures.append(("a move to the other players' /me/stream/ (ms, from its POST)",
                    both(to_players)))
    for process, seen_at in sorted(record.to_spectators.items()):
        lat = [(record.posted[k], max(0.0, at - record.posted[k]) * 1000)
               for k, at in seen_at.items() if k in record.posted and k in accepted_keys]
        figures.append((f"a move to a game stream on {process} (ms, from its POST)",
                        both(lat)))
    mail = bench_module("mail_latency").measure(sink, run_start, run_end)
    figures.append(("a decision to its mail at the sink (s)",
                    f"{mail['decisions']} decisions of the mail players, {mail['mailed']} mailed "
                    f"in {mail['mails']} mails, {mail['skipped']} skipped, {mail['unsent']} "
                    f"not mailed; " + quantiles(mail["latencies"], scale=1, unit="s")))
    moves = MoveRecord.objects.filter(game__in=games).values("channel", "actor").annotate(
        n=Count("pk"))
    figures.append(("moves recorded (channel/actor)",
                    ", ".join(f"{m['channel']}/{m['actor']} {m['n']}" for m in moves)))
    figures.append(("chat messages posted", record.chat))
    return checks, figures


def quantiles(values: list[float], scale: float = 1.0, unit: str = "ms") -> str:
    if not values:
        return "none"
    return (f"p50 {percentile(values, .5) * scale:.2f} {unit}, p99 "
            f"{percentile(values, .99) * scale:.2f} {unit}, max {max(values) * scale:.2f} "
            f"{unit} ({len(values)})")


# --------------------------------------------------------------------------------------------


async def play(soak: Soak, prod: ProdLocal, faults: Faults, accounts: list, length: float,
               drain: float, patience: float) -> dict[str, dict[str, int]]:
    """The players and the faults for ``length`` seconds, then until every game ended (a table
    starts no game it would not end within ``drain`` more; a game still playing ``patience``
    after the time is a failure); each program's memory at the start and the end."""
    soak.loop = asyncio.get_running_loop()
    record = soak.record
    users = iter(User(*a) for a in accounts)

    def take(n: int) -> list[User]:
        return [next(users) for _ in range(n)]

    # The tables: (label, kind, humans, bots, route, watched on, absent, options)
    tables = []
    for copy in range(soak.args.tables):
        tables += [
            (f"mascarade-4-humans-{copy}", "mascarade", take(4), 0, "nginx", "stream-1", None,
             None),
            (f"ere-2-humans-{copy}", "ere_des_masques", take(2), 0, "nginx", "stream-2", None,
             None),
            (f"shadow-3-humans-{copy}", "shadow_house", take(3), 0, "nginx", "stream-1", None,
             None),
            (f"mascarade-human-3-bots-{copy}", "mascarade", take(1), 3, "nginx", "stream-2",
             None, None),
        ]
    tables += [
        ("mascarade-via-web-1", "mascarade", take(4), 0, "web-1", "stream-2", None, None),
        ("shadow-via-web-2", "shadow_house", take(3), 0, "web-2", "stream-1", None, None),
        ("mascarade-absent", "mascarade", take(1), 2, "nginx", "stream-1", take(1)[0],
         {"absent_after": 1, "absent_policy": "bot"}),
        ("ere-absent", "ere_des_masques", take(1), 0, "nginx", "stream-2", take(1)[0],
         {"absent_after": 2, "absent_policy": "bot"}),
        ("shadow-absent", "shadow_house", take(1), 1, "nginx", "stream-1", take(1)[0],
         {"absent_after": 1, "absent_policy": "bot"}),
    ]
    mail_tables = [("mail-mascarade", "mascarade", 3), ("mail-ere", "ere_des_masques", 1),
                   ("mail-shadow", "shadow_house", 2)]
    mailers = [(label, kind, take(1)[0], bots) for label, kind, bots in mail_tables
               for _copy in range(soak.args.mail_tables)]
    watchers = take(4)
    for _label, _kind, user, _bots in mailers:
        soak.mail_users[user.email.lower()] = user
    soak.absent = [t[6] for t in tables if t[6] is not None]

    tasks = []
    streams = []
    hook_owners = [t[2][0] for t in tables]
    setup = Conn(soak.ports["nginx"])
    for user in hook_owners:
        status, answer = await soak.call(setup, "webhook", "POST", "/api/v1/me/webhooks/", user,
                                         {"url": f"http://127.0.0.1:{HOOK_PORT}/hook"})
        if status != 201:
            record.errors.append(f"webhook endpoint refused: {status} {answer}")
    for table in tables:
        for user in table[2]:
            streams.append(asyncio.create_task(soak.me_stream(user, soak.ports["nginx"])))
    await asyncio.sleep(1)
    memory_start = await asyncio.to_thread(memory, prod)
    start = now()
    soak.start_at = start
    soak.new_games_until = start + length
    soak.games_end = start + length + 0.5 * drain
    faults.record_start = start
    tasks += [asyncio.create_task(soak.api_group(*t[:6], watchers[i % len(watchers)], t[6],
                                                 t[7]))
              for i, t in enumerate(tables)]
    tasks += [asyncio.create_task(soak.mail_group(*m)) for m in mailers]
    hurry = asyncio.create_task(soak.hurry_deadlines())
    no_more_faults = asyncio.Event()
    faulting = asyncio.create_task(faults.run(start, no_more_faults))
    print(f"playing: {len(tables)} API tables ({sum(len(t[2]) for t in tables)} players, "
          f"{len(soak.absent)} absent), {len(mailers)} mail players; new games for {length:.0f} s",
          flush=True)
    ticker = asyncio.create_task(progress(soak, start))
    done, pending = await asyncio.wait(tasks, timeout=length + patience)
    no_more_faults.set()
    if pending:
        record.errors.append(f"{len(pending)} tables still playing {patience:.0f} s after the "
                             f"time (their games are left unfinished)")
    left = await asyncio.to_thread(settle, [a[3] for a in accounts], start + length + patience)
    if left:
        record.errors.append(f"the outbox not empty {patience:.0f} s after the time: {left}")
    memory_end = await asyncio.to_thread(memory, prod)
    for task in done:
        if task.exception() is not None:
            record.errors.append(f"a table failed: {task.exception()!r}")
    await faulting
    soak.stop.set()
    for task in (*pending, *streams, hurry, ticker):
        task.cancel()
    await asyncio.gather(*pending, *streams, hurry, ticker, return_exceptions=True)
    return {"start": memory_start, "end": memory_end}


def settle(user_ids: list[int], until: float) -> dict[str, int]:
    """Waits (until ``until`` at most) for the mails and webhooks of the players' games to be
    sent: what is still waiting then."""
    import datetime as dt

    from django.db import connection
    from django.utils import timezone

    from games.models import Notification, WebhookDelivery

    waiting = {}
    while True:
        try:
            waiting = {
                "mails": Notification.objects.filter(
                    user_id__in=user_ids, status__in=[Notification.Status.PENDING,
                                                      Notification.Status.FAILED]).count()
                + Notification.objects.filter(  # (not those a fault left: see check())
                    user_id__in=user_ids, status=Notification.Status.SENDING,
                    next_attempt_at__gt=timezone.now() - dt.timedelta(seconds=30)).count(),
                "webhooks": WebhookDelivery.objects.filter(
                    endpoint__user_id__in=user_ids).exclude(
                    status=WebhookDelivery.Status.DELIVERED).count()}
        except Exception:  # (a connection cut by the fault: a new one next time)
            connection.close()
        if (waiting and not any(waiting.values())) or now() > until:
            return {k: n for k, n in waiting.items() if n}
        time.sleep(1)


async def progress(soak: Soak, start: float) -> None:
    while True:
        await asyncio.sleep(30)
        r = soak.record
        recent = [ms for _t, ms in r.post_ms[-200:]]
        print(f"  {now() - start:5.0f} s: {len(r.accepted)} API moves accepted (POST p50 "
              f"{percentile(recent, .5):.0f} ms), {r.mail_sent} mails answered, "
              f"{len(r.games)} games, {len(r.errors)} errors", flush=True)


def memory(prod: ProdLocal) -> dict[str, int]:
    return {name: rss_tree(pid) for name in PROGRAMS if (pid := prod.pid(name))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--minutes", type=float, default=60.0,
                        help="how long new games start (60); the games under way then finish")
    parser.add_argument("--ci", action="store_true",
                        help="CI's version: 3 minutes (new games for 2, 1 to end them), "
                             "fewer tables, at least 15 games")
    parser.add_argument("--games", type=int, default=0,
                        help="the games to have played at least (a check); default: 1,000 for "
                             "60 minutes, in proportion for other lengths (12 with --ci: "
                             "each of its tables' first game)")
    parser.add_argument("--tables", type=int, default=0,
                        help="copies of the four API tables (default 3; 1 with --ci)")
    parser.add_argument("--mail-tables", type=int, default=0,
                        help="mail players per game (default 2; 1 with --ci)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="a player's mean time before a move, s (0.5)")
    parser.add_argument("--attach", action="store_true",
                        help="use the prod-local already running in PROD_LOCAL_DIR")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.ci and args.minutes == 60.0:
        args.minutes = 3.0
    args.tables = args.tables or (1 if args.ci else 3)
    args.mail_tables = args.mail_tables or (1 if args.ci else 2)
    args.think = args.think or 0.5
    # (--ci: each of its 12 tables' first games to its end; how many more the machine's pace
    # allows is a figure, not a check: 2 quiet cores play some 20 games in its 3 minutes)
    args.games = args.games or (12 if args.ci else max(1, int(1000 * args.minutes / 60)))
    args.worker_concurrency = 2
    # New games start for ``length`` seconds; those under way then have ``drain`` more to end
    # (CI's 3 minutes: 2 + 1).
    length = args.minutes * 60 * (2 / 3 if args.ci else 1)
    drain = args.minutes * 60 / 3 if args.ci else max(90.0, min(300.0, length / 4))
    # A game still playing this long after the time has stalled (CI's: three times its
    # drain, for a machine slower than the one its lengths were taken on).
    patience = drain * 3 if args.ci else drain
    beat_seconds = min(60.0, length / 5)

    directory = Path(os.environ.get("PROD_LOCAL_DIR") or ROOT / "var" / "prod-local-soak")
    env = {**os.environ, "PROD_LOCAL_DIR": str(directory), "PROD_LOCAL_PORT": str(PORT),
           "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DATABASE}",
           "EMAIL_URL": f"smtp://127.0.0.1:{SINK_PORT}", "MAIL_DOMAIN": MAIL_DOMAIN,
           "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
           "MAIL_ANSWERS_PER_WINDOW": "100000", "MAIL_IGNORED_PER_WINDOW": "100000",
           "API_THROTTLE_USER": "1000000/minute", "API_THROTTLE_ANON": "1000000/minute",
           "API_THROTTLE_AUTH": "1000000/minute", "API_THROTTLE_WEBHOOKS": "1000000/hour"}
    env.pop("REDIS_URL", None)  # (prod-local's own Redis; never the machine's)
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=SINK_PORT)
    controller.start()
    hooks = Hooks(HOOK_PORT)
    prod = ProdLocal(env, args.attach)
    if not args.attach:
        # A stack an earlier soak left running in the same folder stopped; the database made
        # anew (prod-local creates it).
        prod.script("stop")
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force",
                        DATABASE], check=True)
    record = Record()
    rng = random.Random(args.seed)
    began = now()
    try:
        print(f"bench/soak.py: {args.minutes:g} minutes; prod-local in {directory} "
              f"({'attached' if args.attach else 'make prod-local'}), nginx on {PORT}; "
              f"PostgreSQL database {DATABASE}; {os.cpu_count()} cores", flush=True)
        prod.start()
        ports = prod.ports
        print(f"prod-local up in {now() - began:.0f} s: {ports}", flush=True)
        # (this process reads the database with the processes' own settings)
        os.environ.update(prod.description["env"])
        os.environ["DJANGO_SETTINGS_MODULE"] = "mascarade_site.settings"
        import django

        django.setup()
        # The accounts in the order the tables take them (play()): the API tables' players,
        # the mail players (who want mail), the spectators.
        api = args.tables * (4 + 2 + 3 + 1) + 4 + 3 + 3 * 2
        mail = 3 * args.mail_tables
        accounts = make_users(f"s{secrets.token_hex(3)}_", api + mail + 4,
                              mail=set(range(api, api + mail)))
        soak = Soak(args, ports, record, rng)
        sink.on_mail = soak.on_mail
        faults = Faults(prod, record, length, beat_seconds)
        memory_use = uvloop.run(play(soak, prod, faults, accounts, length, drain,
                                        patience))
        sink.on_mail = None
        run_end = now()
        time.sleep(2)
        from django.db import connections

        connections.close_all()  # (this thread's connection may have been cut by the fault)
        user_ids = [a[3] for a in accounts]
        checks, figures = check(soak, record, sink, hooks, faults, user_ids, soak.start_at,
                                run_end - 10)
    finally:
        with contextlib.suppress(Exception):
            prod.stop()
        controller.stop()
        hooks.close()
    games = len(record.games)
    checks.insert(1, (f"at least {args.games} games played", games >= args.games,
                      f"{games} games"))
    grew = []
    lines = []
    for name in PROGRAMS:
        a, b = memory_use["start"].get(name), memory_use["end"].get(name)
        if a is None or b is None:
            continue
        bound = max(a * (1 + MEMORY_GROWTH[0]), a + MEMORY_GROWTH[1] * 1024)
        if b > bound:
            grew.append(name)
        lines.append(f"{name} {a / 1024:.0f}→{b / 1024:.0f}")
    checks.append((f"no program's memory grew past {MEMORY_GROWTH[0]:.0%} or "
                   f"{MEMORY_GROWTH[1]} MB (RSS with its children, MB)", not grew,
                   ", ".join(lines)))
    checks.append(("no error in the soak itself", not record.errors,
                   "; ".join(record.errors[:5])))
    print("\n== faults (at seconds from the start)")
    for line in faults.done:
        print("  " + line)
    print("\n== figures")
    for name, value in figures:
        print(f"  {name}: {value}")
    print("\n== checks")
    for name, passed, detail in checks:
        print(f"  {'PASS' if passed else 'FAIL'}  {name}: {detail}")
    failed = [c for c in checks if not c[1]]
    print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed in "
          f"{(now() - began) / 60:.1f} minutes", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
