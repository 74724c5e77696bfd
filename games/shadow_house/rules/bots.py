"""Shadow House Mascarade's heuristic bot (kind ``"heuristic"``).

The bot follows :class:`games.engine.bots.Bot`: it decides from its player's projection
(``GAME.view(state, player)``), the legal moves and the player's own view of the history
(``view_event`` outputs, oldest first). It never sees the state, keeps no memory between calls
(it rebuilds what it knows every time) and draws every random choice from the ``rng`` it is
given, so a seeded rng reproduces its choice.

What it knows
-------------
- **Where the Culprit is**, as a chance per seat, rebuilt from the events of the round: its own
  hand first (holding the Culprit, it knows); otherwise an even share per seat, moved by what it
  saw: its Little one (the seat), its Witness (the hand), the cards it gave, took or got from a
  pool (the Culprit's own moves), the Detectives' "no" and Toby's other cards (less likely
  there), a Witness's swap (the Culprit or an Accomplice was there), and the unseen transfers (a
  Sharing's, a Rumour's or an Exchange's card may have carried it). Seats without cards cannot
  hold it.
- **How often the culprit side wins** at this table: the rounds so far that ended in case 3,
  from an even prior.
- **The table**: hand sizes, the cards in front of each player (accomplices, the Detectives and
  Toby already used), the discards, the Handcuffs.

How it decides
--------------
Every playable move gets a value: what it brings now, less what keeping its card was worth.

- *Innocent* (no Culprit in hand, no Accomplice in front): a Detective or Toby goes to the
  likeliest culprit when the chance is worth the card (more so as the bot's or the target's hand
  empties; Toby prefers small hands); the Sheriff handcuffs the likeliest culprit; the Little one
  and the Witness look while the Culprit's seat is in doubt; an Exchange goes to a likely
  culprit. An Accomplice joins the culprit side when that side wins often enough here (2 points
  against the innocents' 1), at once on a likely culprit holding one card (they must discard
  it: case 3). Cards of no use (Alibi, Maid, Governess, Divining hat...) go first.
- *Accomplice*: it wants the culprit to get away: Detectives, Toby and the Handcuffs go where the
  Culprit is least likely.
- *Culprit*: it keeps an Alibi (a Detective hears "no") and a Maid or Governess for the last
  round of turns (the shield then covers the Culprit alone in hand), passes the Handcuffs on with
  the Sheriff, gives the Culprit away only when handcuffed, and avoids the Rumour (its left
  neighbour might take the Culprit).
- *Give, contribute, discard*: the card worth least in hand (the Culprit kept, but handcuffed).
- *Witness*: an innocent swaps its least useful card (the target's may be the Culprit or an
  Accomplice: the culprit side scores more); a handcuffed culprit passes the Culprit on;
  otherwise no swap.
- *Divining hat*: it says nothing.
"""

from __future__ import annotations

import random
from typing import Any

Move = dict[str, Any]

