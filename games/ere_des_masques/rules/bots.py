"""L'Ère des Masques's heuristic bot (kind ``"heuristic"``).

The bot follows :class:`games.engine.bots.Bot`: it decides from its player's projection
(``GAME.view(state, player)``), the legal moves and the player's own view of the history
(``view_event`` outputs, oldest first). It never sees the state, keeps no memory between calls
(it rebuilds what it knows every time) and draws every random choice from the ``rng`` it is
given, so a seeded rng reproduces its choice.

What it knows
-------------
- **Unseen cards**: the 40 cards minus its hand, both zones, the discard pile, a revealed played
  card, its own face-down card and its own Recruiter draw. The opponent's hand, the pile and the
  opponent's face-down card are drawn from these.
- **Its last Spy sighting** (its own ``spy`` event, which carries the hand it saw), followed
  through the later events: the opponent's draws and keeps add unknown cards; their revealed
  plays and their discards from hand take the card out of the known part when it is there.
- **The opponent's habits**: how often they counter, how often their counters are right, and
  how often they name one of the bot's winning kinds when it has some (Laplace-smoothed, from
  ``let_pass``, ``counter``, ``reveal`` and ``place`` events; the bot's zone is followed back
  through the history).

How it decides
--------------
Everything is priced on one scale. A zone's *potential* grows as it nears a victory (the nearer
of four of a kind and five kinds counts most) and is :data:`WIN` once it wins; a card in hand is
worth about 1, less in a large hand. A power is worth what it brings: cards for the Noble, the Spy
and the Recruiter (plus the choice and the sight), a card of the opponent's for the Brute, the
drop in the opponent's potential for the Assassin.

- *Turn*: play the card whose placement and power are worth most, discounted by the chance of a
  right counter, or draw when no play is worth two cards. A card that wins is played — except,
  now and then, against an opponent seen to name the bot's winning kinds whenever it threatens:
  then it plays another card (their wrong counter costs them a card; once their hand is empty
  they cannot counter at all). The bot also prizes zones with several winning kinds, since a
  counter names only one.
- *Respond*: estimate the chance of each kind for the face-down card (from the unseen cards, or
  from the Spy sighting: the card must come from the hand it saw plus what was drawn since) and
  counter the kind whose expected gain — the opponent's placement and power denied, and the power
  of the card it then discards — beats the card a counter always costs.
- *Discard*: after a right counter, the card whose power helps most for what it is worth in hand;
  after a wrong one, the card worth least in hand.
- *Keep* the card worth most in hand (a card that would win first); *assassinate* the card whose
  loss sets the opponent's zone furthest back.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from .cards import COPIES, KINDS, SAME_KIND_TO_WIN

Move = dict[str, Any]

#: The potential of a winning zone.
WIN = 100.0
#: What the sight of the opponent's hand is worth, in cards.
SIGHT = 0.3
#: What choosing among the Recruiter's cards is worth, in cards.
CHOICE = 0.8
#: Priors of the opponent's habits: (counters, answers), (right, counters).
COUNTER_PRIOR = (1.0, 3.0)
RIGHT_PRIOR = (1.0, 4.0)
#: Prior of how often the opponent names the winning kind when the bot threatens to win.
THREAT_PRIOR = (1.0, 3.0)
#: The potential of each extra kind that would win.
THREATS = 0.8
#: The least share of its winning plays the bot makes against an opponent that counters them.
BOLD = 0.15


def potential(zone: Counter[str]) -> float:
    """How near ``zone`` is to a victory: :data:`WIN` when it wins, else minus a distance, and a
    bonus for each way to win with one more card beyond the first (a counter names one kind)."""
    d4 = max(0, SAME_KIND_TO_WIN - max(zone.values(), default=0))
    d5 = sum(1 for kind in KINDS if not zone[kind])
    if min(d4, d5) == 0:
        return WIN
    value = -(2.0 * min(d4, d5) + 0.5 * max(d4, d5))
    if min(d4, d5) == 1:
        value += THREATS * (len(winning(zone)) - 1)
    return value


def winning(zone: Counter[str]) -> list[str]:
    """The kinds that would make ``zone`` win if placed."""
    out = []
    for kind in KINDS:
        if zone[kind] + 1 >= SAME_KIND_TO_WIN or (not zone[kind] and all(
                zone[k] for k in KINDS if k != kind)):
            out.append(kind)
    return out


def added(zone: Counter[str], kind: str) -> Counter[str]:
    out = Counter(zone)
    out[kind] += 1
    return out


def removed(zone: Counter[str], kind: str) -> Counter[str]:
    out = Counter(zone)
    out[kind] -= 1
    return +out


def card_worth(hand_size: int) -> float:
    """What one more card in a hand of ``hand_size`` is worth."""
    if hand_size < 4:
        return 1.0
    if hand_size < 8:
        return 0.7
    return 0.4


class Table:
    """What the bot's player knows, rebuilt from the projection and the viewed history."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        you = view["you"]
        self.me: int = you["seat"]
        self.opp = 1 - self.me
        seats = {s["seat"]: s for s in view["seats"]}
        self.hand: Counter[str] = Counter(you["hand"])
        self.zone: Counter[str] = Counter(seats[self.me]["zone_cards"])
        self.opp_zone: Counter[str] = Counter(seats[self.opp]["zone_cards"])
        self.opp_hand_size: int = seats[self.opp]["hand_size"]
        self.available: int = view["draw_pile"] + view["discard_size"]
        self.played: dict[str, Any] | None = view["played"]
        self.recruited: list[str] = list(view.get("recruited") or [])
        unseen = Counter(dict.fromkeys(KINDS, COPIES))
        unseen.subtract(self.hand)
        unseen.subtract(self.zone)
        unseen.subtract(self.opp_zone)
        unseen.subtract(view["discard"])
        unseen.subtract(self.recruited)
        if self.played is not None and self.played.get("card"):
            unseen[self.played["card"]] -= 1
        self.unseen: Counter[str] = +unseen
        self.known: Counter[str] | None = None  # the known part of the opponent's hand
        self.unknown = 0  # the rest of it
        self.counters = COUNTER_PRIOR[0]
        self.answers = COUNTER_PRIOR[1]
        self.right = RIGHT_PRIOR[0]
        self.tried = RIGHT_PRIOR[1]
        self.blocked = THREAT_PRIOR[0]
        self.threats = THREAT_PRIOR[1]
        self._read(history)
        self._read_threats(history)

    def _read(self, history: list[dict[str, Any]]) -> None:
        opp = self.opp
        last = None
        for i, event in enumerate(history):
            if event.get("type") == "spy" and event.get("seat") == self.me and "hand" in event:
                last = i
        for i, event in enumerate(history):
            if event.get("seat") != opp:
                continue
            etype = event.get("type")
            if etype == "let_pass":
                self.answers += 1
            elif etype == "counter":
                self.answers += 1
                self.counters += 1
                # The reveal of the countered card follows the counter.
                reveal = next((e for e in history[i + 1:i + 3] if e.get("type") == "reveal"),
                              None)
                if reveal is not None and "right" in reveal:
                    self.tried += 1
                    self.right += bool(reveal["right"])
        if last is None:
            return
        known = Counter(history[last]["hand"])
        unknown = 0
        for event in history[last + 1:]:
            etype = event.get("type")
            if event.get("seat") != opp:
                continue
            if etype == "draw":
                unknown += event.get("count", 0)
            elif etype == "keep":
                unknown += 1
            elif etype == "reveal" or (etype == "discard" and event.get("from") == "hand"):
                card = event.get("card")
                if known[card] > 0:
                    known[card] -= 1
                else:
                    unknown = max(0, unknown - 1)
        known = +known
        size = self.opp_hand_size
        if self.played is not None and self.played["seat"] == opp and not self.played["revealed"]:
            size += 1  # the face-down card came from this hand
        if sum(known.values()) > size:
            return  # the tracking went wrong: forget the sighting
        self.known, self.unknown = known, size - sum(known.values())

    def _read_threats(self, history: list[dict[str, Any]]) -> None:
        """How often the opponent named one of the bot's winning kinds when it had some."""
        me = self.me
        zone = Counter(self.zone)  # rebuilt backwards to the set-up, then followed forwards
        for event in history:
            if event.get("seat") != me:
                continue
            if event.get("type") == "place":
                zone[event["card"]] -= 1
            elif event.get("type") == "discard" and event.get("from") == "zone":
                zone[event["card"]] += 1
        zone = +zone
        threat: list[str] = []
        for event in history:
            etype = event.get("type")
            seat = event.get("seat")
            if etype == "play" and seat == me:
                threat = winning(zone)
            elif etype in ("let_pass", "counter") and seat == self.opp and threat:
                self.threats += 1
                self.blocked += etype == "counter" and event.get("kind") in threat
                threat = []
            elif etype == "place" and seat == me:
                zone[event["card"]] += 1
            elif etype == "discard" and seat == me and event.get("from") == "zone":
                zone[event["card"]] -= 1

    def blocked_rate(self) -> float:
        return self.blocked / self.threats

    # Prices ---------------------------------------------------------------------------------

    def counter_rate(self) -> float:
        return self.counters / self.answers

    def right_rate(self) -> float:
        return self.right / self.tried

    def place_value(self, zone: Counter[str], kind: str) -> float:
        return potential(added(zone, kind)) - potential(zone)

    def assassin_damage(self, zone: Counter[str]) -> float:
        """How far the best Assassin sets ``zone`` back."""
        if not zone:
            return 0.0
        now = potential(zone)
        return max(now - potential(removed(zone, kind)) for kind in zone)

    def power_for_me(self, kind: str) -> float:
        """What ``kind``'s power is worth when it resolves for the bot."""
        hand = sum(self.hand.values())
        cards = min(self.available, {"noble": 2, "spy": 1, "recruiter": 1}.get(kind, 0))
        value = cards * card_worth(hand)
        if kind == "spy":
            value += SIGHT
        elif kind == "recruiter" and self.available:
            value += CHOICE
        elif kind == "brute" and self.opp_hand_size:
            value += 1.0 + (0.5 if self.opp_hand_size <= 2 else 0.0)
        elif kind == "assassin":
            value += self.assassin_damage(self.opp_zone)
        return value

    def power_for_opp(self, kind: str) -> float:
        """What ``kind``'s power is worth to the opponent (their choices guessed)."""
        if kind == "noble":
            return 2.0 * min(1, self.available)
        if kind in ("spy", "recruiter"):
            return 1.3 * min(1, self.available)
        if kind == "brute":
            return 1.2 if self.hand else 0.0
        return self.assassin_damage(self.zone) + 0.3 if self.zone else 0.0

    def keep_value(self, kind: str) -> float:
        """What ``kind`` is worth in hand: a card, and a share of what placing it would bring."""
        gain = self.place_value(self.zone, kind)
        if gain >= WIN / 2:
            return 20.0
        return card_worth(sum(self.hand.values()) - 1) + 0.5 * max(0.0, gain)

    def face_down(self) -> dict[str, float]:
        """The chance of each kind for the opponent's face-down card."""
        total = sum(self.unseen.values())
        if self.known is not None and sum(self.known.values()) + self.unknown > 0:
            rest = +(self.unseen - self.known)
            rest_total = sum(rest.values())
            size = sum(self.known.values()) + self.unknown
            return {k: (self.known[k] + (self.unknown * rest[k] / rest_total if rest_total
                                         else 0.0)) / size for k in KINDS}
        if total == 0:
            return {k: 1 / len(KINDS) for k in KINDS}
        return {k: self.unseen[k] / total for k in KINDS}


