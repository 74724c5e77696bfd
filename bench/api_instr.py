"""The API's cost per request in instructions, counted by valgrind's callgrind: a figure that the
machine's phase does not move, for the cuts that ``bench/api_cpu.py``'s CPU times cannot tell
apart on a slow day.

    .venv/bin/python bench/api_instr.py [--moves 100] [--long-moves 300] [--tricks a,b]
                                        [--workloads random,exchanges,long]
                                        [--within module:qualname]

It runs itself again under ``valgrind --tool=callgrind`` (valgrind and its ``callgrind.h``, and
a C compiler for a five-line helper, ``ctypes``-loaded, that switches the count on and off: the
Debian packages valgrind and gcc). In that process it plays as ``bench/api_cpu.py`` does, each
request handed to Django's WSGI handler (:class:`bench.api_cpu.Server`), and counts the
instructions the process executes for ``GET /games/{id}/`` only, over ``--moves`` moves, then
for ``POST /moves/`` only, over the next ``--moves``: each figure is a mean per request (its
requests' instructions together, divided by their number). What the PostgreSQL backend and
Redis execute is not in it (their own processes), nor what the web server does around the
application (granian's Rust, the kernel).

The count does not drift: two runs of the same code give the same figures to within the
variance of the games played, which are made the same each time (the games' seeds and the
bots' choices come from fixed seeds here; what still differs, the ids, tokens and times, moves
a figure by less than 0.2 %, which the printed "again" row shows). A count is not a time: a cut
that saves instructions of the interpreter saves about as much time, one that saves cache
misses or system calls may show less here than in CPU time. Under callgrind the process runs
about 50 times slower; a run of the defaults (three workloads, every trick off in turn) takes
about 35 minutes here (two workloads took 23 on 2026-11-28), ``--tricks none`` about 5, one
workload with ``--tricks none --no-again`` about 1.5.

Workloads (``--workloads``): ``random``, new games played by the random bot (each ends after
about 40 moves; new ones start); ``exchanges``, new games in which each player exchanges without
swapping (a state that keeps its size); ``long``, the same on games that already have
``--long-moves`` moves. For each, the figures with every trick on, then with each trick of
``--tricks`` (``mascarade_site.perf.TRICKS``; ``none`` for none) off in turn, each on new
games made the same way, so the states play the very same moves.

Where a request's instructions go (``--within module:qualname``): only those executed inside
that function (and what it calls) during the requests counted, with its calls per request; the
wrapper that switches the count on and off around each call (:class:`Within`) measures its own
share first and takes it off. ``--within games.core.services.write:commit_many``, say, gives what a
move's writes cost, beside the whole ``POST``'s figure of a run without it.

A whole ``POST /moves/`` part by part (``--parts``): the request counted whole, then each
function of :data:`PARTS` with ``--within``, in turn, on the same games, every trick on; printed
as :data:`ROWS`, which do not overlap and add up to the whole (Django around the view, DRF's
authentication, throttles and the rest, the move's lock and read, rules, writes and answer...),
then the statements' trips across them, with their calls per request. A part of the rows called
other than as often as :data:`PARTS` says is named under the table (its rows are then wrong).
About 12 minutes for one workload (``--workloads exchanges --moves 60``).

The database named in ``BENCH_DATABASE_URL`` (default: ``mascarade_bench_instr`` on the local
PostgreSQL, not bench/api_cpu.py's) is dropped and created anew.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import gc
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_cpu import WARM_MOVES, Server, collector, play, set_up, switch  # noqa: E402

#: Its own database (``BENCH_DATABASE_URL`` otherwise), dropped and made anew: it may run beside
#: bench/api_cpu.py.
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_instr"

#: The helper: the count switched on and off, and written, from Python (valgrind's client
#: requests are instructions that only valgrind reads: a no-op when run natively).
HELPER = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void cg_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void cg_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
int cg_running(void) { return RUNNING_ON_VALGRIND; }
"""
ENV_HELPER = "BENCH_CALLGRIND_HELPER"
ENV_OUT = "BENCH_CALLGRIND_OUT"
WORKLOADS = ("random", "exchanges", "long")
KINDS = ("GET", "POST")


