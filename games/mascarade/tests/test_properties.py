"""Property tests of the Mascarade engine: one hypothesis example plays one whole game.

Hypothesis draws the options (4–12 players; scenario A, B or a valid custom selection built from
the rules' §3 constraints; both challenge modes; ``log_masks`` on and off; sometimes a staff
``deal`` and ``first_seat``), the set-up seed and the seed of the random play. The game is then
played to its end by drawing a pending player and one of their legal moves (and, sometimes, the
§10 timeout move instead), and after every move the test checks:

- coins: no seat below 0; the events explain every coin (a ledger fed only by ``coins``,
  ``fines`` and ``sorceress`` events matches the state), so total coins = starting coins + what
  came out of the Bank − what went back to it;
- cards: they are a permutation of the masks in play;
- determinism and serialisation: the state survives ``to_json``/``from_json`` (also through
  ``json.dumps``/``loads``); applying the same move to the rebuilt state gives the same state and
  events; ``apply`` leaves its input untouched; at the end, replaying the move list from the seed
  goes through the very same states and events;
- no leak (rules §9): every mask identity in every player's and a spectator's projection of the
  state and of the move's events is one that viewer was shown — the starting deal, their own look,
  their own Spy look, a public reveal, a Princess reveal of another seat — as derived here from the
  moderator-level events, and is true; no other player's swap decision, no Gambler number before
  the guess, no simultaneous answer while the window is open, no seed or generator state; with
  ``log_masks`` off, no revealed mask, revealed holder's power or coin movement's reason in an
  event more than one turn old (R9);
- rulings on players: the players made to reveal during the previous turn (not their old seats)
  may not announce, and ``revealed_last_turn`` names their seats now (R5); wrong claimants pay
  their fines from the seats they occupy when the fines are paid (R8).

A game that has not ended after :data:`MOVE_CAP` moves is a failure. Every failure names the
options, the seed, the play seed and the moves so far, which replay it exactly.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from games.core.catalog import get_game
from games.engine import MODERATOR, SPECTATOR
from games.mascarade.rules import CENTER_CARDS, MASKS
from tests.plugin import game_stats

GAME = get_game("mascarade")
#: Printed at the end of the run (tests.plugin).
GAME_STATS = game_stats("mascarade")
MOVE_CAP = 2000
START_COINS = 6  # rules §1
#: Any int this large in a projection can only be the seed or the generator state.
BIG = 10**6

#: Where a mask id may appear in an event's projection, by event type, besides the fields
#: checked against what the viewer was shown: public statements (announcements, answers to the
#: Guru, the power being applied, the power behind a coin movement). With ``log_masks`` off,
#: :data:`FORGOTTEN_FIELDS` must be gone from events more than one turn old (R9).
PUBLIC_MASK_FIELDS = {
    "announce": {"mask"},
    "challenge_closed": {"mask"},
    "power": {"mask"},
    "coins": {"why"},
    "guru_answer": {"mask"},
    "reveal": {"cause"},  # "challenge" or "guru"
    "end": {"reason"},  # "cheater"
}
#: R9, ``log_masks`` off: what of an event more than one turn old no viewer sees any more — the
#: mask of a reveal (a challenge's, the Guru's, the Princess's), the power of a revealed holder
#: (``power`` events with ``revealed``), the reason of a coin movement. Fines name no reason.
FORGOTTEN_FIELDS = {
    "reveal": "mask",
    "princess": "mask",
    "power": "mask",  # when the holder was revealed; an unrevealed announcer's power stays
    "coins": "why",
}
#: Event fields that carry a card identity, and who may see them.
CARD_FIELDS = {
    "look": {"mask"},
    "spy": {"mask", "target_mask"},
    "reveal": {"mask"},
    "princess": {"mask"},
}
#: Moves whose events carry the actor's secret decision (``swapped``).
SWAP_EVENTS = ("exchange", "spy_swap", "fool")


# Options -------------------------------------------------------------------------------------


@st.composite
def custom_masks(draw, players: int, center: int) -> list[str]:
    """A custom selection valid by rules §3, built from the constraints, not from the engine."""
    total = players + center
    chosen = ["judge"]
    if MASKS["peasant"].min_players <= players and draw(st.booleans()):
        chosen += ["peasant", "peasant"]
    eligible = [m for m, spec in MASKS.items()
                if spec.min_players <= players and m not in ("judge", "peasant")]
    stars = [m for m in eligible if MASKS[m].star]
    plain = [m for m in eligible if not MASKS[m].star]
    need = total - len(chosen)
    stars_needed = -(-total // 3) - sum(MASKS[m].star for m in chosen)
    low = max(stars_needed, need - len(plain), 0)
    high = min(need, len(stars))
    assert low <= high, f"no valid custom scenario for {players}+{center}"
    k = draw(st.integers(low, high))
    picked = draw(st.permutations(stars))[:k] + draw(st.permutations(plain))[:need - k]
    return draw(st.permutations(chosen + picked))


@st.composite
def game_options(draw) -> dict[str, Any]:
    players = draw(st.integers(4, 12))
    scenario = draw(st.sampled_from(["A", "B", "custom"]))
    options: dict[str, Any] = {
        "players": players,
        "scenario": scenario,
        "challenge_mode": draw(st.sampled_from(["sequential", "simultaneous"])),
        "log_masks": draw(st.booleans()),
    }
    center = CENTER_CARDS[players]
    if scenario == "custom":
        if players >= 6:
            center = draw(st.integers(0, 2))
            if center != CENTER_CARDS[players] or draw(st.booleans()):
                options["center"] = center
        options["masks"] = draw(custom_masks(players, center))
    if draw(st.integers(0, 9)) == 0:
        options["first_seat"] = draw(st.integers(0, players - 1))
    if draw(st.integers(0, 9)) == 0:
        masks = options.get("masks") or list(GAME.normalize_options(options)["masks"])
        options["deal"] = draw(st.permutations(masks))
    return options


# Helpers ------------------------------------------------------------------------------------


def dump(state: Any) -> dict[str, Any]:
    return GAME.to_json(state)


def moderator(state: Any) -> dict[str, Any]:
    return GAME.view(state, MODERATOR)["moderator"]


def cards_of(state: Any) -> dict[Any, str]:
    return {c["about"]: c["mask"] for c in moderator(state)["cards"]}


#: What may not remain in a projection once its vetted parts are removed: a mask id as a JSON
#: string, a number too large for anything but a seed or a generator state, a key for a secret.
_MASK_IDS = "|".join(sorted(MASKS, key=len, reverse=True))
LEAK = re.compile(rf'(?P<mask>"(?:{_MASK_IDS})")|(?P<number>(?<![\w.])-?\d{{7,}})'
                  r'|(?P<key>"(?:rng|seed|hidden|cards|swapped|swap|moderator)":)')


def leaks(rest: Any) -> list[str]:
    """The forbidden things in ``rest`` (a projection with its vetted parts removed)."""
    return [f"{m.lastgroup} {m.group()}" for m in LEAK.finditer(json.dumps(rest))]


class GameCheck:
    """One game's independent bookkeeping: coins, seats, and what each viewer was shown."""

    def __init__(self, options: dict[str, Any], seed: int, play_seed: int,
                 timeout_rate: float) -> None:
        self.raw_options = options
        self.options = GAME.normalize_options(options)
        assert GAME.normalize_options(self.options) == self.options
        self.seed = seed
        self.play_seed = play_seed
        self.timeout_rate = timeout_rate
        self.n = n = self.options["players"]
        self.masks = list(self.options["masks"])
        self.viewers: list[Any] = [*range(n), SPECTATOR]
        self.moves: list[tuple[int, dict[str, Any]]] = []
        self.events: list[list[dict[str, Any]]] = []
        self.states: list[dict[str, Any]] = []
        self.coins = [START_COINS] * n
        self.justice = 0
        self.bank_out = 0
        self.bank_in = 0
        self.at = list(range(n))  # seat -> player, followed from seat_change events (R2)
        # What each viewer was shown: (seq, slot, mask); private sights apart for "knowledge".
        self.shown: dict[Any, set[tuple[int, Any, str]]] = {v: set() for v in self.viewers}
        self.private: dict[int, set[tuple[int, Any, str, str]]] = {p: set() for p in range(n)}
        self.deal: list[dict[str, Any]] = []
        # Players made to reveal their card during each turn (R5), from the events.
        self.revealed: dict[int, set[int]] = {}
        # The mask announced in the last challenge and the players revealed not holding it (R8).
        self.announced = ""
        self.wrong: list[int] = []
        self.state: Any = None

    def where(self) -> str:
        return (f"options={self.raw_options!r} seed={self.seed} play_seed={self.play_seed} "
                f"timeout_rate={self.timeout_rate} after {len(self.moves)} moves: "
                f"{self.moves!r}")

    # The game ---------------------------------------------------------------------------

    def play(self) -> None:
        state = self.state = GAME.setup(self.options, self.seed)
        rnd = random.Random(self.play_seed)
        cards = cards_of(state)
        self.deal = [{"about": about, "mask": mask} for about, mask in cards.items()]
        for v in self.viewers:
            self.shown[v] |= {(0, about, mask) for about, mask in cards.items()}
        self.check_state(state, [])
        self.states.append(dump(state))
        while GAME.result(state) is None:
            assert len(self.moves) < MOVE_CAP, f"the game did not end within {MOVE_CAP} moves"
            pending = GAME.pending(state)
            assert pending, "a game that is not over must await somebody"
            player = rnd.choice(pending).player
            legal = GAME.legal_moves(state, player)
            assert legal, f"player {player} is pending but has no legal move"
            if rnd.random() < self.timeout_rate:
                move = GAME.timeout_move(state, player)
                assert move in legal, f"timeout move {move} is not among the legal moves"
            else:
                move = rnd.choice(legal)
            before = dump(state)
            new, events = GAME.apply(state, player, move)
            assert dump(state) == before, "apply changed the state it was given"
            twin = GAME.from_json(json.loads(json.dumps(before)))
            assert dump(twin) == before
            twin_new, twin_events = GAME.apply(twin, player, move)
            assert dump(twin_new) == dump(new) and twin_events == events, \
                "the same move on the same (rebuilt) state gave a different outcome"
            self.moves.append((player, move))
            self.events.append(events)
            state = self.state = new
            self.follow(state, player, events)
            self.check_state(state, events)
            self.states.append(dump(state))
        assert GAME.pending(state) == [], "a finished game still awaits somebody"
        assert all(GAME.legal_moves(state, p) == [] for p in range(self.n))
        self.check_replay()
        self.check_history(state)

    def follow(self, state: Any, actor: int, events: list[dict[str, Any]]) -> None:
        """Feed the ledger and the shown facts from the moderator-level events of one move."""
        seq = len(self.moves)
        cards = cards_of(state)
        for e in events:
            etype = e["type"]
            if etype in ("look", "spy", "exchange", "spy_swap", "fool", "gambler"):
                assert e.get("player") == actor, f"{etype} event not tagged with its actor"
            if etype == "coins":
                amount, src, dst = e["amount"], e["from"], e["to"]
                assert isinstance(amount, int) and amount > 0, f"odd coin movement {e}"
                for end, sign in ((src, -1), (dst, 1)):
                    if end == "bank":
                        if sign < 0:
                            self.bank_out += amount
                        else:
                            self.bank_in += amount
                    elif end == "justice":
                        self.justice += sign * amount
                    else:
                        self.coins[end] += sign * amount
            elif etype == "fines":
                # R8: the players who claimed wrongly pay, from the seats they occupy now.
                assert e["players"] == self.wrong, f"fined {e['players']}, wrong {self.wrong}"
                assert e["seats"] == [self.at.index(p) for p in self.wrong], \
                    f"fines paid by seats {e['seats']}, the wrong players {self.wrong} sit at " \
                    f"{[self.at.index(p) for p in self.wrong]}"
                for seat in e["seats"]:
                    self.coins[seat] -= e["amount"]
                self.justice += e["amount"] * len(e["seats"])
                assert e["justice"] == self.justice
            elif etype == "sorceress" and e["target"] is not None:
                a, b = e["seat"], e["target"]
                self.coins[a], self.coins[b] = self.coins[b], self.coins[a]
                assert e["coins"] == [self.coins[a], self.coins[b]]
            elif etype == "seat_change":
                a, b = e["seats"]
                self.at[a], self.at[b] = self.at[b], self.at[a]
                assert e["players"] == [self.at[a], self.at[b]]
            elif etype == "look":
                assert e["mask"] == cards[e["seat"]], "a look showed a wrong card"
                self.shown[actor].add((seq, e["seat"], e["mask"]))
                self.private[actor].add((seq, e["seat"], e["mask"], "look"))
            elif etype == "spy":
                for slot, mask in ((e["seat"], e["mask"]), (e["target"], e["target_mask"])):
                    assert mask == cards[slot], "the Spy saw a wrong card"
                    self.shown[actor].add((seq, slot, mask))
                    self.private[actor].add((seq, slot, mask, "spy"))
            elif etype == "challenge_closed":
                self.announced, self.wrong = e["mask"], []
            elif etype == "reveal":
                assert e["mask"] == cards[e["seat"]], "a reveal showed a wrong card"
                assert e["player"] == self.at[e["seat"]]
                if e["cause"] == "challenge" and e["mask"] != self.announced:
                    self.wrong.append(e["player"])
                self.revealed.setdefault(e["turn"], set()).add(e["player"])
                for v in self.viewers:
                    self.shown[v].add((seq, e["seat"], e["mask"]))
            elif etype == "princess":
                target = e["target"]
                assert e["mask"] == cards[target], "the Princess showed a wrong card"
                assert e["target_player"] == self.at[target]
                self.revealed.setdefault(e["turn"], set()).add(e["target_player"])
                # Every player but the target; not spectators: only the "everyone sees"
                # column of §9 is theirs.
                for v in range(self.n):
                    if v != self.at[target]:
                        self.shown[v].add((seq, target, e["mask"]))
                        self.private[v].add((seq, target, e["mask"], "princess"))

    # Checks -----------------------------------------------------------------------------

    def check_state(self, state: Any, events: list[dict[str, Any]]) -> None:
        data = dump(state)
        assert dump(GAME.from_json(data)) == data, "to_json/from_json round trip differs"
        text = json.dumps(data)
        assert dump(GAME.from_json(json.loads(text))) == data, "JSON text round trip differs"
        mod = GAME.view(state, MODERATOR)
        json.dumps(mod)
        coins = [s["coins"] for s in mod["seats"]]
        assert min(coins) >= 0, f"a seat below 0 coins: {coins}"
        assert coins == self.coins, f"coins {coins} but the events explain {self.coins}"
        assert mod["justice"] == self.justice, "the Justice board differs from the events"
        total = sum(coins) + mod["justice"]
        assert total == START_COINS * self.n + self.bank_out - self.bank_in, \
            "total coins != starting coins + Bank out - Bank in"
        assert Counter(c["mask"] for c in mod["moderator"]["cards"]) == Counter(self.masks), \
            "the cards are not a permutation of the masks in play"
        assert [s["player"] for s in mod["seats"]] == self.at, "seats and players disagree"
        assert (GAME.result(state) is None) == (mod["phase"] != "over")
        pending = {p.player for p in GAME.pending(state)}
        for p in range(self.n):
            if p not in pending:
                assert GAME.legal_moves(state, p) == [], f"player {p} not pending has moves"
        # R5: the *players* made to reveal during the previous turn may not announce, wherever
        # they sit now; the view names their current seats.
        barred = self.revealed.get(mod["turn"] - 1, set())
        assert mod["revealed_last_turn"] == sorted(self.at.index(p) for p in barred), \
            f"revealed_last_turn {mod['revealed_last_turn']} but players {barred} were revealed"
        if mod["phase"] == "turn":
            player = self.at[mod["turn_seat"]]
            kinds = {m["type"] for m in GAME.legal_moves(state, player)}
            assert ("announce" in kinds) == (player not in barred), \
                f"player {player} may announce: {'announce' in kinds}, barred (R5): {barred}"
        seq = len(self.moves)
        for viewer in self.viewers:
            self.check_view(state, viewer)
            for event in events:
                self.check_event(event, seq, viewer, mod)

    def check_view(self, state: Any, viewer: Any) -> None:
        view = GAME.view(state, viewer)
        assert view["masks_in_play"] == self.masks
        assert view["starting_deal"] == self.deal, "the starting deal (R4) is not as dealt"
        you = view["you"]
        # Vet the parts that may name masks, then scan everything else.
        rest = {k: v for k, v in view.items()
                if k not in ("masks_in_play", "starting_deal", "you")}
        # Decision kinds are named after powers ("spy", "guru_answer", ...).
        rest["awaiting"] = [{k: v for k, v in a.items() if k != "decision"}
                            for a in view["awaiting"]]
        for part in ("announcement", "power"):  # the announced mask is public
            if view[part] is not None:
                rest[part] = {k: v for k, v in view[part].items()
                              if k not in ("mask", "decision")}
        if you is not None:
            rest["you"] = {k: v for k, v in you.items() if k != "knowledge"}
            rest["knowledge"] = [{k: v for k, v in e.items() if k not in ("mask", "how")}
                                 for e in you["knowledge"]]
        found = leaks(rest)
        assert not found, f"{viewer!r} sees {found} in {view}"
        if viewer == SPECTATOR:
            assert you is None
            return
        assert you["player"] == viewer
        assert you["seat"] == self.at.index(viewer)
        sights = {(k["seq"], k["about"], k["mask"], k["how"]) for k in you["knowledge"]}
        leaked = {s for s in sights if s[:3] not in self.shown[viewer]}
        assert not leaked, f"player {viewer} knows what they were never shown: {leaked}"
        assert sights == self.private[viewer], \
            f"player {viewer}'s knowledge {sights} is not what they saw {self.private[viewer]}"
        announcement = view["announcement"]
        if announcement is not None and self.options["challenge_mode"] == "simultaneous" \
                and view["phase"] == "challenge":
            mine = {you["seat"]}
            assert set(announcement["claims"]) <= mine and set(announcement["passes"]) <= mine, \
                f"player {viewer} sees others' answers while the window is open"

    def check_event(self, event: dict[str, Any], seq: int, viewer: Any,
                    mod: dict[str, Any]) -> None:
        """``event`` (of move ``seq``) as ``viewer`` sees it now; ``mod``: the moderator view."""
        seen = GAME.view_event(event, viewer, self.state)
        if seen is None:
            return
        etype = seen["type"]
        mine = viewer == event.get("player")
        public = PUBLIC_MASK_FIELDS.get(etype, set())
        cards = CARD_FIELDS.get(etype, set())
        # The event type is named after a power ("spy", "guru", ...); vetted fields apart.
        rest = {k: v for k, v in seen.items()
                if k != "type" and k not in public and k not in cards}
        if etype in SWAP_EVENTS and mine:
            rest.pop("swapped", None)
        if (etype == "gambler" and mine) or etype == "gambler_guess":
            rest.pop("hidden", None)  # the number is public once the guess is made
        found = leaks(rest)
        assert not found, f"{viewer!r} sees {found} in {seen} (event of move {seq})"
        window_open = (self.options["challenge_mode"] == "simultaneous"
                       and mod["phase"] == "challenge" and mod["turn"] == event["turn"])
        if etype in ("claim", "pass") and not mine and window_open:
            raise AssertionError(f"{viewer!r} sees an answer while the window is open: {seen}")
        for key in public:
            if key in seen:
                assert seen[key] == event[key], f"the projection changed {key}: {seen}"
        if etype in FORGOTTEN_FIELDS and viewer != MODERATOR \
                and (etype != "power" or event["revealed"]):
            key = FORGOTTEN_FIELDS[etype]
            old = mod["turn"] - event["turn"] > 1
            if not self.options["log_masks"] and old:
                assert key not in seen, \
                    f"{viewer!r} still sees {key} of a turn-{event['turn']} event in turn " \
                    f"{mod['turn']} with log_masks off (R9): {seen}"
            elif etype in ("power", "coins"):
                assert seen[key] == event[key], f"{viewer!r} lost {key} too early: {seen}"
        if etype == "look" and "mask" in seen:
            assert mine, f"{viewer!r} sees another's look: {seen}"
        if etype == "spy" and ("mask" in seen or "target_mask" in seen):
            assert mine, f"{viewer!r} sees the Spy's cards: {seen}"
        for key in cards:
            if key in seen:
                slot = seen["target"] if key == "target_mask" or etype == "princess" \
                    else seen["seat"]
                assert (seq, slot, seen[key]) in self.shown[viewer], \
                    f"{viewer!r} sees a card they were not shown: {seen} (move {seq})"

    def check_replay(self) -> None:
        """Replaying the move list from the seed goes through the same states and events."""
        state = GAME.setup(self.options, self.seed)
        assert dump(state) == self.states[0], "set-up is not deterministic"
        for i, (player, move) in enumerate(self.moves):
            state, events = GAME.apply(state, player, move)
            assert events == self.events[i], f"replay: move {i + 1} gave other events"
            assert dump(state) == self.states[i + 1], f"replay: move {i + 1} gave another state"

    def check_history(self, state: Any) -> None:
        """The whole history, viewed at the end (memory rules apply), leaks nothing either."""
        mod = GAME.view(state, MODERATOR)
        for seq, events in enumerate(self.events, start=1):
            for event in events:
                for viewer in self.viewers:
                    self.check_event(event, seq, viewer, mod)


