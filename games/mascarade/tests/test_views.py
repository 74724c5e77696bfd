"""Projections (rules §9): what each viewer may see of a state and of each event."""

import json
import random

import pytest

from games.mascarade.rules import MASCARADE as M

from .helpers import (
    A8,
    B8,
    EXPLORE_OPTIONS,
    announce,
    at_turn,
    decide,
    do,
    explore,
    of_type,
)

C8 = ["judge", "spy", "thief", "widow", "gambler", "king", "guru", "fool"]
VIEWERS = ["spectator", 0, 1, 2, 3, 4, 5, 6, 7]


def seen_by(event, s):
    return {str(v): M.view_event(event, v, s) for v in [*VIEWERS, "moderator"]}


def test_view_shape():
    s = at_turn(A8, 2)
    s, _ = do(s, 2, {"type": "announce", "mask": "king"})
    view = M.view(s, 4)
    assert set(view) == {"phase", "turn", "turn_seat", "awaiting", "seats", "center", "justice",
                         "masks_in_play", "starting_deal", "last_moved", "announcement",
                         "power", "revealed_last_turn", "winners", "you"}
    assert (view["phase"], view["turn"], view["turn_seat"]) == ("challenge", 5, 2)
    assert view["awaiting"] == [{"seat": 3, "player": 3, "decision": "challenge"}]
    assert view["announcement"] == {"seat": 2, "mask": "king", "claims": [], "passes": []}
    assert view["you"] == {"player": 4, "seat": 4, "knowledge": []}
    assert view["masks_in_play"] == A8
    assert M.view(s, "spectator")["you"] is None
    json.dumps(M.view(s, "moderator"))


def test_moderator_sees_everything_but_the_generator():
    s, _ = announce(at_turn(C8, 4), "gambler")
    s, _ = decide(s, {"type": "gambler", "hidden": 3, "target": 6})
    view = M.view(s, "moderator")
    assert view["you"] is None
    assert view["moderator"]["cards"][4] == {"about": 4, "mask": "gambler"}
    assert view["moderator"]["decision"] == {"decision": "gambler_guess", "seat": 4,
                                             "target": 6, "hidden": 3}
    assert str(s.rng) not in json.dumps(view)
    for viewer in ("spectator", 4, 6):
        text = json.dumps(M.view(s, viewer))
        assert "moderator" not in M.view(s, viewer)
        assert str(s.rng) not in text
        assert '"hidden"' not in text


@pytest.mark.parametrize("viewer", ["spectator", "nobody", None, True, -1, 99])
def test_unknown_viewers_are_spectators(viewer):
    s, _ = do(at_turn(A8, 2), 2, {"type": "look"})
    assert M.view(s, viewer) == M.view(s, "spectator")


def secret_variant(s, viewer, rnd):
    """``s`` with everything ``viewer`` may not know changed (§9)."""
    t = s.copy()
    t.cards = rnd.sample(t.cards, len(t.cards))
    t.rng = rnd.getrandbits(64)
    t.hidden = rnd.randint(1, 3) if t.hidden else 0
    me = viewer if isinstance(viewer, int) else None
    t.know = [entries if p == me else [[1, 0, "judge", "look"]] * rnd.randint(0, 3)
              for p, entries in enumerate(t.know)]
    t.shown = [e if me is not None and e[3] != me else [e[0], e[1], rnd.choice(t.masks), e[3]]
               for e in t.shown]
    if t.simultaneous and t.phase == "challenge":
        mine = t.seat_of[me] if me is not None else -1
        others = [x for x in t.claims + t.passes if x != mine]
        claims = [x for x in others if rnd.random() < 0.5]
        t.claims = sorted([*claims, *(x for x in t.claims if x == mine)])
        t.passes = sorted(set(others) - set(claims) | {x for x in t.passes if x == mine})
    return t


@pytest.mark.parametrize("options", EXPLORE_OPTIONS, ids=lambda o: f"{o['players']}p")
def test_views_depend_only_on_what_the_viewer_may_know(options):
    rnd = random.Random(3)
    for seed in (1, 2, 3):
        for s in list(explore(options, seed, moves=250))[::5]:
            for viewer in ["spectator", *range(s.n)]:
                t = secret_variant(s, viewer, rnd)
                assert M.view(t, viewer) == M.view(s, viewer)
                if viewer != "spectator":
                    assert M.legal_moves(t, viewer) == M.legal_moves(s, viewer)
                    if any(p.player == viewer for p in M.pending(s)):
                        assert M.timeout_move(t, viewer) == M.timeout_move(s, viewer)


ACTOR_ONLY = {"look": {"mask"}, "exchange": {"swapped"}, "spy": {"mask", "target_mask"},
              "spy_swap": {"swapped"}, "fool": {"swapped"}, "gambler": {"hidden"}}