#: How much a "no" from a Detective leaves of the chance that the seat holds the Culprit (it may
#: hold an Alibi too).
DETECTIVE_NO = 0.3
#: Prior of the culprit side's wins (case 3) against its losses, in rounds.
PRIOR = (1.0, 1.0)
#: How much the Detectives and Tobys already used raise the culprit side's chance (an exponent).
THREATS = 0.5
#: An innocent joins the culprit side (plays an Accomplice) when that is worth this much.
JOIN = 0.2
#: An innocent's Detective, Toby and Sheriff: what the chance at the target is worth now, and
#: how much more as time runs out (few cards left in the bot's or the target's hand).
DETECTIVE = 2.6
TOBY = 4.0
SHERIFF = 2.0
URGENCY = 0.8
#: An innocent's Little one and Witness: what a look is worth, by the doubt about the Culprit.
LOOK = 1.0
#: An innocent's Exchange with a likely culprit: what getting the Culprit is worth.
EXCHANGE = 0.8
#: An innocent's Witness swaps when the card it gives is worth at most this much in hand.
SWAP_BAR = 0.5
#: The share of a seat's chance that an unseen card it gives (or has taken) carries away.
MOVED = 0.3
#: How much a Witness's swap multiplies the chance at the target (Culprit or Accomplice seen).
SWAP_SEEN = 2.0
#: What keeping each card in hand is worth to an innocent player (its later use; an Accomplice's
#: is what joining the culprit side is worth, :func:`_join`).
KEEP_INNOCENT: dict[str, float] = {
    "detective": 1.2, "toby": 0.9, "little_one": 0.5, "witness": 0.35, "sheriff": 0.4,
    "accomplice": 0.0, "exchange": 0.1, "sharing": 0.05, "panic": 0.05, "rumour": 0.05,
    "alibi": 0.0, "maid": 0.0, "governess": 0.0, "divining_hat": 0.0, "culprit": 0.0,
    "first_on_scene": 0.0,
}
#: What keeping each card in hand is worth to the culprit.
KEEP_CULPRIT: dict[str, float] = {
    "alibi": 2.0, "maid": 1.3, "governess": 0.6, "sheriff": 0.5, "exchange": 0.3,
    "sharing": 0.2, "panic": 0.2, "witness": 0.1, "detective": 0.1, "toby": 0.1,
    "accomplice": 0.0, "little_one": 0.0, "divining_hat": 0.0, "rumour": -0.3, "culprit": 9.0,
    "first_on_scene": 0.0,
}


class Table:
    """What the bot's player knows, rebuilt from the projection and the viewed history."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        you = view["you"]
        self.me: int = you["seat"]
        self.hand: list[str] = list(you["hand"])
        self.seats: list[dict[str, Any]] = view["seats"]
        self.n = len(self.seats)
        self.sizes = [seat["hand_size"] for seat in self.seats]
        self.round: int = view["round"]
        self.handcuffs = next((s["seat"] for s in self.seats if s["handcuffs"]), None)
        self.culprit = "culprit" in self.hand
        self.accomplice = bool(self.seats[self.me]["accomplice"])
        self.points = [seat["points"] for seat in self.seats]
        past = view.get("rounds") or []
        wins = sum(1 for r in past if r["case"] == 3)
        #: The chance that the culprit side wins this round, from the game's rounds so far.
        self.culprit_wins = (wins + PRIOR[0]) / (len(past) + PRIOR[0] + PRIOR[1])
        gone = [card for seat in self.seats for card in seat["played"]]
        gone += view.get("discards") or []
        self.unseen_detectives = 2 - gone.count("detective")
        self.unseen_tobys = 2 - gone.count("toby")
        self.chance = self._locate(view, history)

    # Where the Culprit is -----------------------------------------------------------------------

    def _locate(self, view: dict[str, Any], history: list[dict[str, Any]]) -> list[float]:
        n, me = self.n, self.me
        if self.culprit:
            return [1.0 if t == me else 0.0 for t in range(n)]
        start = 0
        for i, event in enumerate(history):
            if event.get("type") == "round_start" and event.get("round") == self.round:
                start = i
        events = [e for e in history[start:] if e.get("round") == self.round]
        w = [4.0] * n
        first = next((t for t in range(n) if "first_on_scene" in self.seats[t]["played"]), None)
        if first is not None:
            w[first] = 3.0
        w[me] = 0.0
        for event in events:
            w = self._update(w, event)
        witnessed = view["you"].get("witnessed")
        if witnessed is not None:
            target = witnessed["seat"]
            w = _delta(n, target) if "culprit" in witnessed["hand"] else w
            if "culprit" not in witnessed["hand"]:
                w[target] = 0.0
        for t in range(n):
            if self.sizes[t] == 0 or t == me:
                w[t] = 0.0
        total = sum(w)
        if total <= 0:
            others = [t for t in range(n) if t != me and self.sizes[t]]
            return [1.0 / len(others) if t in others else 0.0 for t in range(n)] if others \
                else [0.0] * n
        return [x / total for x in w]

    def _update(self, w: list[float], event: dict[str, Any]) -> list[float]:
        n, me = self.n, self.me
        etype = event.get("type")
        seat = event.get("seat")
        w = list(w)
        if etype == "little_one" and event.get("culprit") is not None:
            return _delta(n, event["culprit"])
        if etype == "witness" and "hand" in event:
            if "culprit" in event["hand"]:
                return _delta(n, event["target"])
            w[event["target"]] = 0.0
        elif etype == "detective" and not event.get("answer"):
            w[event["target"]] *= DETECTIVE_NO
        elif etype == "toby" and event.get("card") != "culprit":
            w[event["target"]] *= 0.7
        elif etype == "witness_exchange" and event.get("exchanged"):
            w[event["target"]] *= SWAP_SEEN
        elif etype in ("give", "rumour"):
            giver, taker = (seat, event["to"]) if etype == "give" else (event["from"], seat)
            if "card" in event:  # the bot gave or took it: the card is known
                return _delta(n, taker) if event["card"] == "culprit" else w
            moved = w[giver] * MOVED
            w[giver] -= moved
            w[taker] += moved
        elif etype == "panic_deal" and event.get("card") == "culprit":
            return _delta(n, seat)
        elif etype == "panic_pool" and "culprit" in event.get("cards", ()):
            return [0.0 if t == me else 1.0 for t in range(n)]
        return w


def _delta(n: int, seat: int) -> list[float]:
    return [1.0 if t == seat else 0.0 for t in range(n)]


# Decisions ----------------------------------------------------------------------------------


def _join(t: Table) -> float:
    """What joining the culprit side (an Accomplice) is worth to an innocent this round: 2 points
    when the culprit side wins, the innocents' point lost when it loses."""
    wins = t.culprit_wins
    # The fewer Detectives and Tobys left unseen, the likelier the culprit gets away.
    threats = (t.unseen_detectives + t.unseen_tobys) / 4
    wins = 1.0 - (1.0 - wins) * threats ** THREATS
    likely = max(range(t.n), key=t.chance.__getitem__)
    if t.chance[likely] >= 0.6:
        if t.handcuffs == likely:
            wins *= 0.5
        if any(c in t.hand for c in ("detective", "toby")):
            wins *= 0.5  # the bot can catch them itself
    return 2.0 * wins - (1.0 - wins)


