"""``bench/api_cpu.py --floors`` compares ``POST /moves/`` with endpoints of its own process
(``bench/floor_urls.py``) that answer a move's request without playing it: the DRF one runs what
DRF runs around the move (the same classes as ``MovesView``), the other Django alone; the site's
own URLs stay as they are beside them."""

from __future__ import annotations

import json

import pytest

from bench.floor_urls import ANSWER, DRFFloor
from games.api.views import MovesView

from .factories import client_for

pytestmark = pytest.mark.django_db

BODY = {"move": {"type": "swap", "target": 2, "swap": True}, "expected_seq": 1}


@pytest.fixture(autouse=True)
def _floor_urls(settings):
    settings.ROOT_URLCONF = "bench.floor_urls"


def test_drf_floor_runs_what_drf_runs_around_a_move():
    floor, moves = DRFFloor(), MovesView()
    for get in ("get_authenticators", "get_permissions", "get_throttles", "get_parsers",
                "get_renderers"):
        assert ([type(x) for x in getattr(floor, get)()]
                == [type(x) for x in getattr(moves, get)()]), get
    assert type(floor.get_content_negotiator()) is type(moves.get_content_negotiator())


def test_drf_floor_authenticates_parses_and_answers(users):
    url = "/api/v1/games/any-game/floor-drf/"
    refused = client_for().post(url, BODY, format="json")
    assert refused.status_code == 401
    assert refused.json()["code"] == "not_authenticated"
    answer = client_for(users[0]).post(url, BODY, format="json")
    assert answer.status_code == 201
    assert answer.json() == {"seq": 2}  # the body was parsed: its two keys
    malformed = client_for(users[0]).post(url, b"{", content_type="application/json")
    assert malformed.status_code == 400


def test_django_floor_answers_alone():
    answer = client_for().post("/api/v1/games/any-game/floor-django/", json.dumps(BODY),
                               content_type="application/json")
    assert answer.status_code == 201
    assert answer.content == ANSWER


def test_the_sites_urls_stay(users):
    assert client_for(users[0]).get("/api/v1/games/").status_code == 200
    assert client_for().get("/api/v1/nowhere/").json()["code"] == "not_found"
