"""A database as the site has it after years: ``--scale`` 1 makes 100,000 finished games (about
5 million move records) among 20,000 users, played through the rules engines and written in bulk.

    .venv/bin/python bench/fill.py                   # 100,000 games into mascarade_fill
    .venv/bin/python bench/fill.py --scale 0.01      # 1,000 games
    .venv/bin/python bench/fill.py --check 20        # then 20 games read back and replayed

The database is ``BENCH_DATABASE_URL`` (by default ``mascarade_fill`` on the local server,
created if missing, migrated). ``bench/full_database.py`` measures the site on it.

Each game comes from the catalog (nothing here names a game's package): its options normalized
by its rules, its seed, then random legal moves of the awaited players (as ``bench/engine.py``'s
random games) until the rules say it is over; a table of 2 to 8 seats by the mix of
:data:`TABLES` (about 50 moves a game on average). Its seats are users (a few heavy players,
many occasional ones: a player's share of the seats falls as 1/rank) and bots. Everything a game
played on the site leaves is written, as the write path writes it (``games/core/services/``):

- the game (finished, its ``seq``, ``version``, winners, "<creator> #<n>" name...), its seats
  (each human having seen the end), its move records (the payload and the rules' events, the
  mover's seat, actor ``player`` with its user and channel, or ``bot``), its snapshot (the state
  at its last move), the table chat lines its kit posts for those events;
- the outbox's messages, sent: "game started" and "game ended" to each human, one decision mail
  for each human move.
- once all are written, the players' tallies of their games finished by game
  (``games.core.services.ratings.recount_tallies``, what each game's end counts; the fill
  rates no game: no rating, no game won).

``--active`` games (1 % of the games by default) are left under way: played part way, awaiting
human players only, their pending decisions and deadlines written (their deadlines in the
coming hours, none due). ``--open`` games wait for players.

Rows go in with PostgreSQL's ``COPY`` (psycopg 3's ``cursor.copy()``, through Django's
``connection.cursor()``), a batch of ``--batch`` games per transaction; columns come from the
models' ``_meta``, and a column this script does not fill gets its field's default. A batch is
there whole or not at all: a run stopped midway goes on where it stopped when started again
(each game's id and content follow from its number). It prints the rows written per second.

``--check N`` reads N games back through the site's own reads: the table's page and the API's
read answer 200, and the state replayed from the stored moves alone (the snapshot left aside)
equals the stored snapshot.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/mascarade_fill"

#: The tables played: ``(weight, players)`` by game id, about 50 moves a game on the whole.
TABLES: dict[str, list[tuple[float, int]]] = {
    "ere_des_masques": [(0.45, 2)],
    "mascarade": [(0.15, 4), (0.07, 5), (0.03, 6), (0.01, 8)],
    "shadow_house": [(0.22, 3), (0.05, 4), (0.02, 5)],
}
#: Games at scale 1.
GAMES = 100_000
#: The share of seats taken by bots.
BOT_SHARE = 0.2
#: The fill's games are numbered; each one's id follows from its number.
NAMESPACE = uuid.UUID("6f9b1a52-4f43-4d6e-9b5e-0c8f1d4a7e21")
USER_PREFIX = "fill"


def game_id(number: int) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"game-{number}")


def username(rank: int) -> str:
    return f"{USER_PREFIX}{rank:06d}"


def setup_django(database: str) -> None:
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")
    os.environ.setdefault("DEBUG", "1")  # the settings' development defaults: no secret to give
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")  # (Django's test client's host)
    import django

    django.setup()


def create_database(url: str) -> None:
    """Create the database of ``url`` on its server if it is not there."""
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


# --------------------------------------------------------------------------------------------
# Rows as the models have them


class Copier:
    """``COPY`` of a model's rows: every concrete column of the model (its automatic key too when
    given); what a row does not give, its field's default (or NULL)."""

    def __init__(self, model, *, with_pk: bool = True):
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields
                       if with_pk or not (f.primary_key and f.db_returning)]
        self.defaults = {f.attname: f.get_default()
                         for f in self.fields}
        # (JSON columns: text, as orjson writes it; PostgreSQL parses it in the COPY)
        self.json = [f.get_internal_type() == "JSONField" or type(f).__name__ == "CachedStateField"
                     for f in self.fields]
        self.rows: list[tuple] = []

    def add(self, **values: Any) -> None:
        row = []
        for f, as_json in zip(self.fields, self.json, strict=True):
            value = values[f.attname] if f.attname in values else self.defaults[f.attname]
            if as_json and value is not None:
                value = orjson.dumps(value).decode()
            row.append(value)
        self.rows.append(tuple(row))

    def write(self, cursor) -> int:
        from django.db import connection

        if not self.rows:
            return 0
        quote = connection.ops.quote_name
        columns = ", ".join(quote(f.column) for f in self.fields)
        with cursor.copy(f"COPY {quote(self.model._meta.db_table)} ({columns}) FROM STDIN") as copy:
            for row in self.rows:
                copy.write_row(row)
        count, self.rows = len(self.rows), []
        return count