def run_game(options: dict[str, Any], seed: int, play_seed: int, timeout_rate: float) -> int:
    check = GameCheck(options, seed, play_seed, timeout_rate)
    started = time.perf_counter()
    try:
        check.play()
    except Exception as exc:
        GAME_STATS["failed"] += 1
        raise AssertionError(f"{exc}\n  reproduce with {check.where()}") from exc
    finally:
        GAME_STATS["games"] += 1
        GAME_STATS["moves"] += len(check.moves)
        GAME_STATS["seconds"] += time.perf_counter() - started
    return len(check.moves)


@given(
    options=game_options(),
    seed=st.integers(2**32, 2**63),
    play_seed=st.integers(0, 2**32),
    timeout_rate=st.sampled_from([0.0, 0.0, 0.1, 0.5]),
)
def test_random_games_keep_every_invariant(options, seed, play_seed, timeout_rate):
    run_game(options, seed, play_seed, timeout_rate)


FIRST_FOUND = settings(max_examples=5000, database=None, phases=[Phase.generate])


@pytest.mark.parametrize("mask", sorted(MASKS))
def test_option_strategy_reaches_every_mask(mask):
    """The options strategy can deal every mask, so the property test plays every power."""
    found = find(game_options(), lambda o: mask in GAME.normalize_options(o)["masks"],
                 settings=FIRST_FOUND)
    assert mask in GAME.normalize_options(found)["masks"]


