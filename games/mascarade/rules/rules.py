"""Mascarade's rules: set-up, who is awaited, legal moves, applying a move, timeout defaults.

Rules references (§n, Rn) are to ``shared/rules/mascarade.md``. Every function is pure: ``apply``
works on :meth:`State.copy` and never changes the state it was given.

Moves are exactly ``shared/API.md``'s shapes; :func:`parse_move` refuses anything else with
:class:`MalformedMove` (unknown type, missing or unexpected field, wrong JSON type — a boolean is
not a number —, a seat or value out of range, an unknown mask id). A well-formed move the rules do
not allow now raises :class:`IllegalMove` with a ``code`` and a message naming the rule.
"""

from __future__ import annotations

import contextlib
from typing import Any

from games.engine.base import (
    GameOver,
    IllegalMove,
    MalformedMove,
    NotYourDecision,
    Pending,
    move_fields,
    spell,
)
from games.engine.rng import below, seed_state, shuffle

from .data import MASKS, PREP_TURNS, START_COINS, WIN_COINS
from .options import normalize_options
from .state import State

BANK = "bank"
JUSTICE = "justice"

#: Power decisions whose decider is the power's target, not its holder.
TARGET_DECIDES = ("guru_answer", "gambler_guess")
#: Powers that wait for their holder's decision.
DECISION_POWERS = ("spy", "fool", "puppeteer", "princess", "guru", "sorceress", "gambler")

#: Each move type's fields and their kinds (see :func:`parse_move`).
MOVE_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "exchange": (("target", "slot"), ("swap", "bool")),
    "look": (),
    "announce": (("mask", "mask"),),
    "claim": (),
    "pass": (),
    "spy": (("target", "seat"),),
    "spy_swap": (("swap", "bool"),),
    "fool": (("targets", "pair"), ("swap", "bool")),
    "puppeteer": (("targets", "pair"),),
    "princess": (("target", "seat"),),
    "guru": (("target", "seat"),),
    "guru_answer": (("mask", "mask"),),
    "sorceress": (("target", "seat_or_null"),),
    "crook": (("target", "seat"),),
    "gambler": (("hidden", "one_to_three"), ("target", "seat")),
    "gambler_guess": (("guess", "one_to_three"),),
}
#: Each move type's field names (what ``move_fields`` checks a move's shape against).
_FIELD_NAMES: dict[str, list[str]] = {t: [name for name, _kind in spec]
                                      for t, spec in MOVE_FIELDS.items()}
#: The move types each kind of decision accepts.
DECISION_MOVES: dict[str, tuple[str, ...]] = {
    "prep": ("exchange",),
    "turn": ("look", "exchange", "announce"),
    "challenge": ("claim", "pass"),
    **{kind: (kind,) for kind in ("spy", "spy_swap", "fool", "puppeteer", "princess", "guru",
                                  "guru_answer", "sorceress", "crook", "gambler",
                                  "gambler_guess")},
}


class _Ended(Exception):
    """Raised inside ``apply`` when the game ends: the rest of the resolution is not played."""


# --------------------------------------------------------------------------------------------
# Set-up