def reserve_ids(cursor, model, count: int) -> list[int]:
    """``count`` keys of ``model``'s sequence, taken as an insert would take them."""
    if not count:
        return []
    table = model._meta.db_table
    cursor.execute(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) "  # noqa: S608
                   "FROM generate_series(1, %s)", [count])
    return [row[0] for row in cursor.fetchall()]


# --------------------------------------------------------------------------------------------
# The games


def pick_table(rnd: random.Random) -> tuple[str, int]:
    roll = rnd.random() * sum(w for tables in TABLES.values() for w, _p in tables)
    for kind, tables in TABLES.items():
        for weight, players in tables:
            roll -= weight
            if roll <= 0:
                return kind, players
    return kind, players


class Players:
    """Who sits down: user ``rank`` (0 the heaviest) with a weight of 1/(rank + 10)."""

    def __init__(self, ids: list[int]):
        self.ids = ids
        weights = [1 / (rank + 10) for rank in range(len(ids))]
        total = 0.0
        self.cumulative = []
        for w in weights:
            total += w
            self.cumulative.append(total)

    def draw(self, rnd: random.Random, count: int) -> list[int]:
        import bisect

        chosen: list[int] = []
        while len(chosen) < count:
            rank = bisect.bisect_left(self.cumulative, rnd.random() * self.cumulative[-1])
            rank = min(rank, len(self.ids) - 1)
            if rank not in chosen:
                chosen.append(rank)
        return chosen


def play(engine, options: dict, seed: int, rnd: random.Random, stop_at: int | None = None,
         humans: set[int] | None = None):
    """Random legal moves until the end (or, with ``stop_at``, until at least that many moves
    were played and only ``humans`` are awaited). Returns the moves ``(player, move, events,
    decision)``, the final state and whether it is over."""
    state = engine.setup(options, seed)
    moves = []
    while engine.result(state) is None:
        pending = engine.pending(state)
        if stop_at is not None and len(moves) >= stop_at and all(
                p.player in humans for p in pending):
            return moves, state, pending
        chosen = rnd.choice(pending)
        move = rnd.choice(engine.legal_moves(state, chosen.player))
        state, events = engine.apply(state, chosen.player, move)
        moves.append((chosen.player, move, events, chosen.decision))
    return moves, state, None


class Batch:
    """The rows of a batch of games, then written together."""

    def __init__(self, models):
        self.m = models
        self.games = Copier(models.Game)
        self.seats = Copier(models.Seat)
        self.moves = Copier(models.MoveRecord, with_pk=False)
        self.snapshots = Copier(models.Snapshot)
        self.chat = Copier(models.ChatMessage, with_pk=False)
        self.notes = Copier(models.Notification, with_pk=False)
        self.pending = Copier(models.PendingDecision, with_pk=False)

    def write(self, cursor) -> dict[str, int]:
        return {name: getattr(self, name).write(cursor) for name in
                ("games", "seats", "snapshots", "moves", "chat", "notes", "pending")}


def plan(number: int, players: Players, users: list[int]) -> dict[str, Any]:
    """What game ``number`` is, before it is played: its kind, options, seed and who sits
    where (the same every run: a stopped fill goes on with the same games)."""
    from games.core import catalog

    rnd = random.Random(number)
    kind, count = pick_table(rnd)
    engine = catalog.get_game(kind)
    options = engine.normalize_options({"players": count} if count != 2 else {})
    count = engine.player_count(options)
    seed = rnd.getrandbits(63)
    # seats: at least one human, the first one (the creator)
    human = [p == 0 or rnd.random() >= BOT_SHARE for p in range(count)]
    it = iter(players.draw(rnd, sum(human)))
    seat_users = {p: users[next(it)] if human[p] else None for p in range(count)}
    return {"rnd": rnd, "kind": kind, "engine": engine, "options": options, "count": count,
            "seed": seed, "seat_users": seat_users}


