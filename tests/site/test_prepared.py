"""Prepared queries (mascarade_site.prepared): the same objects as the querysets they stand for."""

from __future__ import annotations

import datetime as dt
import threading
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.models import AuthToken

from accounts.models import User, Vacation
from games.api.authentication import _TOKENS
from games.core import selectors
from games.models import Game, PendingDecision, Seat
from mascarade_site.prepared import PreparedQuery
from tests.api.factories import UserFactory
from tests.api.helpers import play_service_moves, start_game

pytestmark = pytest.mark.django_db(transaction=True)


def _state(obj, depth: int = 1) -> dict:
    """A model instance's field values and what select_related / annotations put on it."""
    out = {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}
    for name in ("on_vacation", "vacation_ahead"):
        if hasattr(obj, name):
            out[name] = getattr(obj, name)
    if depth:
        for name, related in obj._state.fields_cache.items():
            out[name] = _state(related, depth - 1) if related is not None else None
    return out


@pytest.fixture
def game():
    users = [UserFactory() for _ in range(4)]
    today = timezone.now().date()  # (the day the selectors take: UTC)
    Vacation.objects.create(user=users[1], start=today, end=today + dt.timedelta(days=2))
    Vacation.objects.create(user=users[2], start=today + dt.timedelta(days=5),
                            end=today + dt.timedelta(days=6))
    game = start_game(users[0], users[1:])
    play_service_moves(game, 3, dict(enumerate(users)))
    return game


def test_seats_game_and_pending_are_what_the_orm_gives(game):
    today = timezone.now().date()
    seats = selectors.seats_of(game)
    plain = list(selectors._seats_with_vacations(today, today - dt.timedelta(days=1))
                 .filter(game_id=game.pk).order_by("position"))
    assert [_state(s) for s in seats] == [_state(s) for s in plain]
    assert [(s.on_vacation, s.vacation_ahead) for s in seats] == [
        (False, False), (True, True), (False, True), (False, False)]
    assert all(s._state.adding is False and s._state.db == "default" for s in seats)

    found = selectors.find_game(game.pk)
    plain_game = selectors.game_queryset().get(pk=game.pk)
    assert _state(found) == _state(plain_game)
    assert found.snapshot.seq == game.seq and found.created_by.username == seats[0].user.username
    assert selectors.find_game(str(game.pk)).pk == game.pk
    assert selectors.find_game(uuid.uuid4()) is None

    assert sorted(_state(p)["id"] for p in selectors.PENDING(game.pk)) == sorted(
        PendingDecision.objects.filter(game_id=game.pk).values_list("id", flat=True))


def _whole(obj, depth: int = 2) -> dict | str:
    """Everything an instance holds: its attributes (without ``_state``), its state's flags and
    cached relations (which point back: ``depth`` levels of them, then the class and key)."""
    if not depth:
        return f"{type(obj).__name__} {obj.pk}"
    out = {name: value for name, value in vars(obj).items() if name != "_state"}
    out["_state"] = (obj._state.adding, obj._state.db)
    out["_cache"] = {name: (_whole(related, depth - 1) if related is not None else None)
                     for name, related in obj._state.fields_cache.items()}
    return out


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared reads: PostgreSQL only")
def test_instances_made_directly_hold_what_from_db_gives_them(game, settings):
    """``fast_models``: the prepared reads' instances (a token and its user, a game with its
    snapshot and creator, seats with their users, pending decisions) hold exactly what
    ``from_db`` puts in them; with the trick off, or while anybody listens to ``pre_init`` or
    ``post_init``, they are made by ``from_db`` (and the listener hears them)."""
    from django.db.models.signals import post_init

    from mascarade_site import prepared

    user = User.objects.first()
    _row, token = AuthToken.objects.create(user, expiry=None)

    def everything():
        return ([_whole(t) for t in _TOKENS(token[:15])]
                + [_whole(selectors.find_game(game.pk))]
                + [_whole(s) for s in selectors.seats_of(game)]
                + [_whole(p) for p in selectors.seats_and_pending(game)[1]])

    made = []
    real = prepared.ModelState
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prepared, "ModelState", lambda: made.append(1) or real())
        fast = everything()
    assert len(made) >= 15  # (every instance made directly)
    settings.PERF_OFF = frozenset({"fast_models"})
    assert everything() == fast
    settings.PERF_OFF = frozenset()
    heard = []

    def listener(sender, instance, **kwargs):
        heard.append(sender)

    post_init.connect(listener)
    try:
        assert everything() == fast
    finally:
        post_init.disconnect(listener)
    assert {AuthToken, User, Game, Seat, PendingDecision} <= set(heard)