def setup(options: dict[str, Any], seed: int) -> State:
    """The initial state. Options are normalized here too; all randomness flows from ``seed``."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError("The seed must be an int.")
    opts = normalize_options(options)
    n = opts["players"]
    masks = tuple(opts["masks"])
    rng = seed_state(seed)
    if "deal" in opts:
        deal = tuple(opts["deal"])
    else:
        rng, shuffled = shuffle(rng, list(masks))
        deal = tuple(shuffled)
    if "first_seat" in opts:
        first = opts["first_seat"]
    else:
        rng, first = below(rng, n)
    return State(
        n=n, center=opts["center"], masks=masks,
        simultaneous=opts["challenge_mode"] == "simultaneous", log_masks=opts["log_masks"],
        deal=deal, first=first, rng=rng, seq=0, turn=1, seat=first, phase="prep",
        cards=list(deal), coins=[START_COINS] * n, justice=0,
        seat_of=list(range(n)), at=list(range(n)),
        ann_seat=-1, ann_mask="", claims=[], passes=[], revealed=[], todo=[], fined_players=[],
        decision="", holder=-1, target=-1, hidden=0, rev_prev_players=[], rev_cur_players=[],
        know=[[] for _ in range(n)], shown=[], public=[[0, m] for m in deal],
        moved=[0] * len(deal), winners=[], reason="",
    )


# --------------------------------------------------------------------------------------------
# Who is awaited


def awaited(s: State) -> list[tuple[int, str]]:
    """``(seat, decision)`` for every decision the game waits for, in clockwise order."""
    phase = s.phase
    if phase in ("prep", "turn"):
        return [(s.seat, phase)]
    if phase == "challenge":
        answered = s.claims + s.passes
        n, ann = s.n, s.ann_seat
        waiting = [(ann + k) % n for k in range(1, n) if (ann + k) % n not in answered]
        if not s.simultaneous:
            waiting = waiting[:1]
        return [(seat, "challenge") for seat in waiting]
    if phase == "power":
        decider = s.target if s.decision in TARGET_DECIDES else s.holder
        return [(decider, s.decision)]
    return []


def pending(s: State) -> list[Pending]:
    return [Pending(s.at[seat], seat, decision,
                    "challenge_timeout" if decision == "challenge" else "move_timeout")
            for seat, decision in awaited(s)]


def decision_of(s: State, player: Any) -> str | None:
    """The decision awaited from ``player`` now, or ``None``."""
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < s.n:
        return None
    seat = s.seat_of[player]
    phase = s.phase
    if phase in ("prep", "turn"):
        return phase if seat == s.seat else None
    if phase == "challenge":
        for waiting, decision in awaited(s):
            if waiting == seat:
                return decision
        return None
    if phase == "power":
        decider = s.target if s.decision in TARGET_DECIDES else s.holder
        return s.decision if seat == decider else None
    return None


def _others(s: State, seat: int) -> list[int]:
    """The other seats, clockwise from ``seat``'s left neighbour."""
    n = s.n
    return [(seat + k) % n for k in range(1, n)]


def _distinct_masks(s: State) -> list[str]:
    return list(dict.fromkeys(s.masks))


def _crook_victims(s: State, holder: int) -> list[int]:
    """The richest other seats, clockwise from the holder's left."""
    others = _others(s, holder)
    top = max(s.coins[x] for x in others)
    return [x for x in others if s.coins[x] == top]


# --------------------------------------------------------------------------------------------
# Legal moves and timeouts


def legal_moves(s: State, player: Any) -> list[dict[str, Any]]:
    """Every concrete move ``player`` may send now; empty when nothing is awaited from them."""
    decision = decision_of(s, player)
    if decision is None:
        return []
    seat = s.seat_of[player]
    if decision in ("prep", "turn"):
        targets: list[int | str] = [*_others(s, seat),
                                    *(f"center-{k}" for k in range(s.center))]
        moves: list[dict[str, Any]] = []
        if decision == "turn":
            moves.append({"type": "look"})
        moves.extend({"type": "exchange", "target": t, "swap": swap}
                     for t in targets for swap in (True, False))
        if decision == "turn" and player not in s.rev_prev_players:  # R5: players, not seats
            moves.extend({"type": "announce", "mask": m} for m in _distinct_masks(s))
        return moves
    if decision == "challenge":
        return [{"type": "claim"}, {"type": "pass"}]
    holder = s.holder
    if decision in ("spy", "princess", "guru"):
        return [{"type": decision, "target": t} for t in _others(s, holder)]
    if decision == "spy_swap":
        return [{"type": "spy_swap", "swap": True}, {"type": "spy_swap", "swap": False}]
    if decision in ("fool", "puppeteer"):
        others = _others(s, holder)
        pairs = [[a, b] for a in others for b in others if a != b]
        if decision == "puppeteer":
            return [{"type": "puppeteer", "targets": p} for p in pairs]
        return [{"type": "fool", "targets": p, "swap": swap}
                for p in pairs for swap in (True, False)]
    if decision == "guru_answer":
        return [{"type": "guru_answer", "mask": m} for m in _distinct_masks(s)]
    if decision == "sorceress":
        return [{"type": "sorceress", "target": t} for t in (None, *_others(s, holder))]
    if decision == "crook":
        return [{"type": "crook", "target": t} for t in _crook_victims(s, holder)]
    if decision == "gambler":
        return [{"type": "gambler", "hidden": h, "target": t}
                for h in (1, 2, 3) for t in _others(s, holder)]
    # gambler_guess
    return [{"type": "gambler_guess", "guess": g} for g in (1, 2, 3)]