def _keep(t: Table, card: str) -> float:
    table = KEEP_CULPRIT if t.culprit else KEEP_INNOCENT
    value = table.get(card, 0.0)
    if card == "accomplice" and not t.culprit:
        return 0.0 if t.accomplice else max(0.3, _join(t))
    if t.culprit and card in ("maid", "governess"):
        # A shield is worth most while Detectives (Maid) or Toby (Governess) are still unseen,
        # and most as the last card before the Culprit: it covers the last round of turns, when
        # the Culprit is alone in hand (an Alibi covers the turns before, while it is held).
        unseen = t.unseen_detectives if card == "maid" else t.unseen_tobys
        value *= unseen
    return value


def _handcuffed(t: Table) -> bool:
    return t.culprit and t.handcuffs == t.me


def _accomplice_value(t: Table, move: Move) -> float:
    """An accomplice (not the culprit) wants the culprit to get away: its Detectives and Toby go
    where the Culprit is least likely, the Handcuffs too; a shield or a look is of no use."""
    card, target = move["card"], move.get("target")
    chance = t.chance[target] if target is not None else 0.0
    value = {"detective": 0.6, "toby": 0.5, "sheriff": 0.4}.get(card, 0.0)
    if card in ("detective", "toby", "sheriff") and target is not None:
        value -= 3.0 * chance
        if card == "sheriff" and t.handcuffs is not None:
            value += 2.0 * t.chance[t.handcuffs]  # take them off the likely culprit
    elif card == "accomplice" and target is not None:
        value += 3.0 * chance if t.sizes[target] == 1 else -0.5 * chance
    return value


