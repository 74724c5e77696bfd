"""The API's own cost per request, in one process, and what each of the site's performance tricks
buys: CPU (user time) and SQL statements of ``GET /games/{id}/`` and ``POST /moves/``, through the
whole Django stack (middleware, DRF, services) on PostgreSQL.

    .venv/bin/python bench/api_cpu.py [--quick] [--moves 600] [--rounds 3] [--turn-moves 150]
                                      [--turns 8] [--long-moves 1000]

First, with every trick on (as in production): new games played by the random bot, new games of
exchanges, and games that already have 1,000 moves (``--rounds`` rounds of ``--moves`` timed
moves, each round on new games). Then, in the same run, each trick of
``mascarade_site.perf.TRICKS`` on and off, and all of them on and off: a table of the CPU and the
statements per request in each state and the difference (off minus on: what the trick saves); one
table on new games played by the random bot, one on games of 1,000 looks (each look adds to its
player's ``knowledge``: large states, whose requests set the garbage collector's full collections
off; the stretches take turns on 8 such games, so that none grows much longer).

``bench/api.py`` measures the service under load, but there gunicorn, PostgreSQL and the clients
share two cores and its figures move by 10 to 20 % from one run to the next; this one times each
request of a single client with ``getrusage`` (the process's user CPU, which neither the database
nor the other processes add to), so that a change of the code's cost shows. It plays as
``bench/api.py`` does (read the game as the awaited player, send one of its legal moves), each
request handed to Django's WSGI handler as gunicorn hands it (:class:`Server`; building the
request and reading the answer are included and small): Django's ``request_started`` and
``request_finished`` signals run ``close_old_connections`` around it, so that the connection's
health check runs at the request's first query, as in production (Django's test client, used
before, disconnects them).

Beside the all-on figures: the CPU the PostgreSQL backend serving this process used per move
(its read and its move together; user and system time from /proc, whose 10 ms ticks make it a
figure per round, not per request), what a change of the schema or of the statements shows in.

For each row of a table: new games (new users: the throttles' histories start empty), a few
moves to warm up, the statements of some more counted in each state, then ``--turns`` stretches
of ``--turn-moves`` timed moves in each state on those same games, in the order on, off, off, on,
on, off..., so that the machine's drift (its faster and slower phases) favours neither. A state's
figure is the median CPU of its requests (the mean, which counts the rare full garbage
collections the median leaves out, in brackets). Under each table, the spread of the all-on
stretches' medians tells how much of a difference is noise. Tricks are switched by assigning
``mascarade_site.perf.switch``, which sets ``settings.PERF_OFF`` for :func:`mascarade_site.perf.on`:

- ``prepared``, ``writes``: the hot reads and writes of :mod:`mascarade_site.prepared`, or the
  ORM's.
- ``health``: the socket's look (:mod:`mascarade_site.postgres`), or Django's ``SELECT 1``.
  Django sends that one past its own cursors (``is_usable``), so its query log (and
  ``CaptureQueriesContext``) leaves it out: the statements here are those psycopg's cursors
  execute (Django's and any other), plus the ``BEGIN`` and ``COMMIT`` that Django's log lists
  (each a round trip).
- ``lua_throttle``: the throttles in one Redis round trip, or DRF's read then write of the
  cache; the same without ``REDIS_URL`` (both are DRF's way on the local-memory cache).
- ``gc_freeze``: on, :func:`mascarade_site.memory.freeze_now` (a full collection, then everything
  alive frozen, as gunicorn's hook does) before each stretch; off, ``gc.unfreeze()`` and the same
  full collection (before every stretch, whatever the trick compared): the same heap either way,
  only the collector's view of it differs. Under the table: the full collections during the
  timed requests in each state, and the CPU of one full collection of the heap a stretch leaves.

``--floors`` (alone): ``POST /moves/`` against two endpoints of this process only
(:mod:`bench.floor_urls`) that answer a move's request without playing it: DRF around the move
(the token's authentication, the throttles, the body parsed, an answer rendered) and Django alone
(its handler and middleware): what a move costs beyond the frameworks, with each one's
PostgreSQL CPU per request.

The database named in ``BENCH_DATABASE_URL`` (default: ``mascarade_bench_cpu`` on the local
PostgreSQL) is dropped and created anew.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import io
import json
import os
import random
import resource
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_cpu"
KINDS = ("GET", "POST")
#: Moves played untimed on new games (compiled queries, caches), then those counted (each state).
WARM_MOVES = 20
COUNTED_MOVES = 30
#: Games of the table on long games of looks (the stretches take turns on them).
LOOK_GAMES = 8
#: What Django lists in ``connection.queries`` without a cursor (each a round trip).
TRANSACTION_ENTRIES = ("BEGIN", "COMMIT", "ROLLBACK")


def user_cpu() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def backend_cpu() -> tuple[int, float] | None:
    """The PostgreSQL backend serving this process's connection, and the CPU it has used so far
    (user and system, from /proc: Linux, and the server on this machine), or ``None``."""
    from django.db import connection

    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    pid = connection.connection.info.backend_pid
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def sent_statements():
    """Counts every statement psycopg's cursors execute meanwhile (Django's cursors are
    psycopg's; its health check's ``SELECT 1`` runs on one directly)."""
    import psycopg

    count = [0]
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def counted_execute(self, *args, **kwargs):
        count[0] += 1
        return execute(self, *args, **kwargs)

    def counted_executemany(self, *args, **kwargs):
        count[0] += 1
        return executemany(self, *args, **kwargs)

    psycopg.Cursor.execute, psycopg.Cursor.executemany = counted_execute, counted_executemany
    try:
        yield count
    finally:
        psycopg.Cursor.execute, psycopg.Cursor.executemany = execute, executemany


class Server:
    """Requests handed straight to Django's WSGI handler, as gunicorn hands them: its
    ``request_started`` and ``request_finished`` signals run as in production, so
    ``close_old_connections`` starts each request and the connection's health check runs at its
    first query (Django's test client disconnects that receiver around each request; and
    reconnecting it each time, ``Signal.connect`` left two ``weakref.finalize`` behind per request,
    which grew this process's heap by some 8 objects a request and made full collections costlier
    than in a worker)."""

    def __init__(self):
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()

    def request(self, method: str, path: str, token: str, body: bytes = b"") -> tuple[int, bytes]:
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": f"Token {token}", "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
            "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
        }
        if body:
            environ.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
        status: list[str] = []
        response = self.handler(environ, lambda line, headers, exc_info=None: status.append(line))
        try:
            content = b"".join(response)
        finally:
            response.close()  # request_finished, as gunicorn's worker does
        return int(status[0].split(" ", 1)[0]), content


@functools.cache
def the_server() -> Server:
    """One handler for the whole run, as a worker has."""
    return Server()


def play(server: Server, tables: list[dict], moves: int, policy: str, rng: random.Random,
         timings: dict[str, list[float]] | None, statements: dict[str, list[int]] | None
         ) -> None:
    """``moves`` moves, each a read then a send, taking the next table when a game ends (and
    leaving the one in play at the end of ``tables``, for the next call)."""
    from django.db import connection

    from bench.api import quiet
    from games.core.catalog import get_bot

    bot = get_bot("mascarade", "random")
    table = tables[-1]
    awaited = table["first"]
    done = 0

    def call(kind: str, *args) -> tuple[int, bytes]:
        if statements is not None:
            connection.force_debug_cursor = True  # Django lists BEGIN and COMMIT too
            connection.queries_log.clear()
            try:
                with sent_statements() as sent:
                    answer = server.request(*args)
            finally:
                connection.force_debug_cursor = False
            transactions = sum(q["sql"] in TRANSACTION_ENTRIES for q in connection.queries_log)
            statements[kind].append(sent[0] + transactions)
            return answer
        start = user_cpu()
        answer = server.request(*args)
        if timings is not None:
            timings[kind].append((user_cpu() - start) * 1000)
        return answer

    while done < moves:
        url = f"/api/v1/games/{table['game']}/"
        token = table["tokens"][awaited]
        game = json.loads(call("GET", "GET", url, token)[1])
        if game.get("status") != "active":
            tables.pop()
            if not tables:
                raise SystemExit("bench/api_cpu.py: out of games; make more tables")
            table = tables[-1]
            awaited = table["first"]
            continue
        moves_now = (game.get("you") or {}).get("legal_moves")
        if not moves_now:
            awaited = game["state"]["awaiting"][0]["player"]
            continue
        move = (bot.choose({}, moves_now, [], rng) if policy == "random"
                else quiet(moves_now, policy))
        status, content = call("POST", "POST", url + "moves/", token,
                               json.dumps({"move": move, "expected_seq": game["seq"]}).encode())
        if status != 201:
            raise SystemExit(f"bench/api_cpu.py: move refused: {status} {content[:300]!r}")
        awaiting = json.loads(content)["game"]["state"]["awaiting"]
        awaited = awaiting[0]["player"] if awaiting else awaited
        done += 1


def switch(off: frozenset[str]) -> None:
    """The tricks named in ``off`` off, the others on (:func:`mascarade_site.perf.switch`)."""
    from mascarade_site import perf

    perf.switch(off)


def collector(off: frozenset[str]) -> None:
    """The garbage collector as a gunicorn worker has it: everything alive now frozen
    (``gc_freeze`` on) or not; a full collection either way, so the heap is the same."""
    from mascarade_site.memory import freeze_now

    gc.unfreeze()
    if "gc_freeze" in off:
        gc.collect()
    else:
        freeze_now()


def timed(server: Server, tables: list[dict], moves: int, policy: str, rng: random.Random,
          off: frozenset[str], into: dict) -> None:
    """``moves`` timed moves with the tricks in ``off`` switched off, added to ``into`` (a
    state's figures, see :func:`figures`); the collector set as a worker has it first, and one
    full collection of the heap left afterwards timed."""
    switch(off)
    collector(off)
    into["objects"].append(len(gc.get_objects()) + gc.get_freeze_count())
    timings: dict[str, list[float]] = {kind: [] for kind in KINDS}
    full_before = gc.get_stats()[2]["collections"]
    backend_before = backend_cpu()
    play(server, tables, moves, policy, rng, timings, None)
    backend_after = backend_cpu()
    if backend_before and backend_after and backend_before[0] == backend_after[0]:
        into["backend_ms"].append((backend_after[1] - backend_before[1]) * 1000 / moves)
    into["full"] += gc.get_stats()[2]["collections"] - full_before
    start = user_cpu()
    gc.collect()  # the heap this stretch leaves, as the collector sees it
    into["collect_ms"].append((user_cpu() - start) * 1000)
    gc.unfreeze()
    switch(frozenset())
    for kind in KINDS:
        into["timings"][kind].extend(timings[kind])
        into["turns"][kind].append(statistics.median(timings[kind]))


def figures() -> dict:
    return {"timings": {k: [] for k in KINDS}, "turns": {k: [] for k in KINDS},
            "statements": {k: [] for k in KINDS}, "full": 0, "collect_ms": [], "objects": [],
            "backend_ms": []}


def summary(state: dict) -> dict:
    """A state's figures: CPU median and mean per request over all its timed requests."""
    out = dict(state)
    out["median"] = {k: statistics.median(state["timings"][k]) for k in KINDS}
    out["mean"] = {k: statistics.fmean(state["timings"][k]) for k in KINDS}
    out["requests"] = sum(len(v) for v in state["timings"].values())
    out["per_request"] = {k: statistics.fmean(state["statements"][k]) for k in KINDS}
    out["counts"] = {k: sorted(set(state["statements"][k])) for k in KINDS}
    out["collect"] = statistics.median(state["collect_ms"])
    out["heap"] = statistics.median(state["objects"])
    return out


def begin(make, policy: str, seed: int):
    """New games (new users: the throttles' histories start empty), a few moves to warm up
    (compiled queries, caches)."""
    from bench.api import analyze

    tables = make()
    analyze()
    server = the_server()
    rng = random.Random(seed)
    play(server, tables, WARM_MOVES, policy, rng, None, None)
    return server, tables, rng


def measure(label: str, make, moves: int, rounds: int, policy: str) -> None:
    """A workload's figures with every trick on: ``rounds`` rounds, each on new games."""
    state = figures()
    for n in range(rounds):
        server, tables, rng = begin(make, policy, 7 + n)
        play(server, tables, COUNTED_MOVES, policy, rng, None, state["statements"])
        timed(server, tables, moves, policy, rng, frozenset(), state)
    result = summary(state)
    out = []
    for kind, path in (("GET", "GET /games/{id}/"), ("POST", "POST /moves/")):
        per_round = " ".join(f"{m:.2f}" for m in result["turns"][kind])
        out.append(f"{path} {statistics.median(result['turns'][kind]):5.2f} ms CPU (mean "
                   f"{result['mean'][kind]:.2f}; rounds: {per_round}), statements "
                   f"{'/'.join(map(str, result['counts'][kind]))}")
    if state["backend_ms"]:
        per_round = " ".join(f"{m:.2f}" for m in state["backend_ms"])
        out.append(f"PostgreSQL {statistics.median(state['backend_ms']):5.2f} ms CPU per move "
                   f"(its read and its move; rounds: {per_round})")
    print(f"{label:<34} " + "   ".join(out), flush=True)


def compare(make, policy: str, moves: int, turns: int, off: frozenset[str]) -> dict:
    """The tricks in ``off`` on and off in turns on the same games: ``turns`` stretches of
    ``moves`` timed moves in each state, in the order on, off, off, on, on, off... (so that a
    drift of the machine's speed favours neither)."""
    states = {"on": frozenset(), "off": off}
    server, tables, rng = begin(make, policy, 1000)
    out = {state: figures() for state in states}
    for state, tricks_off in states.items():
        switch(tricks_off)
        play(server, tables, COUNTED_MOVES, policy, rng, None, out[state]["statements"])
        switch(frozenset())
    for turn in range(2 * turns):
        state = ("on", "off")[(turn + 1) // 2 % 2]
        if policy != "random":  # games that never end: each stretch on the next one, so that
            tables.insert(0, tables.pop())  # none grows much longer than it started
        timed(server, tables, moves, policy, rng, states[state], out[state])
    return {state: summary(out[state]) for state in states}


def compare_tricks(label: str, make, moves: int, turns: int, policy: str,
                   tricks: tuple[str, ...]) -> None:
    """The table: each trick on and off, then all of them on and off."""
    from django.conf import settings

    print(f"\nwhat each trick saves, {label}: for each, new games played with the trick on and "
          f"off in turns ({turns} stretches of {moves} timed moves each way)", flush=True)
    cpu = f"{'on':>5} {'off':>5} {'off-on':>6} {'':>7}  ({'on':>5} {'off':>5} {'off-on':>6})"
    print(f"{'':<13} {'GET /games/{id}/, ms CPU: median (mean)':<48}   "
          f"{'POST /moves/, ms CPU: median (mean)':<48}   statements per request", flush=True)
    print(f"{'trick':<13} {cpu}   {cpu}   {'GET on  off':>11}   {'POST on  off':>11}",
          flush=True)
    results = {}
    for name, off in [*((name, frozenset({name})) for name in tricks), ("all", frozenset(tricks))]:
        results[name] = compare(make, policy, moves, turns, off)
        on_, off_ = results[name]["on"], results[name]["off"]
        cells = []
        for kind in KINDS:
            a, b = on_["median"][kind], off_["median"][kind]
            ma, mb = on_["mean"][kind], off_["mean"][kind]
            cells.append(f"{a:5.2f} {b:5.2f} {b - a:+6.2f} {100 * (b - a) / a:+5.0f} %  "
                         f"({ma:5.2f} {mb:5.2f} {mb - ma:+6.2f})")
        for kind in KINDS:
            cells.append(f"{on_['per_request'][kind]:5.1f} {off_['per_request'][kind]:5.1f}")
        print(f"{name:<13} " + "   ".join(cells), flush=True)
    on_ = results["all"]["on"]
    spread = ", ".join(f"{kind} {min(on_['turns'][kind]):.2f} to {max(on_['turns'][kind]):.2f}"
                       for kind in KINDS)
    print(f"all on, each stretch's median (the noise and the machine's drift): {spread} ms",
          flush=True)
    redis = ("REDIS_URL set: on, one Lua script round trip; off, DRF's read then write of the "
             "Redis cache" if settings.REDIS_URL else
             "REDIS_URL not set: on and off are both DRF's way on the local-memory cache "
             "(no difference to expect)")
    if "lua_throttle" in results:
        print(f"lua_throttle: {redis}", flush=True)
    if "gc_freeze" in results:
        gc_on, gc_off = results["gc_freeze"]["on"], results["gc_freeze"]["off"]
        print(f"gc_freeze: full collections during the timed requests: {gc_on['full']} in "
              f"{gc_on['requests']} requests on, {gc_off['full']} in {gc_off['requests']} off; "
              f"one full collection of the heap a stretch leaves (about {gc_on['heap']:,.0f} "
              f"objects): {gc_on['collect']:.1f} ms CPU on (frozen), {gc_off['collect']:.1f} ms "
              "off", flush=True)
    print("statements: those sent to PostgreSQL (psycopg's cursors, with the SELECT 1 of "
          "Django's health check, which Django's query log and CaptureQueriesContext leave out, "
          "plus BEGIN and COMMIT); distinct counts per request, all on: GET "
          f"{'/'.join(map(str, on_['counts']['GET']))}, POST "
          f"{'/'.join(map(str, on_['counts']['POST']))}", flush=True)


class Accounted:
    """A :class:`Server` whose ``POST`` requests are accounted: the process's user CPU of each
    (as :func:`play` times them) and the PostgreSQL backend's CPU over all of them (its /proc
    ticks: a figure per stretch)."""

    def __init__(self, server: Server):
        self.server = server
        self.cpu: list[float] = []
        self.backend = 0.0

    def request(self, method: str, *args) -> tuple[int, bytes]:
        if method != "POST":
            return self.server.request(method, *args)
        before = backend_cpu()
        start = user_cpu()
        try:
            return self.server.request(method, *args)
        finally:
            self.cpu.append((user_cpu() - start) * 1000)
            after = backend_cpu()
            if before and after and before[0] == after[0]:
                self.backend += after[1] - before[1]


#: ``--floors``: the endpoints of :mod:`bench.floor_urls`, after ``POST /moves/`` itself.
FLOORS = (("POST /moves/", None), ("DRF around it, no move", "floor-drf"),
          ("Django alone", "floor-django"))


def floors(moves: int, rounds: int) -> None:
    """``POST /moves/`` against what the frameworks cost without the move
    (:mod:`bench.floor_urls`): in each round, on new games of exchanges, ``moves`` moves, then
    as many requests to each floor with the same token and a move's body (the order reversed
    every other round); each one's median CPU per request (the mean in brackets) and its
    backend's CPU per request."""
    from django.conf import settings

    from bench.api import make_tables

    settings.ROOT_URLCONF = "bench.floor_urls"  # read by Django's handler at each request
    counter = iter(range(10**9))
    cpu: dict[str, list[float]] = {label: [] for label, _ in FLOORS}
    backend: dict[str, list[float]] = {label: [] for label, _ in FLOORS}
    for n in range(rounds):
        server, tables, rng = begin(lambda: make_tables(2, f"f{next(counter)}x",
                                                        policy="exchanges"), "exchanges", 11 + n)
        table = tables[-1]
        token = table["tokens"][table["first"]]
        body = json.dumps({"move": {"type": "swap", "target": 2, "swap": True},
                           "expected_seq": 1}).encode()
        for _label, name in FLOORS[1:]:  # warm up (compiled URL patterns, caches)
            for _ in range(WARM_MOVES):
                server.request("POST", f"/api/v1/games/{table['game']}/{name}/", token, body)
        for label, name in (FLOORS if n % 2 == 0 else FLOORS[::-1]):
            accounted = Accounted(server)
            if name is None:
                play(accounted, tables, moves, "exchanges", rng, None, None)
            else:
                for _ in range(moves):
                    status, content = accounted.request(
                        "POST", f"/api/v1/games/{table['game']}/{name}/", token, body)
                    if status != 201:
                        raise SystemExit(f"bench/api_cpu.py: {name} answered {status}: "
                                         f"{content[:300]!r}")
            cpu[label] += accounted.cpu
            backend[label].append(accounted.backend * 1000 / len(accounted.cpu))
    print(f"POST /moves/ and the frameworks without the move, new games of exchanges, {rounds} "
          f"rounds of {moves} requests each (CPU per request, median, mean in brackets; "
          f"PostgreSQL's per request):", flush=True)
    for label, _ in FLOORS:
        print(f"  {label:<24} {statistics.median(cpu[label]):5.2f} ms CPU "
              f"({statistics.fmean(cpu[label]):.2f})   PostgreSQL "
              f"{statistics.fmean(backend[label]):5.2f} ms", flush=True)


def set_up(var: str, default_db: str) -> str:
    """Django set up in this process on a database made anew (``BENCH_DATABASE_URL``, else
    ``default_db``: dropped and created), its queued tasks under ``var/<var>``, as the benches'
    web server runs it (``bench.api.server_env``); the database's URL."""
    from bench.api import fresh_database, server_env

    db_url = os.environ.get("BENCH_DATABASE_URL", default_db)
    env = server_env(db_url)
    env["VAR_DIR"] = str(ROOT / "var" / var)
    fresh_database(db_url, env)
    os.environ.update(env)
    import django

    django.setup()
    return db_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split(". ", 1)[0].replace("\n", " ") + ".")
    parser.add_argument("--moves", type=int,
                        help="timed moves per round of the all-on figures (600; --quick 150)")
    parser.add_argument("--rounds", type=int, help="rounds of the all-on figures (3; --quick 2)")
    parser.add_argument("--turn-moves", type=int,
                        help="timed moves per stretch of the on/off tables (150; --quick 50)")
    parser.add_argument("--turns", type=int,
                        help="stretches each way of the on/off tables (8; --quick 2)")
    parser.add_argument("--long-moves", type=int, help="moves already played in the long "
                                                       "games (1000; --quick 300)")
    parser.add_argument("--quick", action="store_true", help="a rough run: fewer, shorter rounds")
    parser.add_argument("--tricks", help="the tricks of the on/off tables, comma-separated "
                                         "(all of mascarade_site.perf.TRICKS)")
    parser.add_argument("--looks", action=argparse.BooleanOptionalAction, default=True,
                        help="the second on/off table, on games of looks (on)")
    parser.add_argument("--floors", action="store_true",
                        help="only POST /moves/ against the same request without the move "
                             "(bench/floor_urls.py): DRF's authentication, throttles, parsing "
                             "and answer; Django's handler and middleware alone")
    parser.add_argument("--baseline-only", action="store_true",
                        help="only the figures with every trick on (to compare versions of the "
                             "code, run alternately)")
    args = parser.parse_args()
    defaults = ({"moves": 150, "rounds": 2, "turn_moves": 50, "turns": 2, "long_moves": 300}
                if args.quick else
                {"moves": 600, "rounds": 3, "turn_moves": 150, "turns": 8, "long_moves": 1000})
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    from bench.api import interpreter, make_tables

    db_url = set_up("bench-api-cpu", DEFAULT_DB)
    from django.conf import settings

    counter = iter(range(10**9))
    print(f"one process, PostgreSQL {db_url.rsplit('/', 1)[-1]}, cache "
          f"{'Redis' if settings.REDIS_URL else 'local memory'}; {interpreter()}; user CPU "
          f"per request; every trick on, {args.rounds} rounds of {args.moves} timed moves:",
          flush=True)

    def random_games(moves: int):
        # Random games end after about 40 moves: enough of them for the moves to play.
        return lambda: make_tables(moves // 20 + 10, f"c{next(counter)}x")

    if args.floors:
        floors(args.moves, args.rounds)
        return
    before = WARM_MOVES + COUNTED_MOVES
    measure("new games, random bot", random_games(before + args.moves), args.moves, args.rounds,
            "random")
    measure("new games, exchanges", lambda: make_tables(2, f"c{next(counter)}x",
                                                         policy="exchanges"),
            args.moves, args.rounds, "exchanges")
    measure(f"{args.long_moves}-move games, exchanges", lambda: make_tables(
        2, f"c{next(counter)}x", moves_before=args.long_moves, policy="exchanges"),
        args.moves, args.rounds, "exchanges")
    if args.baseline_only:
        return
    from mascarade_site.perf import TRICKS

    tricks = tuple(args.tricks.split(",")) if args.tricks else TRICKS
    unknown = set(tricks) - set(TRICKS)
    if unknown:
        raise SystemExit(f"bench/api_cpu.py: no such trick: {', '.join(sorted(unknown))}")
    compare_tricks("new games, random bot",
                   random_games(WARM_MOVES + 2 * COUNTED_MOVES + 2 * args.turns * args.turn_moves),
                   args.turn_moves, args.turns, "random", tricks)
    if not args.looks:
        return
    # Each look adds to its player's knowledge: large states, which set full collections off.
    # The stretches take turns on 8 games (so each grows by a few hundred moves at most).
    further = (WARM_MOVES + 2 * COUNTED_MOVES + 2 * args.turns * args.turn_moves) // LOOK_GAMES
    compare_tricks(f"{args.long_moves}-move games of looks ({LOOK_GAMES} of them, each played "
                   f"about {further} moves further)", lambda: make_tables(
                       LOOK_GAMES, f"c{next(counter)}x", moves_before=args.long_moves,
                       policy="looks"), args.turn_moves, args.turns, "looks", tricks)

if __name__ == "__main__":
    main()