def last_seen(s: State, player: int, slot: int) -> str | None:
    """The mask ``player`` last saw in ``slot``: the latest of their own looks and Spy looks, the
    Princess's reveals they saw, public reveals and the starting deal; ``None`` if never seen."""
    best_seq, best = -1, None
    for seq, about, mask, _how in s.know[player]:
        if about == slot and seq >= best_seq:
            best_seq, best = seq, mask
    for seq, about, mask, blind in s.shown:
        if about == slot and blind != player and seq >= best_seq:
            best_seq, best = seq, mask
    seq, mask = s.public[slot]
    if seq >= best_seq:
        best = mask
    return best


def timeout_move(s: State, player: Any) -> dict[str, Any]:
    """The default move of rules §10 for ``player``'s pending decision."""
    if s.phase == "over":
        raise GameOver("The game is over: no more moves can be played (§8).")
    decision = decision_of(s, player)
    if decision is None:
        raise NotYourDecision("The game is not waiting for a decision from this player now.")
    seat = s.seat_of[player]
    left = (seat + 1) % s.n
    if decision == "prep":
        return {"type": "exchange", "target": left, "swap": False}
    if decision == "turn":
        return {"type": "look"}
    if decision == "challenge":
        return {"type": "pass"}
    if decision in ("spy", "princess", "guru"):
        return {"type": decision, "target": left}
    if decision == "spy_swap":
        return {"type": "spy_swap", "swap": False}
    if decision == "fool":
        return {"type": "fool", "targets": [left, (seat + 2) % s.n], "swap": False}
    if decision == "puppeteer":
        return {"type": "puppeteer", "targets": [left, (seat + 2) % s.n]}
    if decision == "gambler":
        return {"type": "gambler", "hidden": 1, "target": left}
    if decision == "gambler_guess":
        return {"type": "gambler_guess", "guess": 2}
    if decision == "guru_answer":
        return {"type": "guru_answer", "mask": last_seen(s, player, seat) or s.masks[0]}
    if decision == "sorceress":
        return {"type": "sorceress", "target": None}
    # crook
    return {"type": "crook", "target": _crook_victims(s, s.holder)[0]}


# --------------------------------------------------------------------------------------------
# Parsing


def _malformed(message: str, code: str) -> MalformedMove:
    return MalformedMove(message, code=code)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(s: State, mtype: str, name: str, value: Any) -> int:
    if not _is_int(value):
        raise _malformed(f"The {mtype!r} move's {name!r} must be a seat number.", "wrong_type")
    if not 0 <= value < s.n:
        raise _malformed(f"There is no seat {spell(value)}: seats are numbered 0 to {s.n - 1}.",
                         "out_of_range")
    return value