@pytest.mark.parametrize("options", EXPLORE_OPTIONS, ids=lambda o: f"{o['players']}p")
def test_events_hide_secret_fields_from_everyone_but_the_actor(options):
    rnd = random.Random(9)
    s = M.setup(options, 9)
    while s.phase != "over" and s.seq < 300:
        p = rnd.choice(M.pending(s))
        s, events = M.apply(s, p.player, rnd.choice(M.legal_moves(s, p.player)))
        for event in events:
            assert {"type", "seat", "turn"} <= set(event)
            original = json.dumps(event, sort_keys=True)
            assert M.view_event(event, "moderator", s) == event
            for viewer in ["spectator", *range(s.n)]:
                seen = M.view_event(event, viewer, s)
                json.dumps(seen)
                secret = ACTOR_ONLY.get(event["type"], set())
                if viewer != event.get("player"):
                    assert not secret & set(seen), (event, viewer)
                else:
                    assert secret <= set(seen)
            assert json.dumps(event, sort_keys=True) == original


def test_look_mask_only_for_the_looker():
    s, events = do(at_turn(A8, 2), 2, {"type": "look"})
    seen = seen_by(events[0], s)
    assert seen["2"]["mask"] == "empress" and seen["moderator"]["mask"] == "empress"
    assert all("mask" not in seen[v] for v in seen if v not in ("2", "moderator"))
    assert seen["spectator"] == {"type": "look", "seat": 2, "turn": 5, "player": 2}


def test_exchange_swapped_only_for_the_actor():
    s, events = do(at_turn(A8, 2), 2, {"type": "exchange", "target": 6, "swap": True})
    seen = seen_by(events[0], s)
    assert seen["2"]["swapped"] is True
    assert seen["6"] == {"type": "exchange", "seat": 2, "turn": 5, "player": 2, "target": 6,
                         "prep": False}


def test_last_moved_names_the_last_move_each_card_may_have_moved_for_everyone():
    """Which cards went under the table is public (§9); whether they were swapped is not, so a
    pretended exchange counts as a move too."""
    s = at_turn(A8, 2)
    # The four preparatory exchanges, seats 6, 7, 0 and 1 each with its left neighbour.
    assert [e["seq"] for e in M.view(s, "spectator")["last_moved"]] == [3, 4, 4, 0, 0, 0, 1, 2]
    s, _ = do(s, 2, {"type": "exchange", "target": 6, "swap": False})
    moved = {e["about"]: e["seq"] for e in M.view(s, "spectator")["last_moved"]}
    assert moved[2] == moved[6] == 5 and moved[0] == 3 and moved[3] == 0
    for viewer in (*VIEWERS, "moderator"):
        assert M.view(s, viewer)["last_moved"] == M.view(s, "spectator")["last_moved"]
    s, _ = do(s, 3, {"type": "look"})  # a look moves nothing
    assert {e["about"]: e["seq"] for e in M.view(s, "spectator")["last_moved"]} == moved
    s, _ = announce(at_turn(C8, 1), "spy")
    s, _ = decide(s, {"type": "spy", "target": 4})
    s, _ = decide(s, {"type": "spy_swap", "swap": False})
    moved = {e["about"]: e["seq"] for e in M.view(s, 0)["last_moved"]}
    assert moved[1] == moved[4] == s.seq
    s, _ = announce(at_turn(A8, 5), "fool")
    s, _ = decide(s, {"type": "fool", "targets": [0, 1], "swap": True})
    moved = {e["about"]: e["seq"] for e in M.view(s, 3)["last_moved"]}
    assert moved[0] == moved[1] == s.seq and moved[5] != s.seq


def test_spy_and_fool_secrets():
    s, _ = announce(at_turn(C8, 1), "spy")
    s, spy_events = decide(s, {"type": "spy", "target": 4})
    s, swap_events = decide(s, {"type": "spy_swap", "swap": False})
    for event, secret in ((spy_events[0], {"mask", "target_mask"}),
                          (swap_events[0], {"swapped"})):
        seen = seen_by(event, s)
        assert seen["4"]["target"] == 4 and seen["spectator"]["target"] == 4
        assert not secret & set(seen["4"]) and not secret & set(seen["spectator"])
        assert secret <= set(seen["1"])
    s, _ = announce(at_turn(A8, 5), "fool")
    s, events = decide(s, {"type": "fool", "targets": [0, 1], "swap": False})
    assert "swapped" not in M.view_event(events[0], 0, s)
    assert M.view_event(events[0], 5, s)["swapped"] is False


def test_princess_mask_for_the_other_players_only():
    s, _ = announce(at_turn(B8, 3), "princess")
    s, events = decide(s, {"type": "princess", "target": 0})
    seen = seen_by(events[0], s)
    assert "mask" not in seen["0"] and "mask" not in seen["spectator"]
    assert all(seen[str(p)]["mask"] == "judge" for p in range(1, 8))


def test_gambler_hidden_number_only_for_the_gambler_until_the_guess():
    s, _ = announce(at_turn(C8, 4), "gambler")
    s, events = decide(s, {"type": "gambler", "hidden": 3, "target": 6})
    assert M.view_event(events[0], 4, s)["hidden"] == 3
    assert "hidden" not in M.view_event(events[0], 6, s)
    assert M.view(s, 6)["power"] == {"seat": 4, "mask": "gambler", "decision": "gambler_guess",
                                     "target": 6}
    s, events = decide(s, {"type": "gambler_guess", "guess": 1})
    assert M.view_event(events[0], "spectator", s)["hidden"] == 3