def relaunch(argv: list[str], script: Path | None = None) -> int:
    """``script`` (this one) again, under callgrind (the count off until :class:`Counter`
    starts it); its exit status."""
    for tool in ("valgrind", "cc"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench/api_instr.py: {tool} is not on PATH (apt-get install "
                             "valgrind gcc)")
    work = Path(tempfile.mkdtemp(prefix="bench-instr-"))
    try:
        source = work / "cg.c"
        source.write_text(HELPER)
        helper = work / "libcg.so"
        built = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(helper), str(source)],
                               capture_output=True, text=True)
        if built.returncode:
            raise SystemExit("bench/api_instr.py: the helper did not build (valgrind's "
                             f"callgrind.h is in Debian's valgrind package):\n{built.stderr}")
        env = {**os.environ, ENV_HELPER: str(helper), ENV_OUT: str(work / "cg.out"),
               "PYTHONHASHSEED": "0"}
        # (the interpreter itself: a venv's python is a link to it, which valgrind follows)
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                   "--dump-line=no", "--dump-instr=no", f"--callgrind-out-file={work}/cg.out",
                   "--log-file=" + str(work / "valgrind.log"),
                   sys.executable, str(script or Path(__file__).resolve()), *argv]
        done = subprocess.run(command, env=env)
        if done.returncode:
            print((work / "valgrind.log").read_text()[-3000:], file=sys.stderr)
        return done.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Counter:
    """The process's count of instructions, through the helper."""

    def __init__(self, helper: str, out: str):
        self.lib = ctypes.CDLL(helper)
        self.lib.cg_dump.argtypes = [ctypes.c_char_p]
        if not self.lib.cg_running():
            raise SystemExit("bench/api_instr.py: not under valgrind")
        self.out = Path(out)
        self.dumps = 0

    def instrument(self, on: bool) -> None:
        (self.lib.cg_start if on else self.lib.cg_stop)()

    def toggle(self) -> None:
        self.lib.cg_toggle()

    def take(self, label: str) -> int:
        """The instructions counted since the last take (callgrind writes them to a file of
        its own, read here and removed); the count starts again from zero."""
        self.lib.cg_dump(label.encode())
        self.dumps += 1
        path = self.out.with_name(f"{self.out.name}.{self.dumps}")
        total = None
        with path.open() as f:
            for line in f:
                if line.startswith("totals:"):
                    total = int(line.split()[1])
        path.unlink()
        if total is None:
            raise SystemExit(f"bench/api_instr.py: no totals in {path}")
        return total


class Collecting:
    """A :class:`Server` whose requests of one method (``kind``) are counted, and only
    those; with a :class:`Within`, only what they execute inside its function."""

    def __init__(self, server: Server, counter: Counter, within: Within | None = None):
        self.server = server
        self.counter = counter
        self.within = within
        self.kind: str | None = None
        self.requests = 0

    def request(self, method: str, *args) -> tuple[int, bytes]:
        if method != self.kind:
            return self.server.request(method, *args)
        self.requests += 1
        if self.within is not None:
            self.within.active = True
            try:
                return self.server.request(method, *args)
            finally:
                self.within.active = False
        self.counter.toggle()
        try:
            return self.server.request(method, *args)
        finally:
            self.counter.toggle()