@pytest.mark.parametrize("players", range(4, 13))
@settings(max_examples=25, database=None)
@given(data=st.data())
def test_custom_strategy_is_valid_for_every_size(players, data):
    """Every custom selection the strategy draws is accepted (it follows §3 by construction)."""
    center = CENTER_CARDS[players] if players < 6 else data.draw(st.integers(0, 2))
    masks = data.draw(custom_masks(players, center))
    options = {"players": players, "scenario": "custom", "masks": masks, "center": center}
    assert GAME.normalize_options(options)["masks"] == masks


# The checker itself must catch what it looks for ------------------------------------------

SAMPLE = ({"players": 5, "scenario": "B", "challenge_mode": "simultaneous"}, 2**40 + 7, 3, 0.1)


def test_sample_game_passes():
    assert run_game(*SAMPLE) > 0


def test_checker_catches_a_leaked_event(monkeypatch):
    monkeypatch.setattr(GAME, "view_event", lambda event, viewer, state: dict(event))
    with pytest.raises(AssertionError, match="sees"):
        GameCheck(*SAMPLE).play()


def test_checker_catches_a_leaked_card_in_a_view(monkeypatch):
    real_view = type(GAME).view

    def view(state, viewer):
        out = real_view(GAME, state, viewer)
        cards = real_view(GAME, state, MODERATOR)["moderator"]["cards"]
        out["extra"] = {"mask": cards[0]["mask"]}
        return out

    monkeypatch.setattr(GAME, "view", view)
    with pytest.raises(AssertionError, match="sees"):
        GameCheck(*SAMPLE).play()


