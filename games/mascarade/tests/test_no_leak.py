"""No leak through the API (rules §9): in scripted games with a fixed deal, after every move,
each player's and a spectator's game and events carry no mask the viewer was not shown, no seed,
and no other actor's secret decision.

The oracle here is independent of the engine's projection code: it reads the stored events (the
whole truth) and the rules' table of who sees what, and checks every answer against them.
"""

from __future__ import annotations

import json
import random

import pytest

from games.core import selectors
from games.mascarade.rules import MASKS
from games.models import Game, MoveRecord
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import URL, game_url

MASK_IDS = set(MASKS)

#: Event fields only the acting player may see (§9).
ACTOR_ONLY = {
    "look": {"mask"},
    "exchange": {"swapped"},
    "spy": {"mask", "target_mask"},
    "spy_swap": {"swapped"},
    "fool": {"swapped"},
    "gambler": {"hidden"},
}
#: Where a mask id may appear in a projected state: public facts only.
PUBLIC_STATE_MASK_PATHS = ("masks_in_play", "starting_deal.mask", "announcement.mask",
                           "power.mask",
                           # decision kinds named after the announced power ("spy", "guru")
                           "awaiting.decision", "power.decision")

SCRIPTS = [
    # 4 players, scenario B: Spy, Princess, Guru, Crook, Widow; sequential challenges.
    {"options": {"players": 4, "scenario": "B", "first_seat": 1,
                 "deal": ["spy", "princess", "guru", "judge", "crook", "widow"]},
     "seed": 11},
    # 6 players, custom: Fool, Gambler, Puppeteer, Spy; simultaneous challenges, short memory.
    {"options": {"players": 6, "scenario": "custom", "center": 0, "first_seat": 0,
                 "masks": ["judge", "fool", "gambler", "puppeteer", "spy", "king"],
                 "deal": ["king", "spy", "fool", "judge", "gambler", "puppeteer"],
                 "challenge_mode": "simultaneous", "log_masks": False},
     "seed": 5},
]
MAX_MOVES = 90