def test_a_game_without_snapshot_or_creator():
    row = Game.objects.create(kind="mascarade", options={"players": 4}, seed=1, seat_count=4)
    found = selectors.find_game(row.pk)
    assert selectors.cached_snapshot(found) is None and found.created_by is None
    assert selectors.seats_of(found) == []


def test_one_query_each_compiled_once_per_thread(game):
    with CaptureQueriesContext(connection) as queries:
        selectors.find_game(game.pk)
        selectors.seats_of(game)
    assert len(queries.captured_queries) == 2
    if connection.vendor == "postgresql":  # compiled once per thread, then reused
        compiled = selectors._GAME._compiled()
        other = Game.objects.create(kind="mascarade", options={"players": 4}, seed=2,
                                    seat_count=4)
        assert selectors.find_game(other.pk).pk == other.pk
        assert selectors._GAME._compiled() is compiled


def test_reads_together_are_one_statement_with_each_reads_objects_in_order(game, settings):
    """Seats (with their users and vacations) and pending decisions read together: the same
    objects, in the same order, as each read alone; one statement on PostgreSQL; each part
    sorted again by its own order (here also a descending one). A part that cannot join (one
    that locks; one ordered by an expression, by a relation's name, which Django reads as the
    related model's order, or by text, which PostgreSQL sorts by its collation) and
    ``PERF_OFF=read_together``: one statement each, the same objects."""
    from django.db.models import F

    from mascarade_site.prepared import read_together

    today, yesterday = selectors._days()
    seats_args = (game.pk, today, yesterday)
    backwards = PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk).order_by("-position"),
                              uuid.UUID)
    empty = PreparedQuery(lambda pk: PendingDecision.objects.filter(game_id=pk, seat=99),
                          uuid.UUID)
    calls = ((selectors._SEATS, seats_args), (selectors.PENDING, (game.pk,)),
             (backwards, (str(game.pk),)), (empty, (game.pk,)))
    alone = [query(*values) for query, values in calls]
    assert [len(part) for part in alone] == [4, 1, 4, 0]
    with CaptureQueriesContext(connection) as queries:
        together = read_together(*calls)
    assert len(queries) == (1 if connection.vendor == "postgresql" else 4)
    assert [[_state(obj) for obj in part] for part in together] == [
        [_state(obj) for obj in part] for part in alone]
    assert [s.position for s in together[2]] == [3, 2, 1, 0]
    assert [(s.on_vacation, s.vacation_ahead) for s in together[0]] == [
        (False, False), (True, True), (False, True), (False, False)]
    assert all(obj._state.adding is False for part in together for obj in part)
    other = start_game(UserFactory(), [UserFactory() for _ in range(3)])
    assert [s.game_id for s in selectors.seats_and_pending(other)[0]] == [other.pk] * 4

    by_expression = PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk)
                                  .order_by(F("position").desc()), uuid.UUID)
    from games.core.services.write import _LOCK

    by_relation = PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk).order_by("user"),
                                uuid.UUID)
    by_text = PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk).order_by("bot_kind"),
                            uuid.UUID)
    for odd in ((by_expression, (game.pk,)), (_LOCK, (game.pk,)), (by_relation, (game.pk,)),
                (by_text, (game.pk,))):
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            parts = read_together(calls[1], odd)
        assert len(queries) == 2 and [p.pk for p in parts[0]] == [p.pk for p in alone[1]]
    settings.PERF_OFF = frozenset({"read_together"})
    with CaptureQueriesContext(connection) as queries:
        assert [[obj.pk for obj in part] for part in read_together(*calls)] == [
            [obj.pk for obj in part] for part in alone]
    assert len(queries) == 4


def test_tokens_and_values_lists(game):
    user = User.objects.first()
    row, token = AuthToken.objects.create(user, expiry=None)
    [found] = _TOKENS(token[:15])
    assert found.digest == row.digest
    assert found.user_id == user.pk and found.user.username == user.username
    assert _TOKENS("no such key") == []
    if connection.vendor == "postgresql":
        names = PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk).values_list("position"),
                              uuid.UUID)
        with pytest.raises(TypeError, match="model instances only"):
            names(game.pk)


def test_bad_values_are_refused(game):
    with pytest.raises(TypeError, match="expected 1 values"):
        selectors.PENDING(game.pk, 3)
    # a UUID's text is taken as the UUID; anything else is the plain queryset's to judge
    assert [p.pk for p in selectors.PENDING(str(game.pk))] == [
        p.pk for p in selectors.PENDING(game.pk)]
    with pytest.raises(ValidationError):
        selectors.find_game("not-a-uuid")
    if connection.vendor != "postgresql":
        return
    mangled = PreparedQuery(lambda key: AuthToken.objects.filter(token_key__contains=key), str)
    with pytest.raises(ValueError, match="not a plain parameter"):
        mangled("abc")


