"""Mascarade's heuristic bot (kind ``"heuristic"``), which the catalog offers for Mascarade games.

The bot follows :class:`games.engine.bots.Bot`: it decides from its player's projection
(``MASCARADE.view(state, player)``), the legal moves and the player's own view of the history
(``view_event`` outputs, oldest first, each with its ``"seq"``). It never sees the state, keeps no
memory between calls (it rebuilds what it knows from the history every time) and draws every
random choice from the ``rng`` it is given, so a seeded rng reproduces its choice.

What it remembers
-----------------
A *belief* per slot (seat or center slot): a probability for each mask in play. It starts from the
public starting deal (R4) and follows the history:

- a look, a Spy look, a Princess reveal of another seat (event or ``you.knowledge``) and a public
  reveal make a slot certain (and rule that mask out elsewhere unless it is a Peasant);
- an exchange, a Spy swap or a Fool swap the bot made itself moves the beliefs exactly (it knows
  whether it swapped); one made by anyone else blends the two slots' beliefs half and half, since
  only the actor knows whether the swap was real;
- the Puppeteer moves players, not cards (R2): the bot's seat is read from the view.

It also measures the table: how often the other players claim (to price a bluff or a challenge)
and how often a revealed announcer really held the announced mask (to judge an announcement).

How it decides
--------------
Every option is priced in coins from the bot's point of view: its own gain minus the average gain
of the others, with a large bonus or penalty when the coin movement would end the game (§8) with
the bot among the winners or not. Announcing a mask weighs "nobody claims" (the power applies
anyway) against "somebody claims" (the power only if the bot holds the mask, else a fine). Looking
and exchanging are priced as the next turn's announcement, discounted. So it announces the masks
it is confident it holds, announces the Cheater at 10+ coins and the Widow when poor, looks when
unsure, exchanges for a card it knows to be better, claims when it believes it holds the announced
mask, challenges a likely bluff that would help the announcer a lot, and bluffs now and then. The
power decisions follow the same pricing (Sorceress: the richer target, Guru: the target it gains
most from, Puppeteer: the two richest, ...).
"""

from __future__ import annotations

import math
import random
from typing import Any

WIN_COINS = 13
CHEATER_COINS = 10
#: The worth, in coins, of ending the game as a winner (or, negated, as a loser).
END_VALUE = 40.0
#: What a decision whose effect comes a turn later (look, exchange) is worth against one now.
LATER = 0.7
#: How often the bot announces a plausible mask it probably does not hold.
BLUFF_RATE = 0.05

Move = dict[str, Any]


def _slot(n: int, about: Any) -> int:
    """A seat number or ``"center-k"`` as a slot index (center slots follow the seats)."""
    if isinstance(about, str):
        return n + int(about.rsplit("-", 1)[1])
    return int(about)