def test_simultaneous_answers_stay_private_until_the_window_closes():
    s = at_turn(A8, 6, challenge_mode="simultaneous")
    s, _ = do(s, 6, {"type": "announce", "mask": "king"})
    s, claim = do(s, 2, {"type": "claim"})
    s, pass_ = do(s, 3, {"type": "pass"})
    for event, actor in ((claim[0], 2), (pass_[0], 3)):
        assert M.view_event(event, actor, s) == event
        for viewer in ("spectator", 0, 6, 4):
            assert M.view_event(event, viewer, s) == {"type": "answer", "seat": actor, "turn": 5,
                                                      "player": actor}
    assert M.view(s, 0)["announcement"]["claims"] == []
    assert M.view(s, 2)["announcement"]["claims"] == [2]
    assert M.view(s, "moderator")["announcement"]["claims"] == [2]
    for seat in (7, 0, 1, 4, 5):
        s, events = do(s, seat, {"type": "pass"})
    assert s.phase != "challenge"
    assert M.view_event(claim[0], 0, s) == claim[0]
    assert of_type(events, "challenge_closed")[0]["claims"] == [2]


def test_sequential_answers_are_public_at_once():
    s = at_turn(A8, 6)
    s, _ = do(s, 6, {"type": "announce", "mask": "king"})
    s, events = do(s, 7, {"type": "claim"})
    assert M.view_event(events[0], "spectator", s) == events[0]
    assert M.view(s, "spectator")["announcement"]["claims"] == [7]


@pytest.mark.parametrize("log_masks", [True, False])
def test_log_masks_off_keeps_revealed_masks_for_this_turn_and_the_previous(log_masks):
    s = at_turn(A8, 1, log_masks=log_masks)
    s, events = announce(s, "king", claims=(2,))
    reveals = of_type(events, "reveal")
    assert [e["mask"] for e in reveals] == ["king", "empress"]

    def masks_seen(state):
        return [M.view_event(e, 5, state).get("mask") for e in reveals]

    assert s.turn == 6 and masks_seen(s) == ["king", "empress"]
    s, _ = do(s, 2, {"type": "look"})
    assert s.turn == 7
    assert masks_seen(s) == (["king", "empress"] if log_masks else [None, None])
    assert [M.view_event(e, "moderator", s)["mask"] for e in reveals] == ["king", "empress"]
    assert of_type([M.view_event(e, 5, s) for e in reveals], "reveal")[0]["seat"] == 1


@pytest.mark.parametrize("log_masks", [True, False])
def test_log_masks_off_forgets_every_trace_of_a_revealed_mask_r9(log_masks):
    # Turn 5: seat 1 announces the King (it holds it), seat 2 claims (the Empress): both reveal,
    # seat 1 takes 2 coins as the King, seat 2 is fined. Turn 6: seat 2 looks. Turn 7: seat 3
    # (the Cheater) announces the Empress unchallenged and takes 3 coins.
    s = at_turn(A8, 1, log_masks=log_masks)
    s, events = announce(s, "king", claims=(2,))
    s, _ = do(s, 2, {"type": "look"})
    assert s.turn == 7
    s, later = announce(s, "empress")
    assert s.turn == 8
    forgotten = not log_masks

    def seen(event, viewer=5):
        return M.view_event(event, viewer, s)

    (power,) = of_type(events, "power")
    (coins,) = of_type(events, "coins")
    (fines,) = of_type(events, "fines")
    assert (power["revealed"], power["mask"], coins["why"]) == (True, "king", "king")
    for viewer in (5, 1, 2, "spectator"):
        assert ("mask" in seen(power, viewer)) is not forgotten
        assert ("why" in seen(coins, viewer)) is not forgotten
        assert all("mask" not in seen(e, viewer) for e in of_type(events, "reveal")) is forgotten
        assert seen(coins, viewer)["amount"] == 2 and seen(coins, viewer)["to"] == 1
        assert seen(fines, viewer) == fines  # no reason named: seats and amounts stay public
    # Statements stay: the announcement and the challenge's close name the announced mask.
    assert seen(of_type(events, "announce")[0])["mask"] == "king"
    assert seen(of_type(events, "challenge_closed")[0])["mask"] == "king"
    assert M.view_event(power, "moderator", s) == power
    assert M.view_event(coins, "moderator", s) == coins
    # This turn's events keep everything: an unrevealed power and its coins.
    (power_now,) = of_type(later, "power")
    (coins_now,) = of_type(later, "coins")
    assert seen(power_now)["mask"] == "empress" and seen(coins_now)["why"] == "empress"
    # Two turns on, the unrevealed power keeps its mask (an announcement, not a reveal); the
    # coin movement's reason goes like every other (R9: "the reasons given for coin movements").
    for seat in (4, 5):
        s, _ = do(s, s.at[seat], {"type": "look"})
    assert s.turn == 10
    assert seen(power_now)["mask"] == "empress"
    assert ("why" in seen(coins_now)) is not forgotten