def test_checker_catches_a_mask_remembered_past_the_previous_turn(monkeypatch):
    real_view_event = type(GAME).view_event

    def view_event(event, viewer, state):
        out = real_view_event(GAME, event, viewer, state)
        if out is not None and event["type"] in ("power", "coins"):
            out = {**out, "mask": event.get("mask"), "why": event.get("why")}
        return out

    monkeypatch.setattr(GAME, "view_event", view_event)
    options, seed, _play_seed, timeout_rate = SAMPLE
    # Play seed 1: a game of 23 turns, with powers and coin movements well before its end.
    with pytest.raises(AssertionError, match="with log_masks off"):
        GameCheck({**options, "log_masks": False}, seed, 1, timeout_rate).play()


def test_checker_catches_unexplained_coins(monkeypatch):
    real_apply = type(GAME).apply

    def apply(state, player, move):
        new, events = real_apply(GAME, state, player, move)
        return new, [e for e in events if e["type"] != "coins"]

    monkeypatch.setattr(GAME, "apply", apply)
    with pytest.raises(AssertionError, match="the events explain"):
        GameCheck(*SAMPLE).play()


def test_checker_catches_a_game_that_does_not_end(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "MOVE_CAP", 10)
    with pytest.raises(AssertionError, match="did not end within 10 moves"):
        GameCheck(*SAMPLE).play()