class Table:
    """What the bot's player knows, rebuilt from the projection and the viewed history."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        you = view["you"]
        self.me: int = you["player"]
        self.seat: int = you["seat"]
        self.n = n = len(view["seats"])
        self.slots = n + len(view["center"])
        in_play = view["masks_in_play"]
        self.masks: list[str] = list(dict.fromkeys(in_play))
        self.index = {m: i for i, m in enumerate(self.masks)}
        self.unique = [in_play.count(m) == 1 for m in self.masks]
        self.coins: list[float] = [float(s["coins"]) for s in view["seats"]]
        self.justice = float(view["justice"])
        self._now = self.worth(self.coins)
        k = len(self.masks)
        self.rows: list[list[float]] = [[0.0] * k for _ in range(self.slots)]
        for entry in view["starting_deal"]:
            self.rows[_slot(n, entry["about"])][self.index[entry["mask"]]] = 1.0
        self.claims = 0
        self.answers = 0
        self.honest = 0
        self.tested = 0
        self.simultaneous = False
        self._powers: dict[tuple[str, int], float] = {}
        self._announced: tuple[int, str] | None = None
        self._read(you["knowledge"], history)

    # Beliefs ------------------------------------------------------------------------------

    def certain(self, slot: int, mask: str) -> None:
        m = self.index[mask]
        row = self.rows[slot]
        for j in range(len(row)):
            row[j] = 0.0
        row[m] = 1.0
        if not self.unique[m]:
            return
        for other, r in enumerate(self.rows):
            if other != slot and r[m] > 0.0:
                r[m] = 0.0
                total = sum(r)
                if total > 0.0:
                    for j in range(len(r)):
                        r[j] /= total
                else:
                    free = [j for j in range(len(r)) if j != m]
                    for j in free:
                        r[j] = 1.0 / len(free)

    def swap(self, a: int, b: int) -> None:
        self.rows[a], self.rows[b] = self.rows[b], self.rows[a]

    def blend(self, a: int, b: int) -> None:
        ra, rb = self.rows[a], self.rows[b]
        mixed = [(x + y) * 0.5 for x, y in zip(ra, rb, strict=True)]
        self.rows[a], self.rows[b] = mixed, list(mixed)

    def moved(self, a: int, b: int, event: dict[str, Any]) -> None:
        """Cards ``a`` and ``b`` went under the table; ``swapped`` is there only for the actor."""
        if "swapped" in event:
            if event["swapped"]:
                self.swap(a, b)
        else:
            self.blend(a, b)

    def _read(self, knowledge: list[dict[str, Any]], history: list[dict[str, Any]]) -> None:
        n = self.n
        known = sorted(knowledge, key=lambda e: e["seq"])
        k = 0
        seat = self.me  # a player starts at the seat of its own index
        for event in history:
            seq = event.get("seq", 0)
            while k < len(known) and known[k]["seq"] < seq:
                self.certain(_slot(n, known[k]["about"]), known[k]["mask"])
                k += 1
            etype = event.get("type")
            if etype == "exchange":
                self.moved(event["seat"], _slot(n, event["target"]), event)
            elif etype in ("look", "reveal") and "mask" in event:
                self.certain(event["seat"], event["mask"])
            elif etype == "spy" and "mask" in event:
                self.certain(event["seat"], event["mask"])
                self.certain(event["target"], event["target_mask"])
            elif etype == "spy_swap":
                self.moved(event["seat"], event["target"], event)
            elif etype == "fool":
                a, b = event["targets"]
                self.moved(a, b, event)
            elif etype == "princess" and "mask" in event:
                self.certain(event["target"], event["mask"])
            elif etype == "seat_change":
                if self.me in event["players"]:
                    seat = event["seats"][event["players"].index(self.me)]
            elif etype == "challenge_closed":
                for x in event["claims"]:
                    if x != seat:
                        self.claims += 1
                        self.answers += 1
                self.answers += sum(1 for x in event["passes"] if x != seat)
                self._announced = (event["seat"], event["mask"]) if event["claims"] else None
            elif etype == "answer":
                self.simultaneous = True
            if etype == "reveal" and self._announced is not None:
                # The first reveal after a challenge closes is the announcer's (§6).
                if event["seat"] == self._announced[0] != seat and "mask" in event:
                    self.tested += 1
                    self.honest += event["mask"] == self._announced[1]
                self._announced = None
        for entry in known[k:]:
            self.certain(_slot(n, entry["about"]), entry["mask"])

    def p(self, slot: int, mask: str) -> float:
        return self.rows[slot][self.index[mask]]

    def entropy(self, slot: int) -> float:
        return -sum(x * math.log(x) for x in self.rows[slot] if x > 0.0)

    def claim_rate(self) -> float:
        """How likely one other player is to claim (Laplace-smoothed)."""
        return (self.claims + 1) / (self.answers + 2)

    def announcer_holds(self, seat: int, mask: str) -> float:
        """Belief that ``seat`` holds ``mask``, given that it announced it."""
        prior = self.p(seat, mask)
        if prior <= 0.0 or prior >= 1.0:
            return prior
        rate = min(0.95, max(0.05, (self.honest + 1) / (self.tested + 2)))
        base = 1.0 / len(self.masks)
        ratio = (rate / (1 - rate)) / (base / (1 - base))
        odds = prior / (1 - prior) * ratio
        return odds / (1 + odds)

    # Coins --------------------------------------------------------------------------------

    def others(self, seat: int) -> list[int]:
        return [(seat + k) % self.n for k in range(1, self.n)]

    def richest_other(self, seat: int, coins: list[float]) -> int:
        return max(self.others(seat), key=lambda x: coins[x])

    def worth(self, coins: list[float], winners: list[int] | None = None) -> float:
        """The bot's worth of a coin vector: own coins minus the others' average, or the end."""
        if winners is None:
            top = max(coins)
            if top >= WIN_COINS:
                winners = [x for x, c in enumerate(coins) if c >= WIN_COINS]
            elif min(coins) <= 0:
                winners = [x for x, c in enumerate(coins) if c == top]
        if winners is not None:
            return END_VALUE if self.seat in winners else -END_VALUE
        mine = coins[self.seat]
        return mine - (sum(coins) - mine) / (self.n - 1)

    def gain(self, after: list[float], winners: list[int] | None = None) -> float:
        return self.worth(after, winners) - self._now

    def fined(self, seat: int) -> float:
        """The bot's gain if ``seat`` pays a fine."""
        key = ("", seat)
        if key not in self._powers:
            after = list(self.coins)
            after[seat] -= 1
            self._powers[key] = self.gain(after)
        return self._powers[key]

    def _take(self, coins: list[float], to: int, frm: int, amount: float) -> None:
        amount = min(amount, coins[frm])
        coins[frm] -= amount
        coins[to] += amount

    def power(self, mask: str, h: int) -> float:
        """The bot's gain if seat ``h`` applies ``mask``'s power now (decisions guessed)."""
        key = (mask, h)
        if key not in self._powers:
            self._powers[key] = self._power(mask, h)
        return self._powers[key]

    def _power(self, mask: str, h: int) -> float:
        c = list(self.coins)
        n = self.n
        left, right = (h + 1) % n, (h - 1) % n
        bonus = 0.0
        if mask == "judge":
            c[h] += self.justice
        elif mask == "king":
            c[h] += 2
        elif mask == "empress":
            c[h] += 3
        elif mask == "gambler":
            c[h] += 2  # 3 coins hidden, a random guess is wrong two times in three
        elif mask == "cheater":
            if c[h] >= CHEATER_COINS:
                return self.gain(c, [h])
        elif mask == "thief":
            self._take(c, h, left, 1)
            self._take(c, h, right, 1)
        elif mask == "widow":
            c[h] += max(0.0, 10 - c[h])
        elif mask == "patron":
            c[h] += 3
            c[left] += 1
            c[right] += 1
        elif mask == "beggar":
            for other in self.others(h):
                if c[other] > c[h]:
                    self._take(c, h, other, 1)
        elif mask in ("peasant", "fool"):
            c[h] += 1
        elif mask == "princess":
            c[h] += 2
            bonus = 0.3 if h == self.seat else 0.0
        elif mask == "crook":
            self._take(c, h, self.richest_other(h, c), 2)
        elif mask == "sorceress":
            target = self.richest_other(h, c)
            if h == self.seat:
                return max(0.0, max(self._sorceress(t) for t in self.others(h)))
            if c[target] > c[h]:
                c[h], c[target] = c[target], c[h]
        elif mask == "guru":
            if h == self.seat:
                return max(self._guru(t) for t in self.others(h))
            self._take(c, h, self.richest_other(h, c), 4)
        elif mask == "puppeteer":
            a, b = sorted(self.others(h), key=lambda x: -c[x])[:2]
            self._take(c, h, a, 1)
            self._take(c, h, b, 1)
        elif mask == "spy":
            bonus = 0.5 if h == self.seat else 0.0
        return self.gain(c) + bonus

    def _sorceress(self, target: int) -> float:
        c = list(self.coins)
        c[self.seat], c[target] = c[target], c[self.seat]
        return self.gain(c)

    def _guru(self, target: int) -> float:
        c = list(self.coins)
        self._take(c, self.seat, target, 4)
        # The target names its mask right when it knows it: the less certain, the likelier wrong.
        wrong = 1.0 - 0.5 * max(self.rows[target])
        return wrong * self.gain(c)

    # Pricing announcements --------------------------------------------------------------

    def announce_value(self, row: list[float], mask: str) -> float:
        """The worth of announcing ``mask`` while holding a card believed to be ``row``."""
        p = row[self.index[mask]]
        nobody = (1 - self.claim_rate()) ** (self.n - 1)
        power = self.power(mask, self.seat)
        fine = self.fined(self.seat)
        return nobody * power + (1 - nobody) * (p * power + (1 - p) * fine)

    def holding_value(self, row: list[float]) -> float:
        """The worth of holding a card believed to be ``row`` for the next announcement."""
        return max(0.0, max(self.announce_value(row, m) for m in self.masks))

    def look_value(self) -> float:
        row = self.rows[self.seat]
        return sum(p * max(0.0, self.power(m, self.seat)) for m, p in zip(self.masks, row,
                                                                          strict=True) if p > 0)