def _field(s: State, mtype: str, name: str, kind: str, value: Any) -> Any:
    if kind == "seat":
        return _seat(s, mtype, name, value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise _malformed(f"The {mtype!r} move's {name!r} must be true or false.",
                             "wrong_type")
        return value
    if kind == "slot":
        if isinstance(value, str):
            if value.startswith("center-"):
                digits = value[7:]
                if digits in ("0", "1") and int(digits) < s.center:
                    return s.n + int(digits)
            names = ", ".join(f"center-{k}" for k in range(s.center)) or "none in this game"
            raise _malformed(f"{spell(value)} is not a center slot (center slots: {names}).",
                             "out_of_range")
        if not _is_int(value):
            raise _malformed(f"The {mtype!r} move's {name!r} must be a seat number or a center "
                             f"slot such as \"center-0\".", "wrong_type")
        return _seat(s, mtype, name, value)
    if kind == "mask":
        if not isinstance(value, str):
            raise _malformed(f"The {mtype!r} move's {name!r} must be a mask id.", "wrong_type")
        if value not in MASKS:
            raise _malformed(f"{spell(value)} is not a mask id. Known masks: "
                             f"{', '.join(MASKS)}.", "unknown_mask")
        return value
    if kind == "pair":
        if not isinstance(value, list) or len(value) != 2:
            raise _malformed(f"The {mtype!r} move's {name!r} must be a list of two seat numbers.",
                             "wrong_type")
        return (_seat(s, mtype, name, value[0]), _seat(s, mtype, name, value[1]))
    if kind == "seat_or_null":
        return None if value is None else _seat(s, mtype, name, value)
    # one_to_three
    if not _is_int(value):
        raise _malformed(f"The {mtype!r} move's {name!r} must be a number from 1 to 3.",
                         "wrong_type")
    if not 1 <= value <= 3:
        raise _malformed(f"The {mtype!r} move's {name!r} must be 1, 2 or 3; got {spell(value)}.",
                         "out_of_range")
    return value


def parse_move(s: State, move: Any) -> tuple[str, list[Any]]:
    """``(type, field values)`` of a well-formed move; :class:`MalformedMove` otherwise."""
    mtype, raw = move_fields(move, _FIELD_NAMES)
    return mtype, [_field(s, mtype, name, kind, raw[name]) for name, kind in MOVE_FIELDS[mtype]]


# --------------------------------------------------------------------------------------------
# Apply


def apply(state: State, player: Any, move: Any) -> tuple[State, list[dict[str, Any]]]:
    """Apply ``move`` by ``player``. Returns ``(new state, events)``; ``state`` is unchanged."""
    if state.phase == "over":
        raise GameOver("The game is over: no more moves can be played (§8).")
    mtype, values = parse_move(state, move)
    decision = decision_of(state, player)
    if decision is None:
        seats = ", ".join(f"seat {seat} ({kind})" for seat, kind in awaited(state))
        raise NotYourDecision(f"The game is not waiting for a decision from you now; it waits "
                              f"for {seats}.", seats=[seat for seat, _kind in awaited(state)])
    if mtype not in DECISION_MOVES[decision]:
        raise _wrong_move(state, decision)
    s = state.copy()
    s.seq += 1
    events: list[dict[str, Any]] = []
    with contextlib.suppress(_Ended):  # the game ended: the rest of the resolution is dropped
        _HANDLERS[mtype](s, events, player, *values)
    return s, events


def _wrong_move(s: State, decision: str) -> IllegalMove:
    if decision == "prep":
        return IllegalMove("During the four preparatory turns you may only exchange your card, "
                           "with another seat or a center card, swapping it or not (§5).",
                           code="prep_exchange_only", decision=decision)
    if decision == "turn":
        return IllegalMove("It is your turn: look at your card, exchange it or announce a mask "
                           "(§5).", code="wrong_move_now", decision=decision)
    if decision == "challenge":
        return IllegalMove(f"Seat {s.ann_seat} announced the {s.ann_mask}: answer with a claim "
                           f"or a pass (§6).", code="wrong_move_now", decision=decision,
                           seat=s.ann_seat, mask=s.ann_mask)
    return IllegalMove(f"The {s.ann_mask}'s power is waiting for your {decision!r} decision "
                       f"(§7).", code="wrong_move_now", decision=decision, mask=s.ann_mask)


def _event(s: State, etype: str, seat: int | None, **fields: Any) -> dict[str, Any]:
    return {"type": etype, "seat": seat, "turn": s.turn, **fields}


def _check_end(s: State, events: list) -> None:
    """[R7] After every coin movement: 13+ wins, else a ruined seat makes the richest win."""
    coins = s.coins
    if max(coins) >= WIN_COINS:
        _end(s, events, [x for x, c in enumerate(coins) if c >= WIN_COINS], "thirteen")
    if min(coins) <= 0:
        top = max(coins)
        _end(s, events, [x for x, c in enumerate(coins) if c == top], "ruin")


def _end(s: State, events: list, winners: list[int], reason: str) -> None:
    s.phase = "over"
    s.winners = winners
    s.reason = reason
    _clear_announcement(s)
    # The event gets its own list: the state's must not change when the event does.
    events.append(_event(s, "end", None, winners=list(winners),
                         players=[s.at[x] for x in winners], reason=reason,
                         coins=list(s.coins)))
    raise _Ended


def _pay(s: State, events: list, actor: int | None, source: int | str, dest: int | str,
         amount: int, why: str) -> None:
    """One coin movement (rules §8: one transfer, one Bank payment), then the R7 check."""
    if amount <= 0:
        return
    if source == JUSTICE:
        s.justice -= amount
    elif source != BANK:
        s.coins[source] -= amount
    if dest == JUSTICE:
        s.justice += amount
    elif dest != BANK:
        s.coins[dest] += amount
    events.append(_event(s, "coins", actor, **{"from": source, "to": dest, "amount": amount,
                                                "why": why}))
    _check_end(s, events)


def _take(s: State, events: list, holder: int, victim: int, amount: int, why: str) -> None:
    """The holder takes up to ``amount`` from ``victim`` (all they have if fewer)."""
    _pay(s, events, holder, victim, holder, min(amount, s.coins[victim]), why)


def _clear_announcement(s: State) -> None:
    s.ann_seat, s.ann_mask = -1, ""
    s.claims, s.passes, s.revealed, s.todo, s.fined_players = [], [], [], [], []
    s.decision, s.holder, s.target, s.hidden = "", -1, -1, 0


def _next_turn(s: State, events: list) -> None:
    _clear_announcement(s)
    s.turn += 1
    s.seat = (s.seat + 1) % s.n
    s.rev_prev_players, s.rev_cur_players = s.rev_cur_players, []
    s.phase = "prep" if s.turn <= PREP_TURNS else "turn"
    events.append(_event(s, "turn", s.seat, player=s.at[s.seat], prep=s.phase == "prep"))


def _made_to_reveal(s: State, seat: int) -> None:
    """[R5] The player at ``seat`` was made to reveal their card this turn: next turn they may not
    announce. The player, not the seat: a Puppeteer may move them before that turn comes."""
    player = s.at[seat]
    if player not in s.rev_cur_players:
        s.rev_cur_players.append(player)


def _reveal(s: State, events: list, seat: int, cause: str) -> None:
    mask = s.cards[seat]
    s.public[seat] = [s.seq, mask]
    _made_to_reveal(s, seat)
    events.append(_event(s, "reveal", seat, player=s.at[seat], mask=mask, cause=cause))


# Turn actions ---------------------------------------------------------------------------------


def _exchange(s: State, events: list, player: int, slot: int, swap: bool) -> None:
    seat = s.seat
    if slot == seat:
        raise IllegalMove("You cannot exchange your card with your own seat: choose another "
                          "seat or a center card (§5).", code="exchange_with_self")
    if swap:
        s.cards[seat], s.cards[slot] = s.cards[slot], s.cards[seat]
    s.moved[seat] = s.moved[slot] = s.seq
    events.append(_event(s, "exchange", seat, player=player, target=s.slot_name(slot),
                         swapped=swap, prep=s.phase == "prep"))
    _next_turn(s, events)


def _look(s: State, events: list, player: int) -> None:
    seat = s.seat
    mask = s.cards[seat]
    s.know[player] = [*s.know[player], [s.seq, seat, mask, "look"]]
    events.append(_event(s, "look", seat, player=player, mask=mask))
    _next_turn(s, events)


def _announce(s: State, events: list, player: int, mask: str) -> None:
    if mask not in s.masks:
        raise IllegalMove(f"The {mask} is not in play in this game: you may only announce one of "
                          f"{', '.join(_distinct_masks(s))} (§5).", code="mask_not_in_play",
                          mask=mask, masks=_distinct_masks(s))
    if player in s.rev_prev_players:
        raise IllegalMove("You cannot announce this turn: your card was revealed during the "
                          "previous turn (R5). You may look at it or exchange it.",
                          code="r5_revealed_last_turn")
    s.ann_seat, s.ann_mask = s.seat, mask
    s.phase = "challenge"
    events.append(_event(s, "announce", s.seat, player=player, mask=mask))


def _answer(s: State, events: list, player: int, claim: bool) -> None:
    seat = s.seat_of[player]
    (s.claims if claim else s.passes).append(seat)
    events.append(_event(s, "claim" if claim else "pass", seat, player=player))
    if len(s.claims) + len(s.passes) == s.n - 1:
        _close_challenge(s, events)


def _claim(s: State, events: list, player: int) -> None:
    _answer(s, events, player, True)


def _pass(s: State, events: list, player: int) -> None:
    _answer(s, events, player, False)


def _close_challenge(s: State, events: list) -> None:
    """§6: no claim, the announcer's power applies unrevealed; else everyone involved reveals,
    holders apply the power, the others are fined once the powers are done (R6)."""
    ann, n = s.ann_seat, s.n
    s.claims.sort(key=lambda x: (x - ann) % n)
    s.passes.sort(key=lambda x: (x - ann) % n)
    mask = s.ann_mask
    events.append(_event(s, "challenge_closed", ann, mask=mask, claims=list(s.claims),
                         passes=list(s.passes)))
    s.phase = "power"
    if not s.claims:
        s.todo = [ann]
    else:
        s.revealed = [ann, *s.claims]
        for seat in s.revealed:
            _reveal(s, events, seat, "challenge")
        s.todo = [x for x in s.revealed if s.cards[x] == mask]
        # [R8] The players who claimed wrongly are fined, wherever they sit when it is paid.
        s.fined_players = [s.at[x] for x in s.revealed if s.cards[x] != mask]
    _resolve(s, events)


def _resolve(s: State, events: list) -> None:
    """Apply the remaining holders' powers, then the fines (R6), then pass the turn."""
    while s.todo:
        holder = s.todo.pop(0)
        if _power(s, events, holder):
            return
    if s.fined_players:
        # [R8] Each fined player pays from the seat they occupy now (R2: coins belong to seats):
        # a Puppeteer's power may have moved them since they claimed.
        seats = [s.seat_of[p] for p in s.fined_players]
        for seat in seats:
            s.coins[seat] -= 1
        s.justice += len(seats)
        events.append(_event(s, "fines", None, seats=seats, players=list(s.fined_players),
                             amount=1, justice=s.justice))
        _check_end(s, events)
    _next_turn(s, events)


# Powers --------------------------------------------------------------------------------------


def _power(s: State, events: list, h: int) -> bool:
    """Start ``h``'s power; ``True`` when it waits for a decision (state set to ask for it)."""
    mask = s.ann_mask
    n = s.n
    events.append(_event(s, "power", h, player=s.at[h], mask=mask, revealed=h in s.revealed))
    if mask == "judge":
        _pay(s, events, h, JUSTICE, h, s.justice, mask)
    elif mask == "king":
        _pay(s, events, h, BANK, h, 2, mask)
    elif mask == "empress":
        _pay(s, events, h, BANK, h, 3, mask)
    elif mask == "cheater":
        if s.coins[h] >= 10:
            _end(s, events, [h], "cheater")
    elif mask == "thief":
        _take(s, events, h, (h + 1) % n, 1, mask)
        _take(s, events, h, (h - 1) % n, 1, mask)
    elif mask == "widow":
        _pay(s, events, h, BANK, h, max(0, 10 - s.coins[h]), mask)
    elif mask == "patron":
        _pay(s, events, h, BANK, h, 3, mask)
        _pay(s, events, h, BANK, (h + 1) % n, 1, mask)
        _pay(s, events, h, BANK, (h - 1) % n, 1, mask)
    elif mask == "beggar":
        for other in _others(s, h):
            if s.coins[other] > s.coins[h]:
                _take(s, events, h, other, 1, mask)
    elif mask == "peasant":
        both = sum(1 for x in s.revealed if s.cards[x] == "peasant") == 2
        _pay(s, events, h, BANK, h, 2 if both else 1, mask)
    elif mask == "crook":
        victims = _crook_victims(s, h)
        if len(victims) > 1:
            return _ask(s, h, "crook")
        _take(s, events, h, victims[0], 2, mask)
    elif mask in DECISION_POWERS:
        if mask == "fool":
            _pay(s, events, h, BANK, h, 1, mask)
        elif mask == "princess":
            _pay(s, events, h, BANK, h, 2, mask)
        return _ask(s, h, mask)
    return False


def _ask(s: State, holder: int, decision: str) -> bool:
    s.decision, s.holder, s.target, s.hidden = decision, holder, -1, 0
    return True


def _done(s: State, events: list) -> None:
    """The power awaiting a decision is over: go on with the resolution."""
    s.decision, s.holder, s.target, s.hidden = "", -1, -1, 0
    _resolve(s, events)


def _other_player(s: State, target: int, power: str) -> None:
    if target == s.holder:
        raise IllegalMove(f"The {power} must choose another player, not their own seat (§7).",
                          code="target_self", mask=power.lower())


def _two_others(s: State, targets: tuple[int, int], power: str) -> None:
    a, b = targets
    if a == s.holder or b == s.holder:
        raise IllegalMove(f"The {power} chooses two other players, not their own seat (§7).",
                          code="target_self", mask=power.lower())
    if a == b:
        raise IllegalMove(f"The {power} chooses two different players (§7).",
                          code="targets_not_distinct", mask=power.lower())


def _spy(s: State, events: list, player: int, target: int) -> None:
    _other_player(s, target, "Spy")
    h = s.holder
    s.target = target
    s.know[player] = [*s.know[player], [s.seq, h, s.cards[h], "spy"],
                      [s.seq, target, s.cards[target], "spy"]]
    s.decision = "spy_swap"
    events.append(_event(s, "spy", h, player=player, target=target, mask=s.cards[h],
                         target_mask=s.cards[target]))


def _spy_swap(s: State, events: list, player: int, swap: bool) -> None:
    h, t = s.holder, s.target
    if swap:
        s.cards[h], s.cards[t] = s.cards[t], s.cards[h]
    s.moved[h] = s.moved[t] = s.seq
    events.append(_event(s, "spy_swap", h, player=player, target=t, swapped=swap))
    _done(s, events)


def _fool(s: State, events: list, player: int, targets: tuple[int, int], swap: bool) -> None:
    _two_others(s, targets, "Fool")
    a, b = targets
    if swap:
        s.cards[a], s.cards[b] = s.cards[b], s.cards[a]
    s.moved[a] = s.moved[b] = s.seq
    events.append(_event(s, "fool", s.holder, player=player, targets=[a, b], swapped=swap))
    _done(s, events)


def _puppeteer(s: State, events: list, player: int, targets: tuple[int, int]) -> None:
    _two_others(s, targets, "Puppeteer")
    h = s.holder
    a, b = targets
    events.append(_event(s, "puppeteer", h, player=player, targets=[a, b]))
    _take(s, events, h, a, 1, "puppeteer")
    _take(s, events, h, b, 1, "puppeteer")
    # [R2] the players change seats; cards and coins stay where they are.
    pa, pb = s.at[a], s.at[b]
    s.at[a], s.at[b] = pb, pa
    s.seat_of[pa], s.seat_of[pb] = b, a
    events.append(_event(s, "seat_change", h, seats=[a, b], players=[pb, pa]))
    _done(s, events)


def _princess(s: State, events: list, player: int, target: int) -> None:
    _other_player(s, target, "Princess")
    mask = s.cards[target]
    blind = s.at[target]
    s.shown.append([s.seq, target, mask, blind])
    _made_to_reveal(s, target)
    events.append(_event(s, "princess", s.holder, player=player, target=target,
                         target_player=blind, mask=mask))
    _done(s, events)


def _guru(s: State, events: list, player: int, target: int) -> None:
    _other_player(s, target, "Guru")
    s.target = target
    s.decision = "guru_answer"
    events.append(_event(s, "guru", s.holder, player=player, target=target))


def _guru_answer(s: State, events: list, player: int, mask: str) -> None:
    if mask not in s.masks:
        raise IllegalMove(f"The {mask} is not in play in this game: name one of "
                          f"{', '.join(_distinct_masks(s))} (§7).", code="mask_not_in_play",
                          mask=mask, masks=_distinct_masks(s))
    h, t = s.holder, s.target
    events.append(_event(s, "guru_answer", t, player=player, holder=h, mask=mask))
    _reveal(s, events, t, "guru")
    if s.cards[t] != mask:
        _take(s, events, h, t, 4, "guru")
    _done(s, events)


def _sorceress(s: State, events: list, player: int, target: int | None) -> None:
    h = s.holder
    if target is None:
        events.append(_event(s, "sorceress", h, player=player, target=None))
    else:
        _other_player(s, target, "Sorceress")
        s.coins[h], s.coins[target] = s.coins[target], s.coins[h]
        events.append(_event(s, "sorceress", h, player=player, target=target,
                             coins=[s.coins[h], s.coins[target]]))
        _check_end(s, events)
    _done(s, events)


def _crook(s: State, events: list, player: int, target: int) -> None:
    h = s.holder
    victims = _crook_victims(s, h)
    if target not in victims:
        raise IllegalMove(f"The Crook takes from the richest other player: seat {target} has "
                          f"{s.coins[target]} coins, the richest have {s.coins[victims[0]]} "
                          f"(seats {', '.join(map(str, victims))}) (§7).",
                          code="crook_not_richest", seat=target, seats=list(victims))
    events.append(_event(s, "crook", h, player=player, target=target))
    _take(s, events, h, target, 2, "crook")
    _done(s, events)


def _gambler(s: State, events: list, player: int, hidden: int, target: int) -> None:
    _other_player(s, target, "Gambler")
    s.target, s.hidden = target, hidden
    s.decision = "gambler_guess"
    events.append(_event(s, "gambler", s.holder, player=player, target=target, hidden=hidden))


def _gambler_guess(s: State, events: list, player: int, guess: int) -> None:
    h, t, hidden = s.holder, s.target, s.hidden
    right = guess == hidden
    events.append(_event(s, "gambler_guess", t, player=player, holder=h, guess=guess,
                         hidden=hidden, right=right))
    # Only the hidden coins ever reach a fortune; the others go back to the Bank (§1).
    _pay(s, events, h, BANK, t if right else h, hidden, "gambler")
    _done(s, events)


_HANDLERS = {
    "exchange": _exchange,
    "look": _look,
    "announce": _announce,
    "claim": _claim,
    "pass": _pass,
    "spy": _spy,
    "spy_swap": _spy_swap,
    "fool": _fool,
    "puppeteer": _puppeteer,
    "princess": _princess,
    "guru": _guru,
    "guru_answer": _guru_answer,
    "sorceress": _sorceress,
    "crook": _crook,
    "gambler": _gambler,
    "gambler_guess": _gambler_guess,
}
