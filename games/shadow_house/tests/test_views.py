"""Shadow House Mascarade's projections (§5): the view's shape, who sees which card, events as each
viewer sees them, non-interference (what a viewer cannot know never changes what they are shown)
and no sharing of mutable objects with the state."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import MODERATOR, SPECTATOR
from games.shadow_house.rules import GAME as G
from games.shadow_house.rules.cards import BOX, FIXED, HAND_SIZE, round_cards

from .support import (
    card_move,
    do,
    of_type,
    play,
    random_game,
    stage,
    start,
)

VIEWERS4 = [0, 1, 2, 3, SPECTATOR, MODERATOR]


# Shape ----------------------------------------------------------------------------------------


def test_view_of_a_player_at_the_start():
    s = start(pile=("toby",))
    v = G.view(s, 1)
    seat = {"hand_size": 4, "points": 0, "played": [], "accomplice": False, "handcuffs": False,
            "protected": [], "chosen": False}
    assert v == {
        "phase": "playing", "round": 1, "flash": False, "goal": 5, "turn": 0, "turn_seat": 1,
        "awaiting": [{"player": 1, "seat": 1, "decision": "turn", "timer": "move_timeout"}],
        "seats": [{"seat": 0, "player": 0, **seat, "hand_size": 3,
                   "played": ["first_on_scene"]},
                  {"seat": 1, "player": 1, **seat}, {"seat": 2, "player": 2, **seat},
                  {"seat": 3, "player": 3, **seat}],
        "pile_size": 20, "discards": [], "effect": None, "rounds": [], "winners": [],
        "reason": None,
        "you": {"player": 1, "seat": 1, "hand": ["culprit", "toby", "sharing", "rumour"],
                "choice": None, "culprit_seen": None, "witnessed": None, "pool": None},
    }
    json.dumps(v)
    spectator = G.view(s, SPECTATOR)
    assert spectator["you"] is None and "moderator" not in spectator
    assert {k: x for k, x in v.items() if k != "you"} == {
        k: x for k, x in spectator.items() if k != "you"}
    mod = G.view(s, MODERATOR)
    assert mod["you"] is None
    assert mod["moderator"] == {
        "hands": [list(h) for h in s.hands], "pile": s.pile, "choices": [None] * 4,
        "culprit_seen": [None] * 4, "witnessed": None, "deals_left": 0, "seq": 0}
    assert mod["moderator"]["pile"][0] == "toby"


def test_junk_viewers_see_what_a_spectator_sees():
    s = start()
    for viewer in (4, -1, True, "0", None, "moderator ", 10**50):
        assert G.view(s, viewer) == G.view(s, SPECTATOR)


def test_nothing_secret_in_a_spectators_view():
    s = start()
    s, _ = do(s, 1, play("sharing"))
    s, _ = do(s, 2, card_move("give", "witness"))
    text = json.dumps(G.view(s, SPECTATOR))
    assert str(s.rng) not in text and "witness" not in text and "culprit" not in text
    assert G.view(s, SPECTATOR)["seats"][2]["chosen"] is True
    assert G.view(s, MODERATOR)["moderator"]["choices"] == [None, None, "witness", None]


# Events ---------------------------------------------------------------------------------------


def seen_by(events: list[dict], viewer: Any, s) -> list[dict | None]:
    return [G.view_event(e, viewer, s) for e in events]


def test_private_fields_of_gifts_and_rumours():
    s, _ = do(start(), 1, play("sharing"))
    events = []
    for t, card in ((0, "alibi"), (1, "culprit"), (2, "witness"), (3, "governess")):
        s, more = do(s, t, card_move("give", card))
        events += more
    gift = of_type(events, "give")[0]
    assert gift == {"type": "give", "seat": 1, "round": 1, "to": 2, "card": "culprit",
                    "why": "sharing"}
    assert G.view_event(gift, 1, s) == gift == G.view_event(gift, 2, s)
    for viewer in (0, 3, SPECTATOR, "junk"):
        assert G.view_event(gift, viewer, s) == {"type": "give", "seat": 1, "round": 1, "to": 2,
                                                 "why": "sharing"}
    s, events = do(stage(s, seat=1, waiting=[1], hands=[["maid"], ["rumour", "toby"],
                                                         ["alibi"], ["detective"]]),
                   1, play("rumour"))
    rumour = of_type(events, "rumour")[0]
    assert rumour == {"type": "rumour", "seat": 1, "round": 1, "from": 0, "card": "maid"}
    assert "card" in G.view_event(rumour, 0, s) and "card" in G.view_event(rumour, 1, s)
    assert "card" not in G.view_event(rumour, 2, s)


def test_private_fields_of_the_panic():
    s = stage(start(), seat=3, waiting=[3])
    s, _ = do(s, 3, play("panic"))
    events = []
    for t, card in ((0, "maid"), (1, "culprit"), (2, "exchange"), (3, "little_one")):
        s, more = do(s, t, card_move("contribute", card))
        events += more
    (pool,) = of_type(events, "panic_pool")
    assert "cards" in G.view_event(pool, 3, s)
    for viewer in (0, 1, 2, SPECTATOR):
        assert G.view_event(pool, viewer, s) == {"type": "panic_pool", "seat": 3, "round": 1}
    for deal in of_type(events, "panic_deal"):
        for viewer in range(4):
            assert ("card" in G.view_event(deal, viewer, s)) == (viewer == deal["seat"])
    for event in of_type(events, "contribute"):
        assert G.view_event(event, SPECTATOR, s) == event


def test_draws_and_deals_are_their_owners():
    s = start(pile=("toby",))
    s = stage(s, hands=[["alibi"], ["accomplice", "detective"], ["culprit", "witness", "maid"],
                        ["panic"]])
    s, _ = do(s, 1, play("accomplice", 2))
    s, events = do(s, 2, card_move("discard", "maid"))
    discard, draw = events[:2]
    for viewer in VIEWERS4:
        assert G.view_event(discard, viewer, s) == discard
    assert G.view_event(draw, 2, s)["card"] == "toby"
    assert G.view_event(draw, 1, s) == {"type": "draw", "seat": 2, "round": 1}
    empty = {"type": "draw", "seat": 2, "round": 1, "card": None}
    assert G.view_event(empty, SPECTATOR, s) == empty
    # A new round's deal: each player their own cards.
    s = stage(s, seat=1, waiting=[1], hands=[["alibi"], ["detective", "toby"], ["culprit"],
                                             ["panic"]])
    s, events = do(s, 1, play("detective", 2))
    deals = of_type(events, "deal")
    assert [d["seat"] for d in deals] == [0, 1, 2, 3]
    for d in deals:
        for viewer in range(4):
            seen = G.view_event(d, viewer, s)
            assert seen == (d if viewer == d["seat"] else {"type": "deal", "seat": d["seat"],
                                                           "round": 2})
        assert G.view_event(d, MODERATOR, s) == d


def test_public_events_are_shown_whole():
    s = stage(start(), handcuffs=1)
    s, events = do(s, 1, play("toby", 2))
    s2, more = do(s, 2, play("sheriff", 0))
    for event in events + more:
        for viewer in VIEWERS4:
            seen = G.view_event(event, viewer, s2)
            assert seen == event and seen is not event


# Non-interference ----------------------------------------------------------------------------

#: §5 restated for the test, apart from the views: the private field of each event type and the
#: event's fields naming the seats (besides its own seat) that may see it.
PRIVATE_FIELDS = {"deal": ("cards", ()), "draw": ("card", ()), "little_one": ("culprit", ()),
                  "give": ("card", ("to",)), "rumour": ("card", ("from",)),
                  "panic_pool": ("cards", ()), "panic_deal": ("card", ()),
                  "witness": ("hand", ())}


def me_of(viewer: Any, n: int) -> int | None:
    return viewer if isinstance(viewer, int) and 0 <= viewer < n else None


def knowable(s, viewer: Any) -> dict[str, Any]:
    """What ``viewer`` may know of ``s``, from the raw state (not the views): two states that
    agree on it must look the same to them."""
    data = G.to_json(s)
    me = me_of(viewer, s.n)
    data["pile"] = len(s.pile)
    data["deals"] = len(s.deals)
    for t in range(s.n):
        if t != me:
            data["hands"][t] = len(s.hands[t])
            data["choices"][t] = bool(s.choices[t])
            data["culprit_seen"][t] = None
    if s.witnessed and s.seat != me:
        data["witnessed"] = "someone's"
    return data


def facts(events: list[dict], viewer: Any, n: int) -> list[dict]:
    """What ``viewer`` may learn from ``events`` (§5, restated)."""
    me = me_of(viewer, n)
    out = []
    for event in events:
        event = dict(event)
        private = PRIVATE_FIELDS.get(event["type"])
        if private is not None:
            field, others = private
            allowed = {event["seat"], *(event[name] for name in others)}
            shown = event["type"] == "draw" and event["card"] is None
            if me not in allowed and not shown:
                event.pop(field)
        out.append(event)
    return out


def deal_for(seed: int, n: int) -> tuple[list[str], list[str]]:
    rnd = random.Random(seed)
    order = list(BOX)
    rnd.shuffle(order)
    return round_cards(order, n)


def hidden_positions(deck: list[str], n: int, viewer: Any, depth: int) -> list[int]:
    """Positions (deck then pile) of the cards ``viewer`` does not see at the start, but the
    First on scene (its holder shows it at once) and the top ``depth`` cards of the pile."""
    me = me_of(viewer, n)
    hands = [i for i in range(len(deck)) if i // HAND_SIZE != me and deck[i] != "first_on_scene"]
    return hands + list(range(len(deck) + depth, 36))


def mixed(cards: list[str], positions: list[int], order: list[int]) -> list[str]:
    """``cards`` with the card at ``order[k]`` put at ``positions[k]``."""
    other = list(cards)
    for i, j in zip(positions, order, strict=True):
        other[i] = cards[j]
    return other


def twins(viewer: Any, n: int, seed: int, depth: int, timeout_rate: float,
          order: list[int] | None = None) -> int:
    """Two games whose deals differ only where ``viewer`` cannot see (the other hands and the
    pile below ``depth``, their cards in ``order``, else in a seeded order) get the same moves:
    they must look the same to ``viewer`` — views and viewed events — for as long as their
    states and the events' facts agree on what ``viewer`` may know. Returns how many moves they
    agreed for."""
    rnd = random.Random(seed)
    deck, pile = deal_for(seed, n)
    cards = deck + pile
    positions = hidden_positions(deck, n, viewer, depth)
    if order is None:
        order = rnd.sample(positions, len(positions))
    other = mixed(cards, positions, order)
    dealt = Counter(other[:len(deck)])
    if any(dealt[c] < k for c, k in FIXED[n].items()):
        # Not a deal of this table (a fixed card went to the pile): the hands' cards are mixed
        # among the hands, the pile's among the pile, in the order drawn.
        in_deck = [i for i in positions if i < len(deck)]
        in_pile = [i for i in positions if i >= len(deck)]
        other = mixed(cards, in_deck + in_pile, [j for j in order if j < len(deck)]
                      + [j for j in order if j >= len(deck)])
    a = G.setup({"players": n, "deal": [cards]}, seed)
    b = G.setup({"players": n, "deal": [other]}, seed)
    steps = 0
    while knowable(a, viewer) == knowable(b, viewer):
        assert G.view(a, viewer) == G.view(b, viewer), \
            f"{viewer!r} sees a difference they cannot know after {steps} moves"
        if G.result(a) is not None:
            break
        pending = G.pending(a)
        assert G.pending(b) == pending
        p = rnd.choice(pending)
        legal = [m for m in G.legal_moves(a, p.player) if m in G.legal_moves(b, p.player)]
        if not legal:
            break
        timeout = G.timeout_move(a, p.player)
        move = timeout if rnd.random() < timeout_rate and timeout in legal else rnd.choice(legal)
        a, events_a = G.apply(a, p.player, move)
        b, events_b = G.apply(b, p.player, move)
        if (knowable(a, viewer) == knowable(b, viewer)
                and facts(events_a, viewer, n) == facts(events_b, viewer, n)):
            assert seen_by(events_a, viewer, a) == seen_by(events_b, viewer, b), \
                f"move {steps + 1} ({move}) shows {viewer!r} something they cannot know"
        elif knowable(a, viewer) == knowable(b, viewer):
            break  # a public result told them apart (Toby's card, the Detective's answer...)
        steps += 1
    return steps


@settings(max_examples=150)
@given(n=st.integers(3, 8), data=st.data(), seed=st.integers(0, 2**32),
       depth=st.integers(0, 8), timeout_rate=st.sampled_from([0, 0.3]))
def test_what_a_viewer_cannot_know_changes_nothing_they_see(n, data, seed, depth, timeout_rate):
    viewer = data.draw(st.sampled_from([*range(n), SPECTATOR]))
    deck, _pile = deal_for(seed, n)
    positions = hidden_positions(deck, n, viewer, depth)
    twins(viewer, n, seed, depth, timeout_rate, data.draw(st.permutations(positions)))


def test_twins_play_long_enough_to_mean_something():
    steps = [twins(viewer, n, seed, 36, 0.0) for seed in range(30) for n in (3, 5, 8)
             for viewer in (0, 1, SPECTATOR)]
    assert sum(steps) / len(steps) >= 5, steps
    assert max(steps) >= 20


def test_non_interference_reaches_deep_into_games():
    """The property above is not vacuous: when the hidden difference is one card of another
    hand and the bottom of the pile, games agree on what a player may know for many moves (into
    the next rounds, when the card was never shown)."""
    total = rounds = 0
    for seed in range(24):
        n = 3 + seed % 6
        deck, pile = deal_for(seed, n)
        cards = deck + pile
        bottom = len(cards) - 1
        i = next(i for i in range(HAND_SIZE, 2 * HAND_SIZE)
                 if cards[i] not in (cards[bottom], "first_on_scene", *FIXED[n]))
        steps, reached = twins_at(0, n, seed, [i, bottom], [bottom, i])
        total += steps
        rounds += reached
    assert total >= 300 and rounds >= 10, (total, rounds)


def twins_at(viewer: Any, n: int, seed: int, positions: list[int], order: list[int]
             ) -> tuple[int, int]:
    """:func:`twins` with the given hidden exchange; ``(moves agreed, rounds ended)``."""
    deck, pile = deal_for(seed, n)
    cards = deck + pile
    other = mixed(cards, positions, order)
    a = G.setup({"players": n, "deal": [cards]}, seed)
    b = G.setup({"players": n, "deal": [other]}, seed)
    rnd = random.Random(seed)
    steps = 0
    while knowable(a, viewer) == knowable(b, viewer) and G.result(a) is None:
        assert G.view(a, viewer) == G.view(b, viewer)
        p = rnd.choice(G.pending(a))
        legal = [m for m in G.legal_moves(a, p.player) if m in G.legal_moves(b, p.player)]
        if not legal:
            break
        move = rnd.choice(legal)
        a, ea = G.apply(a, p.player, move)
        b, eb = G.apply(b, p.player, move)
        if knowable(a, viewer) == knowable(b, viewer):
            if facts(ea, viewer, n) != facts(eb, viewer, n):
                break
            assert seen_by(ea, viewer, a) == seen_by(eb, viewer, b)
        steps += 1
    return steps, a.round - 1


def test_twins_catch_a_leaked_event(monkeypatch):
    monkeypatch.setattr(G, "view_event", lambda event, viewer, state: copy.deepcopy(event))
    with pytest.raises(AssertionError, match="cannot know"):
        for seed in range(60):
            twins(0, 4, seed, 36, 0.0)


def test_twins_catch_a_leaked_view(monkeypatch):
    real = type(G).view

    def view(state, viewer):
        return {**real(G, state, viewer), "leak": [len(h) and h[-1] for h in state.hands]}

    monkeypatch.setattr(G, "view", view)
    with pytest.raises(AssertionError, match="cannot know"):
        for seed in range(60):
            twins(SPECTATOR, 4, seed, 36, 0.0)


def test_twins_catch_a_leaked_choice(monkeypatch):
    real = type(G).view

    def view(state, viewer):
        out = real(G, state, viewer)
        out["seats"] = [{**seat, "chosen": state.choices[seat["seat"]] or False}
                        for seat in out["seats"]]
        return out

    monkeypatch.setattr(G, "view", view)
    with pytest.raises(AssertionError, match="cannot know"):
        for seed in range(200):
            twins(1, 5, seed, 36, 0.0)


# Sharing --------------------------------------------------------------------------------------


def deep_mutate(value: Any) -> None:
    """Change, in place, every list and dict inside ``value`` and ``value`` itself."""
    if isinstance(value, dict):
        for item in list(value.values()):
            deep_mutate(item)
        for key in list(value):
            value[key] = "mutated"
        value["mutated"] = True
    elif isinstance(value, list):
        for item in value:
            deep_mutate(item)
        value[:] = ["mutated", *range(len(value))]


def dump(state) -> str:
    return json.dumps(G.to_json(state), sort_keys=True)


def test_nothing_returned_shares_a_mutable_object_with_the_state():
    moves = 0
    for seed in range(8):
        n = 3 + seed % 6
        for before, _player, move, after, events in random_game({"players": n}, seed, seed,
                                                                0.2):
            kept_before, kept_after = dump(before), dump(after)
            for viewer in [*range(n), SPECTATOR, MODERATOR]:
                deep_mutate(G.view(after, viewer))
                for event in events:
                    given = copy.deepcopy(event)
                    seen = G.view_event(given, viewer, after)
                    deep_mutate(seen)
                    assert given == event, "changing a viewed event changed the event"
            for returned in ([G.legal_moves(after, p) for p in range(n)],
                             [p.to_json() for p in G.pending(after)], events, move,
                             G.to_json(after)):
                deep_mutate(returned)
            for p in G.pending(after):
                deep_mutate(G.timeout_move(after, p.player))
            result = G.result(after)
            if result is not None:
                deep_mutate(result.details)
            assert dump(before) == kept_before and dump(after) == kept_after
            moves += 1
    assert moves > 300


def test_the_end_event_and_the_round_entries_do_not_share_lists():
    s = stage(start(), points=[4, 4, 3, 0], seat=2, waiting=[2],
              hands=[["alibi"], ["maid"], ["culprit"], ["panic"]])
    s, events = do(s, 2, play("culprit"))
    events[-1]["winners"].append(3)
    events[-1]["points"].append(9)
    for event in of_type(events, "round_end"):
        event["gained"].append(9)
        event["accomplices"].append(9)
    assert s.winners == [2] and G.result(s).winner_seats == (2,)
    assert s.rounds[-1]["gained"] == [0, 0, 2, 0] and s.rounds[-1]["accomplices"] == []
    assert s.points == [4, 4, 5, 0]