# Decisions --------------------------------------------------------------------------------


def _turn(t: Table, moves: list[Move], rng: random.Random) -> Move:
    best: tuple[float, int] = (-math.inf, 0)
    scored: list[tuple[float, int]] = []
    row = t.rows[t.seat]
    for i, move in enumerate(moves):
        kind = move["type"]
        if kind == "announce":
            value = t.announce_value(row, move["mask"])
            scored.append((value, i))
        elif kind == "look":
            value = LATER * t.look_value()
        elif move["swap"]:
            value = LATER * t.holding_value(t.rows[_slot(t.n, move["target"])])
        else:
            value = LATER * t.holding_value(row) - 0.1
        value += rng.random() * 1e-6  # ties broken at random
        if value > best[0]:
            best = (value, i)
    if scored and rng.random() < BLUFF_RATE:
        bluffs = [(v, i) for v, i in scored
                  if t.p(t.seat, moves[i]["mask"]) < 0.5 and v >= max(0.0, best[0] - 1.0)]
        if bluffs:
            return moves[max(bluffs)[1]]
    return moves[best[1]]


def _prep(t: Table, moves: list[Move], rng: random.Random) -> Move:
    keep = t.holding_value(t.rows[t.seat])
    best_value, best_move = keep + 0.3, None
    for move in moves:
        if move["swap"]:
            value = t.holding_value(t.rows[_slot(t.n, move["target"])])
            if value > best_value:
                best_value, best_move = value, move
    if best_move is not None:
        return best_move
    return rng.choice([m for m in moves if not m["swap"]] or moves)


