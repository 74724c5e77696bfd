"""``bench/api_instr.py --parts`` accounts for a ``POST /moves/`` with one function per part,
each counted where its callers look it up: a move played through Django's WSGI handler, as the
bench plays it, calls each of them as often as ``PARTS`` says (else its row would count
nothing, or twice), and the rows add each part once."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from bench.api_cpu import Server
from bench.api_instr import ACROSS, PARTS, ROWS, Within

from .factories import UserFactory, token_for
from .helpers import game_url, peaceful, start_game

pytestmark = pytest.mark.django_db


class _Off:
    """No count to switch (the functions are only counted here)."""

    def toggle(self):
        pass


@pytest.fixture
def _connections_kept():
    # As Django's test client does: the request's signals would close the test's connection,
    # inside its transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.postgres  # (as the bench: on SQLite a move's writes are several statements)
def test_a_move_calls_each_part_where_it_is_named(_connections_kept):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    player = game.pending_decisions.get().player
    token = token_for(users[player])
    server = Server()
    url = game_url(game.pk)
    status, content = server.request("GET", url, token)
    assert status == 200
    read = json.loads(content)
    body = json.dumps({"move": peaceful(read["you"]["legal_moves"]),
                       "expected_seq": read["seq"]}).encode()
    withins = {}
    try:
        for name, (target, _calls) in PARTS.items():
            withins[name] = Within(target, _Off())
        for within in withins.values():
            within.active = True
        # (a handler made now, as each of the bench's measures makes its own: its middleware
        # chain holds its _get_response as it was when made)
        status, content = Server().request("POST", url + "moves/", token, body)
    finally:
        for within in reversed(withins.values()):
            within.active = False
            within.restore()
    assert status == 201, content
    calls = {name: within.calls for name, within in withins.items()}
    # (the statements: the token's, the lock's, the write's; psycopg's execute also runs the
    # test's SAVEPOINT and RELEASE, which a request's BEGIN and COMMIT are not)
    expected = {name: calls for name, (_target, calls) in PARTS.items()}
    expected["psycopg"] += 2
    assert calls == expected


def test_the_parts_are_put_back():
    from django.core.handlers.wsgi import WSGIHandler

    real = WSGIHandler.__call__
    Within(PARTS["wsgi"][0], _Off()).restore()
    assert WSGIHandler.__call__ is real


def test_the_rows_count_each_part_once():
    """Added up, the rows give the whole: every part but the whole is taken off as often as
    added."""
    total = Counter()
    for _label, plus, minus in ROWS:
        total.update(plus)
        total.subtract(minus)
    assert {name: n for name, n in total.items() if n} == {"whole": 1}
    named = {n for _label, plus, minus in ROWS for n in (*plus, *minus)} - {"whole"}
    assert named | {name for _label, name in ACROSS} == set(PARTS)