class Within:
    """The count switched on only inside one function (``module:qualname``, a function of the
    module or a method of one of its classes), and only during the requests counted: replaced
    by a wrapper that toggles the count around the real one (once, however deep it calls
    itself). A caller that took the function into its own namespace (``from m import f``)
    keeps the real one: name the function where that caller looks it up
    (``games.core.services.write:insert_write``, not ``mascarade_site.prepared:insert_write``).

    Each counted call also counts the wrapper's own instructions after and before its toggles
    (the ``ctypes`` call into the helper): :meth:`calibrate` measures them on a function that
    does nothing, and :func:`measure` takes them off, so a figure is what the function
    executes."""

    def __init__(self, target: str, counter: Counter):
        import importlib

        module_name, _, qualname = target.partition(":")
        if not module_name or not qualname:
            raise SystemExit(f"bench/api_instr.py: --within module:qualname, not {target!r}")
        owner: Any = importlib.import_module(module_name)
        parts = qualname.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part)
        real = getattr(owner, parts[-1])
        if not callable(real):
            raise SystemExit(f"bench/api_instr.py: {target} is not a function")
        self.counter = counter
        self.active = False
        self.depth = 0
        self.calls = 0
        self.overhead = 0.0
        self.owner, self.name, self.real = owner, parts[-1], real
        setattr(owner, parts[-1], self.wrap(real))

    def restore(self) -> None:
        """The real function put back where it was found."""
        setattr(self.owner, self.name, self.real)

    def wrap(self, real):
        @functools.wraps(real)
        def counted(*args, **kwargs):
            if not self.active or self.depth:
                return real(*args, **kwargs)
            self.depth += 1
            self.calls += 1
            self.counter.toggle()
            try:
                return real(*args, **kwargs)
            finally:
                self.counter.toggle()
                self.depth -= 1

        return counted

    def calibrate(self, times: int = 200) -> None:
        """The instructions each counted call adds of its own (the wrapper around a function
        that does nothing, ``times`` calls)."""
        noop = self.wrap(lambda: None)
        self.active, calls = True, self.calls
        self.counter.take("calibrate-before")
        for _ in range(times):
            noop()
        self.overhead = self.counter.take("calibrate") / times
        self.active, self.calls = False, calls


#: ``--parts``: the functions whose counts (``--within`` each, in turn) account for a whole
#: ``POST /moves/``, each named where its callers look it up, with its calls in a move of the
#: usual shape (a function of :data:`ROWS` called otherwise would make them wrong, and
#: ``--parts`` says so; the statements, across the rows, are one more where a decision is
#: replaced by another: ``tests/api/test_bench_parts.py`` plays a move and checks them all).
PARTS = {
    "wsgi": ("django.core.handlers.wsgi:WSGIHandler.__call__", 1),
    "handler": ("django.core.handlers.base:BaseHandler._get_response", 1),
    "dispatch": ("rest_framework.views:APIView.dispatch", 1),
    "auth": ("games.api.authentication:ModeratedTokenAuthentication.authenticate", 1),
    "throttles": ("rest_framework.views:APIView.check_throttles", 1),
    "move": ("games.core.services:submit_move", 1),
    "lock": ("games.core.services.moves:open_table", 1),
    "rules": ("games.core.services.write:Table.play", 1),
    "writes": ("games.core.services.moves:commit", 1),
    "answer": ("games.core.selectors:game_payload", 1),
    # across the rows: the token's, the lock's and the write's statements
    "statements": ("mascarade_site.prepared:execute", 3),
    "psycopg": ("psycopg.cursor:Cursor.execute", 3),
}

#: The rows of ``--parts``: each the parts it adds and those it takes off ("whole": the request
#: counted without ``--within``); together, the whole request, each instruction once.
ROWS = (
    ("Django around the view: the request, request_started, the middlewares, the headers",
     ("wsgi",), ("handler",)),
    ("URL resolution and the view's wrappers", ("handler",), ("dispatch",)),
    ("DRF: authentication (the token and its statement)", ("auth",), ()),
    ("DRF: the throttles", ("throttles",), ()),
    ("DRF: the rest (request, parsing, negotiation, permission, the answer rendered)",
     ("dispatch",), ("move", "auth", "throttles")),
    ("the move: the game locked and read (open_table)", ("lock",), ()),
    ("the move: the rules (Table.play)", ("rules",), ()),
    ("the move: the writes, then the push messages (commit)", ("writes",), ()),
    ("the move: the answer's game (game_payload)", ("answer",), ()),
    ("the move: the rest (the transaction, idempotency, the checks, the ETag)", ("move",),
     ("lock", "rules", "writes", "answer")),
    ("the answer closed (request_finished) and the bench's own handling", ("whole",),
     ("wsgi",)),
)

#: Printed under the rows, across them.
ACROSS = (
    ("across the rows: the three statements' trips (prepared.execute)", "statements"),
    ("  of which psycopg's own Cursor.execute", "psycopg"),
)


def seeded(seed: int) -> None:
    """New games' seeds (``games.core.services.lobby``: ``secrets.randbits``) drawn from ``seed``,
    so that every state plays the same deals."""
    from games.core.services import lobby

    rng = random.Random(seed)

    class Secrets:
        def __getattr__(self, name):
            return getattr(secrets, name)

        def randbits(self, k: int) -> int:
            return rng.getrandbits(k)

    lobby.secrets = Secrets()