def _challenge(t: Table, view: dict[str, Any], moves: list[Move], rng: random.Random) -> Move:
    ann = view["announcement"]
    a, mask = ann["seat"], ann["mask"]
    p = t.p(t.seat, mask)
    pa = t.announcer_holds(a, mask)
    if p >= 1.0 and t.unique[t.index[mask]]:
        pa = 0.0
    q = t.claim_rate()
    if any(x != t.seat for x in ann["claims"]):
        later = 1.0  # somebody claimed already: the reveal happens anyway
    elif t.simultaneous or len(view["awaiting"]) > 1:
        later = 1 - (1 - q) ** (t.n - 2)  # the others answer unseen
    else:
        order = t.others(a)  # sequential: only the seats after the bot may still claim
        later = 1 - (1 - q) ** (len(order) - 1 - order.index(t.seat))
    theirs = t.power(mask, a)
    their_fine = t.fined(a)
    revealed = pa * theirs + (1 - pa) * their_fine
    claim = p * t.power(mask, t.seat) + (1 - p) * t.fined(t.seat) + revealed
    keep_quiet = later * revealed + (1 - later) * theirs
    want = "claim" if claim + rng.random() * 1e-6 > keep_quiet else "pass"
    return next(m for m in moves if m["type"] == want)


def _best(moves: list[Move], value, rng: random.Random) -> Move:
    return max(moves, key=lambda m: (value(m), rng.random()))