def _walk(value, path=""):
    """Every (dotted path without indexes, leaf value) of a JSON value; dict keys too."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}".lstrip(".") + "#key", key
            yield from _walk(item, f"{path}.{key}".lstrip("."))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, path)
    else:
        yield path, value


def _choose(rng: random.Random, moves: list[dict]) -> dict:
    """A script that reaches the powers: announce often, claim sometimes."""
    kinds = {m["type"] for m in moves}
    if "announce" in kinds and rng.random() < 0.6:
        return rng.choice([m for m in moves if m["type"] == "announce"])
    if "claim" in kinds:
        return {"type": "claim"} if rng.random() < 0.3 else {"type": "pass"}
    return rng.choice(moves)


def _truth(game: Game) -> list[dict]:
    """Every stored event with its seq: the whole truth, for the oracle only."""
    out = []
    for seq, events in (MoveRecord.objects.filter(game=game).order_by("seq")
                        .values_list("seq", "events")):
        out.extend({**event, "seq": seq} for event in events)
    return out


def _check_no_secrets(payload, seed: int) -> None:
    text = json.dumps(payload)
    assert '"seed"' not in text
    assert str(seed) not in text
    for path, _value in _walk(payload):
        assert not path.endswith(("cards#key", "moderator#key", "rng#key", "hidden_cards#key"))


def _check_events(seen: list[dict], truth: list[dict], viewer: int | None, state,
                  names: dict[int, str]) -> None:
    """Each seen event matches a true one, in order, showing only what the viewer may see."""
    position = 0
    for event in seen:
        while position < len(truth) and not (
                truth[position]["seq"] == event["seq"]
                and (truth[position]["type"] == event["type"]
                     or (event["type"] == "answer"
                         and truth[position]["type"] in ("claim", "pass")))):
            position += 1
        assert position < len(truth), f"an event the table never saw: {event}"
        true = truth[position]
        position += 1
        actor = true.get("player")
        is_actor = viewer is not None and viewer == actor
        extra = set(event) - set(true) - {"at", "actor"}
        assert not extra, f"fields the truth has not: {extra} in {event}"
        assert event["actor"] in ("player", "timeout", "bot", "moderator", "system"), event
        for key in ACTOR_ONLY.get(true["type"], ()):
            if not is_actor:
                assert key not in event, f"{key} of another actor's {true['type']}: {event}"
        if true["type"] == "princess" and viewer in (None, true.get("target_player")):
            # Everyone at the table but the target; spectators only see the public column.
            assert "mask" not in event, "the Princess's mask shown to its target or a spectator"
        if true["type"] in ("claim", "pass") and not is_actor:
            window_open = (state.simultaneous and state.phase == "challenge"
                           and state.turn == true["turn"])
            if window_open:
                assert event["type"] == "answer", f"an open simultaneous answer: {event}"
        for key, value in event.items():
            if key in ("player", "target_player") and isinstance(true.get(key), int):
                assert value == names[true[key]]
            elif key in true and key not in ("seq",):
                if key == "players" and isinstance(value, list):
                    continue
                if event["type"] == "answer":
                    continue
                assert value == true[key], f"{key} differs from the truth in {event}"


def _check_state(view: dict, you: dict | None, truth: list[dict], viewer: int | None,
                 state) -> None:
    for path, value in _walk(view):
        if isinstance(value, str) and value in MASK_IDS and not path.endswith("#key"):
            assert path in PUBLIC_STATE_MASK_PATHS, f"a mask at {path}: {value}"
    announcement = view.get("announcement")
    if announcement and state.simultaneous and state.phase == "challenge":
        mine = state.seat_of[viewer] if viewer is not None else None
        assert set(announcement["claims"]) | set(announcement["passes"]) <= {mine}
    if viewer is None:
        assert you is None
        return
    assert you["seat"] == state.seat_of[viewer]
    for item in you["knowledge"]:
        sources = [t for t in truth if t["seq"] == item["seq"]]
        if item["how"] == "look":
            assert any(t["type"] == "look" and t["player"] == viewer
                       and t["seat"] == item["about"] and t["mask"] == item["mask"]
                       for t in sources), item
        elif item["how"] == "spy":
            assert any(t["type"] == "spy" and t["player"] == viewer
                       and ((t["seat"] == item["about"] and t["mask"] == item["mask"])
                            or (t["target"] == item["about"]
                                and t["target_mask"] == item["mask"]))
                       for t in sources), item
        else:
            assert item["how"] == "princess"
            assert any(t["type"] == "princess" and t["target_player"] != viewer
                       and t["target"] == item["about"] and t["mask"] == item["mask"]
                       for t in sources), item


@pytest.mark.django_db
@pytest.mark.parametrize("script", [
    pytest.param(SCRIPTS[0], id="4p-B-sequential"),
    # The longest after it: CI's profile only (tests.plugin).
    pytest.param(SCRIPTS[1], id="6p-custom-simultaneous", marks=pytest.mark.thorough),
])
def test_no_viewer_learns_more_than_the_table_shows(script):
    seen_types = _play_and_check(script, MAX_MOVES)
    # The script reached the secret-bearing events it is meant to check.
    assert {"look", "exchange", "announce", "reveal"} <= seen_types
    assert seen_types & {"spy", "princess", "fool", "gambler"}


@pytest.mark.django_db
def test_the_oracle_catches_a_projection_that_leaks(monkeypatch):
    """The check above is not vacuous: an engine showing raw events fails it."""
    from games.core.catalog import get_game

    engine = get_game("mascarade")
    monkeypatch.setattr(type(engine), "view_event", lambda self, event, viewer, state: event)
    with pytest.raises(AssertionError):
        _play_and_check(SCRIPTS[0], 12)


def _play_and_check(script: dict, max_moves: int) -> set[str]:
    staff = UserFactory(is_staff=True)
    users = [staff] + [UserFactory() for _ in range(script["options"]["players"] - 1)]
    clients = [client_for(u) for u in users]
    spectator = client_for()
    created = clients[0].post(URL, {"game": "mascarade", "options": script["options"]},
                              format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for client in clients[1:]:
        assert client.post(game_url(game_id, "join/")).status_code == 200
    game = Game.objects.get(pk=game_id)
    names = {seat.position: seat.name for seat in game.seats.select_related("user")}
    rng = random.Random(script["seed"])
    seen_types: set[str] = set()

    for _ in range(max_moves):
        game.refresh_from_db()
        state = selectors.load_state(game)
        truth = _truth(game)
        seen_types |= {t["type"] for t in truth}
        for viewer, client in [*enumerate(clients), (None, spectator)]:
            answer = client.get(game_url(game_id)).json()
            events = client.get(game_url(game_id, "events/")).json()
            _check_no_secrets(answer, game.seed)
            _check_no_secrets(events, game.seed)
            if answer["state"] is not None:
                _check_state(answer["state"], answer["you"], truth, viewer, state)
            _check_events(events["results"], truth, viewer, state, names)
        if game.status != Game.Status.ACTIVE:
            break
        player = game.pending_decisions.order_by("seat").first().player
        legal = clients[player].get(game_url(game_id, "legal-moves/")).json()
        sent = clients[player].post(game_url(game_id, "moves/"),
                                    {"move": _choose(rng, legal["moves"]),
                                     "expected_seq": legal["seq"]}, format="json")
        assert sent.status_code == 201, sent.json()
        # The mover's answer is a projection too.
        _check_no_secrets(sent.json(), game.seed)
    return seen_types