def measure(counter: Counter, make, policy: str, moves: int, off: frozenset[str],
            within: Within | None = None) -> dict[str, float]:
    """Instructions per request of each kind with the tricks in ``off`` off, on new games
    made by ``make`` from fixed seeds (with ``within``: only those executed inside its
    function; then also ``"<kind> calls"``, its calls per request)."""
    from bench.api import analyze

    seeded(11)
    tables = make()
    analyze()
    server = Collecting(Server(), counter, within)
    switch(off)
    rng = random.Random(7)
    try:
        play(server, tables, WARM_MOVES, policy, rng, None, None)
        out = {}
        counter.instrument(True)
        counter.take("start")
        for kind in KINDS:
            # The collector as a worker has it (everything alive frozen, unless gc_freeze is
            # off), from the same point: its collections fall on the same requests each time.
            collector(off)
            counter.take("collector")
            server.kind, server.requests = kind, 0
            calls = within.calls if within is not None else 0
            play(server, tables, moves, policy, rng, None, None)
            server.kind = None
            total = counter.take(f"{kind} {sorted(off)}")
            if within is not None:
                calls = within.calls - calls
                total -= calls * within.overhead
                out[f"{kind} calls"] = calls / server.requests
            out[kind] = total / server.requests
        counter.instrument(False)
        return out
    finally:
        gc.unfreeze()
        switch(frozenset())