def make_game(number: int, planned: dict[str, Any], name: str, batch: Batch,
              seat_ids: list[int], now: dt.datetime, status: str) -> int:
    """The rows of game ``number`` (as :func:`plan` made it, named ``name``) into ``batch``
    (its seats' keys taken from ``seat_ids``); returns its move count."""
    from games.core import catalog

    m = batch.m
    rnd, kind, engine = planned["rnd"], planned["kind"], planned["engine"]
    options, count, seed = planned["options"], planned["count"], planned["seed"]
    seat_users = planned["seat_users"]
    kit = catalog.get_kit(kind)
    gid = game_id(number)
    created = now - dt.timedelta(days=730) * rnd.random() - dt.timedelta(days=2)
    started = created + dt.timedelta(minutes=rnd.randint(1, 600)) if status != "open" else None
    humans = {p for p, u in seat_users.items() if u is not None}
    if status == "open":
        moves, state, pending = [], None, None
        # (half the seats still free)
        taken = [p for p in range(count) if p == 0 or p < count // 2]
    else:
        stop = None if status == "finished" else rnd.randint(3, 30)
        moves, state, pending = play(engine, options, seed, rnd, stop, humans)
        if status == "active" and pending is None:  # (over before: played as finished)
            status = "finished"
        taken = list(range(count))
    seats = {p: seat_ids.pop() for p in taken}
    at = started
    for n, (player, move, events, decision) in enumerate(moves, start=1):
        at = at + dt.timedelta(seconds=rnd.randint(20, 8 * 3600))
        user = seat_users[player]
        batch.moves.add(game_id=gid, seq=n, seat_id=seats[player],
                        actor="player" if user is not None else "bot", by_user_id=user,
                        payload=move, events=events,
                        channel=rnd.choice(("web", "web", "api", "mail")) if user else "",
                        created_at=at)
        for line_player, text, source in kit.chat_lines(events) or ():
            text = str(text).strip()[:m.CHAT_MAX_LENGTH]
            if text:
                batch.chat.add(game_id=gid, author_id=seat_users[line_player], seat=line_player,
                               text=text, source=str(source)[:64], seq=n, created_at=at)
        if user is not None:
            mail_kind = kit.decision_mail(decision)[0]
            if mail_kind not in ("your_turn", "challenge", "power"):  # (as the outbox does)
                mail_kind = "your_turn"
            batch.notes.add(user_id=user, game_id=gid, kind=mail_kind,
                            dedupe_key=f"decision:{gid}:{player}:{n - 1}", status="sent",
                            attempts=1, next_attempt_at=at, created_at=at, sent_at=at,
                            context={"decision": decision, "player": player, "seq": n - 1})
    finished = at if status == "finished" else None
    for p in taken:  # (a finished game's seats say when it ended, as the write path's do)
        batch.seats.add(id=seats[p], game_id=gid, position=p, user_id=seat_users[p],
                        bot_kind="" if seat_users[p] is not None else "heuristic",
                        seen_seq=len(moves) if seat_users[p] is not None and started else None,
                        joined_at=created, ended_at=finished)
    result = engine.result(state) if status == "finished" else None
    batch.games.add(id=gid, kind=kind, name=name,
                    options=options, seed=seed, status=status, private=False, invite_code="",
                    created_by_id=seat_users[0], seq=len(moves), version=len(moves) + len(taken),
                    table_seqs=[], seat_count=count,
                    winners=list(result.winner_seats) if result else [],
                    created_at=created, updated_at=at or created, started_at=started,
                    finished_at=finished)
    if state is not None:
        batch.snapshots.add(game_id=gid, seq=len(moves), state=engine.to_json(state),
                            updated_at=at)
    if started is not None:
        for p in humans:
            batch.notes.add(user_id=seat_users[p], game_id=gid, kind="started",
                            dedupe_key=f"started:{gid}:{seat_users[p]}", status="sent",
                            attempts=1, next_attempt_at=started, created_at=started,
                            sent_at=started, context={})
            if finished is not None:
                batch.notes.add(user_id=seat_users[p], game_id=gid, kind="ended",
                                dedupe_key=f"ended:{gid}:{seat_users[p]}", status="sent",
                                attempts=1, next_attempt_at=finished, created_at=finished,
                                sent_at=finished,
                                context={"won": p in (result.winner_seats if result else ())})
    if status == "active":
        # The decisions awaited, as the write path's ``_match_pending`` writes them: the clock
        # runs from the last move, the deadlines ahead.
        clock_from = now - dt.timedelta(minutes=rnd.randint(1, 600))
        for wanted in pending:
            seconds = options.get(wanted.timer, 86_400)
            seconds = seconds if isinstance(seconds, int) and seconds > 0 else 86_400
            batch.pending.add(game_id=gid, player=wanted.player, seat=wanted.seat,
                              decision=wanted.decision, seq=len(moves), clock_from=clock_from,
                              clock_seconds=seconds, given_seconds=seconds,
                              deadline=clock_from + dt.timedelta(seconds=seconds),
                              remind_at=clock_from + dt.timedelta(seconds=seconds * 0.8),
                              user_id=seat_users[wanted.player], bot=False,
                              created_at=clock_from)
    return len(moves)


def sizes(args) -> tuple[int, int, int, int]:
    """Finished, active and open games, and users, for these arguments."""
    total = max(1, round(GAMES * args.scale))
    active = round(total * args.active) if args.active < 1 else int(args.active)
    open_ = round(total * args.open) if args.open < 1 else int(args.open)
    return total, active, open_, max(10, round(args.users * min(1.0, max(args.scale, 0.05))))


def make_users(args) -> None:
    """The fill's users, if not there yet (one transaction)."""
    from django.contrib.auth.hashers import make_password
    from django.db import connection, transaction
    from django.utils import timezone

    from accounts.models import User

    started = time.perf_counter()
    user_count = sizes(args)[3]
    names = [username(rank) for rank in range(user_count)]
    with transaction.atomic(), connection.cursor() as cursor:
        have = set(User.objects.filter(username__in=names).values_list("username", flat=True))
        if len(have) < user_count:
            password = make_password("fill-password")
            users = Copier(User)
            joined = timezone.now() - dt.timedelta(days=800)
            for name, key in zip([n for n in names if n not in have],
                                 reserve_ids(cursor, User, user_count - len(have)), strict=True):
                users.add(id=key, username=name, password=password, email=f"{name}@example.org",
                          is_active=True, date_joined=joined)
            users.write(cursor)
    print(f"{user_count:,} users ({time.perf_counter() - started:.1f} s)", flush=True)


def write_games(args, part: int, parts: int) -> dict[str, int]:
    """The games of batches ``part``, ``part + parts``... not written yet; what was written."""
    from django.db import connection, transaction
    from django.utils import timezone

    from accounts.models import User
    from games import models as m

    now = timezone.now()
    total, active, open_, user_count = sizes(args)
    names = [username(rank) for rank in range(user_count)]
    by_name = dict(User.objects.filter(username__in=names).values_list("username", "id"))
    users = [by_name[name] for name in names]
    players = Players(users)
    id_names = {key: name for name, key in by_name.items()}
    numbers = list(range(total + active + open_))
    statuses = ["finished"] * total + ["active"] * active + ["open"] * open_
    # Each game's name: "<creator> #<n>", their n-th game (as the lobby names them).
    game_names: list[str] = []
    created_counts: dict[int, int] = {}
    for number in numbers:
        creator = plan(number, players, users)["seat_users"][0]
        created_counts[creator] = created_counts.get(creator, 0) + 1
        game_names.append(f"{id_names[creator]} #{created_counts[creator]}")
    written = {"games": 0, "moves": 0, "rows": 0, "skipped": 0}
    started = time.perf_counter()
    for start in range(part * args.batch, len(numbers), parts * args.batch):
        chunk = numbers[start:start + args.batch]
        if m.Game.objects.filter(pk=game_id(chunk[0])).exists():
            written["skipped"] += len(chunk)
            continue
        batch = Batch(m)
        with transaction.atomic(), connection.cursor() as cursor:
            seat_ids = reserve_ids(cursor, m.Seat, 8 * len(chunk))
            seat_ids.reverse()
            moves = 0
            for number in chunk:
                moves += make_game(number, plan(number, players, users), game_names[number],
                                   batch, seat_ids, now, statuses[number])
            counts = batch.write(cursor)
        written["games"] += len(chunk)
        written["moves"] += moves
        written["rows"] += sum(counts.values())
        elapsed = time.perf_counter() - started
        print(f"  [{part + 1}/{parts}] games {start:,} to {start + len(chunk) - 1:,} of "
              f"{len(numbers):,}: {written['moves']:,} moves, {written['rows'] / elapsed:,.0f} "
              f"rows/s, {written['moves'] / elapsed:,.0f} moves/s", flush=True)
    return written


def fill(args) -> None:
    """The users, then the games by ``args.workers`` processes (each a share of the batches),
    then the planner's statistics."""
    from django.db import connection

    from accounts.models import User
    from games import models as m
    from games.core.services.ratings import recount_tallies
    from games.ratings.models import Tally

    make_users(args)
    started = time.perf_counter()
    if args.workers > 1:
        procs = [subprocess.Popen([sys.executable, __file__, *sys.argv[1:], "--part", str(n)],
                                  stdout=subprocess.PIPE, text=True)
                 for n in range(args.workers)]
        results = []
        for proc in procs:
            lines = []
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("  ["):
                    print(line, end="", flush=True)
            if proc.wait():
                raise SystemExit("a worker of the fill failed")
            results.append(json.loads(lines[-1]))
        written = {key: sum(r[key] for r in results) for key in results[0]}
    else:
        written = write_games(args, 0, 1)
    if written["skipped"]:
        print(f"{written['skipped']:,} games were there already (a run before): left as they "
              f"were")
    # (the players' tallies of games finished, as each game's end counts them: the fill
    # rates no game, so none won)
    tallies = recount_tallies()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    elapsed = time.perf_counter() - started
    rate = written["rows"] / max(elapsed, 1e-9)
    print(f"written: {written['games']:,} games, {written['moves']:,} move records, "
          f"{written['rows']:,} rows in {elapsed:.0f} s ({rate:,.0f} rows/s, "
          f"{written['moves'] / max(elapsed, 1e-9):,.0f} move records/s); {tallies:,} "
          f"players' tallies counted")
    with connection.cursor() as cursor:
        for model in (m.Game, m.Seat, m.MoveRecord, m.Snapshot, m.ChatMessage, m.Notification,
                      m.PendingDecision, Tally, User):
            cursor.execute(f"SELECT count(*) FROM {model._meta.db_table}")  # noqa: S608
            print(f"  {model._meta.db_table:28} {cursor.fetchone()[0]:>12,} rows")


def check(count: int) -> None:
    """``count`` finished games of the fill read back: the table's page and the API's read
    answer 200 for one of their players, and their state replayed from the stored moves
    equals the snapshot."""
    from django.test import Client

    from games.core import catalog
    from games.core.selectors import load_state
    from games.models import Game

    games = list(Game.objects.filter(status="finished", name__startswith=USER_PREFIX)
                 .order_by("?")[:count])
    for game in games:
        seat = game.seats.filter(user__isnull=False).select_related("user").first()
        client = Client()
        client.force_login(seat.user)
        page = client.get(f"/games/{game.pk}/")
        read = client.get(f"/api/v1/games/{game.pk}/")
        replay_page = client.get(f"/games/{game.pk}/?at={max(0, game.seq - 1)}")
        stored = game.snapshot.state
        fresh = Game.objects.get(pk=game.pk)  # (the snapshot left aside: a full replay)
        fresh.snapshot = None
        engine = catalog.get_game(game.kind)
        replayed = engine.to_json(load_state(fresh, ask_refresh=False))
        same = orjson.dumps(replayed, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            stored, option=orjson.OPT_SORT_KEYS)
        ok = page.status_code == read.status_code == replay_page.status_code == 200 and same
        print(f"  {game.pk} {game.kind:16} {game.seq:4} moves: page {page.status_code}, "
              f"replay page {replay_page.status_code}, API {read.status_code}, "
              f"replay = snapshot: {same}")
        if not ok:
            raise SystemExit("a game of the fill does not read back as a played game")
    print(f"{len(games)} games read back: pages, API reads and replays agree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help=f"games: {GAMES:,} × scale (default 1)")
    parser.add_argument("--users", type=int, default=20_000,
                        help="users at scale 1 (fewer below scale 1; default 20,000)")
    parser.add_argument("--active", type=float, default=0.01,
                        help="games under way: a share of the finished (below 1) or a number "
                             "(default 0.01)")
    parser.add_argument("--open", type=float, default=0.002,
                        help="open games: a share of the finished (below 1) or a number "
                             "(default 0.002)")
    parser.add_argument("--batch", type=int, default=1000, help="games per transaction")
    parser.add_argument("--workers", type=int, default=2,
                        help="processes writing games side by side (default 2)")
    parser.add_argument("--part", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--check", type=int, default=0,
                        help="then read this many games back through the site")
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL",
                                                             DEFAULT_DATABASE))
    args = parser.parse_args()
    if args.part is not None:  # (one of the workers of :func:`fill`)
        setup_django(args.database)
        print(json.dumps(write_games(args, args.part, args.workers)))
        return
    create_database(args.database)
    setup_django(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    fill(args)
    if args.check:
        check(args.check)


if __name__ == "__main__":
    main()