@pytest.mark.postgres
def test_select_for_update_needs_a_transaction(game):
    from games.core.services.write import _LOCK

    with pytest.raises(TransactionManagementError):
        _LOCK(game.pk)
    with transaction.atomic():
        assert _LOCK(game.pk)[0].pk == game.pk


@pytest.mark.postgres
def test_each_thread_compiles_its_own(game):
    results = []

    def read():
        try:
            results.append([s.pk for s in selectors.seats_of(game)])
        finally:
            connection.close()

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [[s.pk for s in selectors.seats_of(game)]] * 4


def test_update_row_writes_what_save_update_fields_writes(game):
    """One UPDATE by primary key, the values prepared as the ORM prepares them (a datetime, a
    JSON list, a choice): the row reads back as ``save(update_fields=...)`` leaves it."""
    by_save = Game.objects.get(pk=game.pk)
    later = timezone.now() + dt.timedelta(hours=3)
    fields = ["seq", "updated_at", "status", "finished_at", "winners"]
    for target in (by_save, Game.objects.get(pk=game.pk)):
        target.seq, target.updated_at = 41, later
        target.status, target.finished_at, target.winners = "finished", later, [2, 0]
    with CaptureQueriesContext(connection) as queries:
        from mascarade_site.prepared import update_row

        assert update_row(target, fields) == 1
    assert len(queries) == 1 and queries[0]["sql"].startswith("UPDATE")
    written = _state(Game.objects.get(pk=game.pk), depth=0)
    Game.objects.filter(pk=game.pk).update(seq=0, status="active", winners=[])
    by_save.save(update_fields=fields)
    # (save's auto_now puts its own updated_at; update_row keeps the object's)
    saved = _state(Game.objects.get(pk=game.pk), depth=0)
    assert written["updated_at"] == later and saved["updated_at"] != later
    written.pop("updated_at"), saved.pop("updated_at")
    assert written == saved
    assert written["winners"] == [2, 0] and written["finished_at"] == later
    gone = Game(pk=uuid.uuid4(), kind="mascarade", options={}, seed=1)
    assert update_row(gone, ["seq"]) == 0


def test_delete_rows_deletes_those_rows_only_and_refuses_referred_models(game):
    from mascarade_site.prepared import delete_rows

    rows = list(PendingDecision.objects.filter(game=game))
    other = start_game(UserFactory(), [UserFactory() for _ in range(3)])
    keep = list(PendingDecision.objects.filter(game=other))
    assert rows and keep
    assert delete_rows(PendingDecision, []) == 0
    with CaptureQueriesContext(connection) as queries:
        assert delete_rows(PendingDecision, [row.pk for row in rows] + [10**9]) == len(rows)
    assert len(queries) == 1 and queries[0]["sql"].startswith("DELETE")
    assert not PendingDecision.objects.filter(game=game).exists()
    assert list(PendingDecision.objects.filter(game=other)) == keep
    with pytest.raises(TypeError):
        delete_rows(Game, [game.pk])  # seats, moves... refer to games: the ORM's collector