def account(counter: Counter, make, policy: str, moves: int) -> None:
    """``--parts``: a ``POST /moves/``'s instructions, part by part (:data:`ROWS`), every trick
    on; each part one measure of its own, on the same games."""
    counts = {"whole": measure(counter, make, policy, moves, frozenset())["POST"]}
    calls = {}
    for name, (target, _expected) in PARTS.items():
        within = Within(target, counter)
        try:
            counter.instrument(True)
            within.calibrate()
            counter.instrument(False)
            figures = measure(counter, make, policy, moves, frozenset(), within)
        finally:
            within.restore()
        counts[name], calls[name] = figures["POST"], figures["POST calls"]
    whole = counts["whole"]
    print(f"{'POST /moves/, part by part':<92} {'thousands':>9} {'share':>7}", flush=True)
    for label, plus, minus in ROWS:
        value = sum(counts[n] for n in plus) - sum(counts[n] for n in minus)
        print(f"{label:<92} {value / 1000:9,.0f} {100 * value / whole:6.1f} %", flush=True)
    print(f"{'the whole':<92} {whole / 1000:9,.0f}", flush=True)
    for label, name in ACROSS:
        # (their calls vary with the moves: a decision replaced by another sends one more)
        print(f"{label:<92} {counts[name] / 1000:9,.0f} {100 * counts[name] / whole:6.1f} %"
              f" ({calls[name]:.1f} calls per POST)", flush=True)
    in_rows = {name for _label, plus, minus in ROWS for name in (*plus, *minus)} - {"whole"}
    wrong = [f"{PARTS[name][0]} ({calls[name]:.1f}, not {PARTS[name][1]})"
             for name in sorted(in_rows) if abs(calls[name] - PARTS[name][1]) > 0.01]
    if wrong:
        # (a part called more or less often than the table assumes: its rows are not what they
        # say)
        print("calls per POST other than the rows assume, so the rows are wrong: "
              + ", ".join(wrong), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split(". ", 1)[0].replace("\n", " ") + ".")
    parser.add_argument("--moves", type=int, default=100,
                        help="moves whose GETs are counted, then as many whose POSTs are (100)")
    parser.add_argument("--long-moves", type=int, default=300,
                        help="moves already played in the long games (300)")
    parser.add_argument("--tricks", help="the tricks switched off in turn, comma-separated (all "
                                         "of mascarade_site.perf.TRICKS; none: none)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help=f"comma-separated, of {', '.join(WORKLOADS)} (all)")
    parser.add_argument("--again", action=argparse.BooleanOptionalAction, default=True,
                        help="the all-on figures taken twice, to show what is left of noise (on)")
    parser.add_argument("--within", metavar="MODULE:QUALNAME",
                        help="count only what the requests execute inside this function (e.g. "
                             "games.core.services.write:commit_many), with its calls per request")
    parser.add_argument("--parts", action="store_true",
                        help="instead: a POST /moves/ part by part, every trick on (one count "
                             "of each part in turn: about 12 minutes for --workloads exchanges "
                             "--moves 60)")
    args = parser.parse_args()
    if args.parts and args.within:
        raise SystemExit("bench/api_instr.py: --parts or --within, not both")
    workloads = [name for name in args.workloads.split(",") if name]
    if set(workloads) - set(WORKLOADS):
        raise SystemExit(f"bench/api_instr.py: workloads are {', '.join(WORKLOADS)}")
    if ENV_HELPER not in os.environ:
        raise SystemExit(relaunch(sys.argv[1:]))

    from bench.api import interpreter, make_tables

    db_url = set_up("bench-api-instr", DEFAULT_DB)
    from django.conf import settings

    from mascarade_site.perf import TRICKS

    tricks = (() if args.tricks == "none" else
              tuple(args.tricks.split(",")) if args.tricks else TRICKS)
    unknown = set(tricks) - set(TRICKS)
    if unknown:
        raise SystemExit(f"bench/api_instr.py: no such trick: {', '.join(sorted(unknown))}")
    counter = Counter(os.environ[ENV_HELPER], os.environ[ENV_OUT])
    within = None
    if args.within:
        within = Within(args.within, counter)
        counter.instrument(True)
        within.calibrate()
        counter.instrument(False)
    counter_tags = iter(range(10**9))
    print(f"one process under callgrind, PostgreSQL {db_url.rsplit('/', 1)[-1]}, cache "
          f"{'Redis' if settings.REDIS_URL else 'local memory'}; {interpreter()}; instructions "
          f"per request (thousands), the mean of {args.moves} moves' requests of each kind"
          + (f", inside {args.within} only (its calls per request in brackets; each call's "
             f"{within.overhead:,.0f} instructions of counting taken off)" if within else "")
          + ("; every trick on, each part counted in turn (--within), on the same games:"
             if args.parts else "; every trick on, then each off in turn, on the same games:"),
          flush=True)
    makers = {
        "random": ("new games, random bot", "random",
                   lambda: make_tables((WARM_MOVES + 2 * args.moves) // 20 + 10,
                                       f"i{next(counter_tags)}x")),
        "exchanges": ("new games, exchanges", "exchanges",
                      lambda: make_tables(2, f"i{next(counter_tags)}x", policy="exchanges")),
        "long": (f"{args.long_moves}-move games, exchanges", "exchanges",
                 lambda: make_tables(2, f"i{next(counter_tags)}x",
                                     moves_before=args.long_moves, policy="exchanges")),
    }
    for name in workloads:
        label, policy, make = makers[name]
        print(f"\n{label}", flush=True)
        if args.parts:
            account(counter, make, policy, args.moves)
            continue
        print(f"{'tricks off':<16} {'GET /games/{id}/':>18} {'POST /moves/':>18}", flush=True)
        base = measure(counter, make, policy, args.moves, frozenset(), within)
        rows = [("none", base)]
        if args.again:
            rows.append(("none (again)", measure(counter, make, policy, args.moves,
                                                 frozenset(), within)))
        for trick in tricks:
            rows.append((trick, measure(counter, make, policy, args.moves, frozenset({trick}),
                                        within)))
        for row_label, figures in rows:
            cells = []
            for kind in KINDS:
                value = figures[kind]
                cell = f"{value / 1000:9,.0f}"
                if within is not None:
                    cell += f" ({figures[f'{kind} calls']:.1f})"
                if row_label != "none" and base[kind]:
                    cell += f" {100 * (value - base[kind]) / base[kind]:+6.1f} %"
                else:
                    cell += " " * 9
                cells.append(cell)
            print(f"{row_label:<16} " + " ".join(f"{cell:>18}" for cell in cells), flush=True)
        if within is not None and not any(figures[f"{kind} calls"] for _label, figures in rows
                                          for kind in KINDS):
            # (the usual cause: its callers took it into their own namespace, Within's text)
            print(f"{args.within} was never called in these requests: name it where its "
                  "callers look it up (e.g. games.core.services.write:insert_write)", flush=True)


if __name__ == "__main__":
    main()