# Decisions --------------------------------------------------------------------------------


def _jitter(rng: random.Random) -> float:
    return rng.random() * 1e-6


def _turn(t: Table, moves: list[Move], rng: random.Random) -> Move:
    hand = sum(t.hand.values())
    r = t.counter_rate() * t.right_rate() if t.opp_hand_size else 0.0
    threat = [m for m in moves if m["type"] == "play" and m["card"] in winning(t.zone)]
    if threat and t.opp_hand_size:
        # An opponent that names the winning kind: bluff with another card now and then (each
        # wrong counter costs them a card; with an empty hand they cannot counter at all).
        blocked = t.blocked_rate()
        if blocked > 0.5 and rng.random() > max(BOLD, 1 - blocked):
            moves = [m for m in moves if m not in threat] or moves
    best, best_value = moves[0], -1e9
    for move in moves:
        if move["type"] == "draw":
            got = min(2, t.available)
            value = got * card_worth(hand + 1) - (0.5 if got == 0 else 0.0)
        else:
            kind = move["card"]
            place = t.place_value(t.zone, kind)
            if place >= WIN / 2:
                value = WIN * (1 - r)
            else:
                power = t.power_for_me(kind)
                cost = card_worth(hand - 1)
                their_loss = t.counter_rate() * 0.8 if t.opp_hand_size else 0.0
                value = (1 - r) * (place + power) - r * 1.3 - cost + their_loss
        value += _jitter(rng)
        if value > best_value:
            best, best_value = move, value
    return best