def test_insert_rows_writes_what_bulk_create_writes(game):
    """New rows with their keys back, JSON and datetimes prepared as the ORM prepares them, the
    ``auto_now_add`` stamp, one statement for several rows; the same rows as ``bulk_create``."""
    from games.models import MoveRecord, Notification, Snapshot
    from mascarade_site.prepared import insert_rows

    seat = Seat.objects.filter(game=game).first()
    user = seat.user
    other = start_game(UserFactory(), [UserFactory() for _ in range(3)])

    def records(first_seq):
        return [MoveRecord(game=g, seq=first_seq + i, seat=None, actor="system",
                           payload={"type": "table", "n": [i, "é"]}, events=[{"i": i}])
                for i, g in enumerate([game, other])]

    with CaptureQueriesContext(connection) as queries:
        ours = insert_rows(records(500))
    assert len(queries) == 1 and queries[0]["sql"].startswith("INSERT")
    theirs = MoveRecord.objects.bulk_create(records(600))
    assert all(r.pk is not None and not r._state.adding for r in ours + theirs)
    read = {r.pk: _state(r, depth=0) for r in MoveRecord.objects.filter(
        pk__in=[r.pk for r in ours + theirs])}
    for a, b in zip(ours, theirs, strict=True):
        a_row, b_row = dict(read[a.pk]), dict(read[b.pk])
        for row in (a_row, b_row):
            row.pop("id"), row.pop("created_at"), row.pop("seq")
        assert a_row == b_row
        assert read[a.pk]["created_at"] == a.created_at  # auto_now_add, as the object says

    # ON CONFLICT DO UPDATE: the snapshot replaced in place.
    before = Snapshot.objects.get(game=game)
    insert_rows([Snapshot(game_id=game.pk, seq=77, state={"x": [1]}, updated_at=None)],
                update_conflicts=(["game"], ["seq", "state", "updated_at"]))
    after = Snapshot.objects.get(game=game)
    assert (after.seq, after.state) == (77, {"x": [1]}) and after.updated_at > before.updated_at
    assert Snapshot.objects.filter(game=game).count() == 1

    # ON CONFLICT DO NOTHING: a cause already queued is skipped, the others written.
    def note(key):
        return Notification(user=user, game=game, kind="your_turn", dedupe_key=key,
                            next_attempt_at=timezone.now(), context={"k": key})

    insert_rows([note("a")], ignore_conflicts=True)
    insert_rows([note("a"), note("b")], ignore_conflicts=True)
    assert sorted(Notification.objects.filter(game=game, dedupe_key__in=["a", "b"])
                  .values_list("dedupe_key", flat=True)) == ["a", "b"]

    with pytest.raises(TypeError):
        insert_rows([note("c"), Snapshot(game_id=game.pk, seq=1, state={})])
    with pytest.raises(ValueError):
        insert_rows(ours[:1])  # already saved
    assert insert_rows([]) == []


def test_writes_together_are_one_statement_with_the_keys_back(game, settings):
    """Inserts (their keys back, in order, from two of them), an update, a delete and an insert
    that skips conflicts: one statement on PostgreSQL, the rows as each write alone leaves them;
    one statement each elsewhere and with ``PERF_OFF=writes``."""
    from games.models import ChatMessage, MoveRecord, Notification
    from mascarade_site.prepared import (
        delete_write,
        insert_write,
        update_write,
        write_together,
    )

    user = Seat.objects.filter(game=game).first().user
    gone = list(PendingDecision.objects.filter(game=game))
    other = start_game(UserFactory(), [UserFactory() for _ in range(3)])
    kept = list(PendingDecision.objects.filter(game=other))

    def writes(seq: int, off: frozenset = frozenset()):
        settings.PERF_OFF = off
        records = [MoveRecord(game=game, seq=seq + i, seat=None, actor="system",
                              payload={"type": "table", "i": i}, events=[]) for i in range(2)]
        lines = [ChatMessage(game=game, author=user, seat=0, text="together", seq=seq)]
        row = Game.objects.get(pk=game.pk)
        row.seq = seq + 1
        note = Notification(user=user, game=game, kind="your_turn", dedupe_key=f"t{seq}",
                            next_attempt_at=timezone.now(), context={})
        built = [insert_write(records), None, update_write(row, ["seq"]),
                 delete_write(PendingDecision, [p.pk for p in gone]), insert_write(lines),
                 insert_write([note], ignore_conflicts=True), insert_write([])]
        with CaptureQueriesContext(connection) as queries:
            write_together(built)
        settings.PERF_OFF = frozenset()
        return records + lines, queries

    saved, queries = writes(700)
    if connection.vendor == "postgresql":
        assert len(queries) == 1 and queries[0]["sql"].startswith("WITH")
    else:
        assert len(queries) == 5
    assert all(obj.pk is not None and not obj._state.adding for obj in saved)
    assert [MoveRecord.objects.get(pk=r.pk).seq for r in saved[:2]] == [700, 701]
    assert ChatMessage.objects.get(pk=saved[2].pk).text == "together"
    assert Game.objects.get(pk=game.pk).seq == 701
    assert not PendingDecision.objects.filter(game=game).exists()
    assert list(PendingDecision.objects.filter(game=other)) == kept
    assert Notification.objects.filter(dedupe_key="t700").count() == 1

    saved, queries = writes(800, frozenset({"writes"}))  # the ORM's way, each on its own
    assert len(queries) >= 5 and not any(q["sql"].startswith("WITH") for q in queries)
    assert [MoveRecord.objects.get(pk=r.pk).seq for r in saved[:2]] == [800, 801]
    assert Game.objects.get(pk=game.pk).seq == 801

    # Without a write that returns keys, the last one is the statement's own.
    rows = [Game.objects.get(pk=game.pk), Game.objects.get(pk=other.pk)]
    rows[0].version, rows[1].version = 77, 78
    with CaptureQueriesContext(connection) as queries:
        write_together([update_write(row, ["version"]) for row in rows])
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    assert [Game.objects.get(pk=row.pk).version for row in rows] == [77, 78]