def _power(t: Table, view: dict[str, Any], moves: list[Move], rng: random.Random) -> Move:
    kind = moves[0]["type"]
    seat = t.seat
    if kind == "spy":
        # Look where the bot knows least, at a card likely worth taking.
        return _best(moves, lambda m: t.entropy(m["target"])
                     + 0.2 * t.holding_value(t.rows[m["target"]]), rng)
    if kind == "spy_swap":
        target = view["power"]["target"]
        swap = t.holding_value(t.rows[target]) > t.holding_value(t.rows[seat]) + 0.2
        return next(m for m in moves if m["swap"] == swap)
    if kind == "fool":
        # Hand the weakest card to the richest other player, when the bot knows enough.
        values = [t.holding_value(row) for row in t.rows[:t.n]]

        def fool_value(m: Move) -> float:
            a, b = m["targets"]  # a is the richer: it gets b's card if the swap is real
            if t.coins[a] < t.coins[b]:
                return -math.inf
            better = values[b] - values[a]
            return t.coins[a] - t.coins[b] + (-better if m["swap"] else better)
        return _best(moves, fool_value, rng)
    if kind == "puppeteer":
        def puppet_value(m: Move) -> float:
            c = list(t.coins)
            for x in m["targets"]:
                t._take(c, seat, x, 1)
            return t.gain(c)
        return _best(moves, puppet_value, rng)
    if kind == "princess":
        return _best(moves, lambda m: t.entropy(m["target"]), rng)
    if kind == "guru":
        return _best(moves, lambda m: t._guru(m["target"]), rng)
    if kind == "guru_answer":
        row = t.rows[seat]
        return _best(moves, lambda m: row[t.index[m["mask"]]], rng)
    if kind == "sorceress":
        return _best(moves, lambda m: 0.0 if m["target"] is None else t._sorceress(m["target"]),
                     rng)
    if kind == "crook":
        def crook_value(m: Move) -> float:
            c = list(t.coins)
            t._take(c, seat, m["target"], 2)
            return t.gain(c)
        return _best(moves, crook_value, rng)
    if kind == "gambler":
        hidden = rng.choices((1, 2, 3), weights=(1, 1, 2))[0]

        def gambler_value(m: Move) -> float:
            if m["hidden"] != hidden:
                return -math.inf
            c = list(t.coins)
            c[m["target"]] += m["hidden"]  # what the target would gain by guessing right
            return t.gain(c)
        return _best(moves, gambler_value, rng)
    if kind == "gambler_guess":
        guess = rng.choices((1, 2, 3), weights=(1, 1, 2))[0]
        return next((m for m in moves if m["guess"] == guess), moves[0])
    return rng.choice(moves)


class HeuristicBot:
    """Plays Mascarade from its player's projection and viewed history (see the module doc)."""

    kind = "heuristic"

    def choose(self, view: dict[str, Any], legal_moves: list[Move], history: list[dict[str, Any]],
               rng: random.Random) -> Move:
        if len(legal_moves) == 1 or view.get("you") is None:
            return legal_moves[0] if len(legal_moves) == 1 else rng.choice(legal_moves)
        t = Table(view, history)
        types = {m["type"] for m in legal_moves}
        if "look" in types or "announce" in types:
            return _turn(t, legal_moves, rng)
        if "claim" in types:
            return _challenge(t, view, legal_moves, rng)
        if types == {"exchange"}:
            return _prep(t, legal_moves, rng)
        return _power(t, view, legal_moves, rng)