def _respond(t: Table, moves: list[Move], rng: random.Random) -> Move:
    odds = t.face_down()
    kinds = list(t.hand)
    best_power = max(t.power_for_me(k) - t.keep_value(k) for k in kinds)
    cheapest = min(t.keep_value(k) for k in kinds)
    best, best_value = moves[0], 0.05
    for move in moves:
        if move["type"] != "counter":
            continue
        kind = move["kind"]
        place = t.place_value(t.opp_zone, kind)
        denied = WIN if place >= WIN / 2 else place + t.power_for_opp(kind)
        p = odds[kind]
        value = p * (denied + best_power) - (1 - p) * cheapest + _jitter(rng)
        if value > best_value:
            best, best_value = move, value
    return best


def _discard(t: Table, moves: list[Move], rng: random.Random) -> Move:
    right = bool(t.played and t.played.get("right"))
    if right:
        return max(moves, key=lambda m: t.power_for_me(m["card"]) - t.keep_value(m["card"])
                   + _jitter(rng))
    return min(moves, key=lambda m: t.keep_value(m["card"]) + _jitter(rng))


def _keep(t: Table, moves: list[Move], rng: random.Random) -> Move:
    return max(moves, key=lambda m: t.keep_value(m["card"]) + _jitter(rng))


def _assassinate(t: Table, moves: list[Move], rng: random.Random) -> Move:
    now = potential(t.opp_zone)
    return max(moves, key=lambda m: now - potential(removed(t.opp_zone, m["card"]))
               + _jitter(rng))


_DECIDE = {
    "draw": _turn, "play": _turn, "let_pass": _respond, "counter": _respond,
    "discard": _discard, "keep": _keep, "assassinate": _assassinate,
}


class HeuristicBot:
    """Plays L'Ère des Masques from its player's projection and viewed history (see the module
    doc)."""

    kind = "heuristic"

    def choose(self, view: dict[str, Any], legal_moves: list[Move], history: list[dict[str, Any]],
               rng: random.Random) -> Move:
        if len(legal_moves) == 1 or view.get("you") is None:
            return legal_moves[0] if len(legal_moves) == 1 else rng.choice(legal_moves)
        t = Table(view, history)
        return _DECIDE[legal_moves[0]["type"]](t, legal_moves, rng)