def _play_value(t: Table, move: Move) -> float:
    """What playing ``move`` now brings, less what keeping its card was worth."""
    card, target = move["card"], move.get("target")
    hand_left = len(t.hand) - 1
    value = -_keep(t, card)
    if card == "culprit":
        return 100.0
    if t.accomplice and not t.culprit:
        return _accomplice_value(t, move)
    if t.culprit:
        if card == "sheriff":
            value += 3.0 if t.handcuffs == t.me else 0.5
            if target is not None and t.seats[target]["points"] >= 3:
                value += 0.2
        elif card in ("sharing", "exchange", "panic") and _handcuffed(t):
            value += 3.0  # the Culprit can go away
        elif card == "witness" and _handcuffed(t):
            value += 1.0
        elif card == "rumour":
            value -= 2.0 / max(1, len(t.hand) - 1) * (0 if _handcuffed(t) else 1)
        elif card == "accomplice":
            value += 0.2
        return value
    chance = t.chance[target] if target is not None else 0.0
    # The fewer cards the bot or the target holds, the sooner the chance goes.
    size = max(1, t.sizes[target]) if target is not None else 4
    urgency = 1.0 / (1 + hand_left) + 1.0 / size
    if card == "detective":
        value += DETECTIVE * chance + URGENCY * urgency * chance
    elif card == "toby":
        value += TOBY * chance / size + URGENCY * urgency * chance
    elif card == "accomplice":
        # Joining the culprit side: 2 points when it wins, the innocents' 1 lost when it loses.
        join = _join(t)
        value += join + 3.0 * (join - JOIN)
        if target is not None:
            if t.sizes[target] == 1:
                value += 4.0 * chance  # they must discard their last card: the Culprit?
            else:
                value -= 0.5 * chance
    elif card == "sheriff":
        value += SHERIFF * chance * t.culprit_wins
    elif card in ("little_one", "witness"):
        doubt = 1.0 - max(t.chance)
        value += LOOK * doubt
        if card == "witness" and target is not None:
            value += 0.3 * chance
    elif card == "exchange" and target is not None:
        value += EXCHANGE * chance / size  # their card may be the Culprit
    return value


def _turn(t: Table, moves: list[Move], rng: random.Random) -> Move:
    return max(moves, key=lambda m: _play_value(t, m) + rng.random() * 1e-6)


def _give(t: Table, moves: list[Move], rng: random.Random) -> Move:
    """The card worth least in hand (the Culprit away first when handcuffed)."""
    def worth(move: Move) -> float:
        card = move["card"]
        if card == "culprit":
            return -10.0 if _handcuffed(t) else 10.0
        return _keep(t, card)

    return min(moves, key=lambda m: worth(m) + rng.random() * 1e-6)


def _witness(t: Table, moves: list[Move], rng: random.Random) -> Move:
    """A swap passes the Culprit on when handcuffed; an innocent swaps its least useful card
    for one of the target's (which may be the Culprit or an Accomplice: the culprit side scores
    more); otherwise no swap."""
    swaps = [m for m in moves if m["type"] == "witness_exchange"]
    if _handcuffed(t):
        for move in swaps:
            if move["card"] == "culprit":
                return move
    if swaps and not t.culprit and not t.accomplice:
        best = _give(t, swaps, rng)
        if _keep(t, best["card"]) <= SWAP_BAR:
            return best
    return next(m for m in moves if m["type"] == "witness_pass")


_DECIDE = {
    "play": _turn, "discard": _give, "give": _give, "contribute": _give,
    "witness_exchange": _witness, "witness_pass": _witness,
}


class HeuristicBot:
    """Plays Shadow House Mascarade from its player's projection and viewed history (see the
    module doc)."""

    kind = "heuristic"

    def choose(self, view: dict[str, Any], legal_moves: list[Move], history: list[dict[str, Any]],
               rng: random.Random) -> Move:
        if len(legal_moves) == 1 or view.get("you") is None:
            return legal_moves[0] if len(legal_moves) == 1 else rng.choice(legal_moves)
        kind = legal_moves[0]["type"]
        if kind == "say":
            return legal_moves[0]
        t = Table(view, history)
        return _DECIDE[kind](t, legal_moves, rng)
