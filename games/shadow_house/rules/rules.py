"""Shadow House Mascarade's rules: set-up, who is awaited, legal moves, applying a move, timeouts.

References (§n, Sn) are to ``shared/rules/shadow-house.md``; the engine's rulings [SH-n] are
listed in the package docstring. Every function is pure: ``apply`` works on :meth:`State.copy`
and never changes the state it was given. All randomness (the seeded rounds' shuffles, Toby's
card, the Rumour's cards, the Panic's deal, the timeouts' cards) comes from the seed through
:mod:`games.engine.rng`, whose state lives in the game state; a timeout draws from a copy of it
(:func:`timeout_move` changes nothing), and every draw's range is public (a hand's or a pool's
size), so the generator's course never depends on a hidden card.

Decisions and moves
-------------------
============== ===================== ==============================================================
decision       timer                 moves
============== ===================== ==============================================================
``turn``       ``move_timeout``      ``{"type": "play", "card": id}`` · ``{"type": "play", "card":
                                     id, "target": seat}`` (a targeted card with an eligible
                                     target: ``target`` required then, refused otherwise)
``discard``    ``challenge_timeout`` ``{"type": "discard", "card": id}`` (an Accomplice's target)
``give``       ``challenge_timeout`` ``{"type": "give", "card": id}`` (Sharing, Exchange, the
                                     Witness's swap: the target's side)
``contribute`` ``challenge_timeout`` ``{"type": "contribute", "card": id}`` (Panic)
``witness``    ``move_timeout``      ``{"type": "witness_exchange", "card": id}`` ·
                                     ``{"type": "witness_pass"}``
``say``        ``move_timeout``      ``{"type": "say", "text": str}`` (Divining hat)
============== ===================== ==============================================================

:func:`parse_move` refuses anything else with :class:`MalformedMove` (not an object, unknown
type, missing or unexpected field, a card that is not one of the ids, a target that is not a
seat of the table, a text too long or with control characters). A well-formed move the rules do
not allow now raises :class:`IllegalMove` with a stable ``code``.
"""

from __future__ import annotations

import unicodedata
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
from games.engine.options import played_revision
from games.engine.rng import below, seed_state, shuffle

from .cards import (
    BOX,
    CARDS,
    FIXED,
    GOAL,
    HAND_SIZE,
    TARGETED,
    distinct,
    in_order,
    round_cards,
)
from .options import normalize_options
from .state import CulpritSeen, State, Witnessed

#: Each move type's fields; ``play``'s ``target`` is optional (:data:`OPTIONAL_FIELDS`).
MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "play": ("card", "target"),
    "discard": ("card",),
    "give": ("card",),
    "contribute": ("card",),
    "witness_exchange": ("card",),
    "witness_pass": (),
    "say": ("text",),
}
#: The fields a move may leave out.
OPTIONAL_FIELDS: dict[str, tuple[str, ...]] = {"play": ("target",)}
#: The move types each decision accepts.
DECISION_MOVES: dict[str, tuple[str, ...]] = {
    "turn": ("play",),
    "discard": ("discard",),
    "give": ("give",),
    "contribute": ("contribute",),
    "witness": ("witness_exchange", "witness_pass"),
    "say": ("say",),
}
DECISIONS = tuple(DECISION_MOVES)
#: Each decision's deadline option (spec: answering another's card is a challenge).
TIMERS: dict[str, str] = {
    "turn": "move_timeout",
    "discard": "challenge_timeout",
    "give": "challenge_timeout",
    "contribute": "challenge_timeout",
    "witness": "move_timeout",
    "say": "move_timeout",
}
#: The Divining hat's words: at most this many characters once stripped.
SAY_LIMIT = 280
#: Simultaneous effects: every participant's card is chosen, then the effect resolves at once.
SIMULTANEOUS = ("sharing", "panic", "exchange", "witness")


# --------------------------------------------------------------------------------------------
# Set-up


def setup(options: dict[str, Any], seed: int) -> State:
    """The initial state. Options are normalized here too; all randomness flows from ``seed``.
    Round 1 is dealt and opened (the First on scene played for its holder [SH-3]); the events
    of that opening are not kept (every viewer learns them from the view: hand sizes, the card
    in front of its holder, their own hand). The game plays the revision its options name,
    revision 1 when they name none (options stored before revisions existed:
    :func:`games.engine.options.played_revision`)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError("The seed must be an int.")
    opts = normalize_options(options)
    n = opts["players"]
    s = State(
        n=n, flash=opts["flash"], rng=seed_state(seed), seq=0, round=0, decision="turn",
        waiting=[], seat=0, effect="", effect_target=-1, choices=[""] * n,
        hands=[[] for _ in range(n)], pile=[], played=[[] for _ in range(n)], discards=[],
        handcuffs=-1, protected=[[] for _ in range(n)], points=[0] * n,
        culprit_seen=[None] * n, witnessed=None, rounds=[],
        deals=[list(order) for order in (opts.get("deal") or [])], winners=[], reason="",
        case=0, revision=played_revision(options),
    )
    _start_round(s, [], opts.get("first_seat"))
    return s


def _start_round(s: State, events: list, first_seat: int | None = None) -> None:
    """§2 for the next round: the deck from a box order (the staff's, else a seeded one [SH-8]),
    4 cards each, the pile; then the First on scene's holder opens the round [SH-3]."""
    n = s.n
    s.round += 1
    if s.deals:
        deck, pile = round_cards(s.deals.pop(0), n)
    else:
        s.rng, box = _seeded_box(s.rng, n, s.revision)
        deck, pile = round_cards(box, n)
        s.rng, deck = shuffle(s.rng, deck)
        s.rng, pile = shuffle(s.rng, pile)
    if first_seat is not None:
        # [SH-2] The First on scene swaps places with the first card dealt to that seat.
        i, j = deck.index("first_on_scene"), HAND_SIZE * first_seat
        if i // HAND_SIZE != first_seat:
            deck[i], deck[j] = deck[j], deck[i]
    s.hands = [in_order(deck[HAND_SIZE * t:HAND_SIZE * (t + 1)]) for t in range(n)]
    s.pile = pile
    s.played = [[] for _ in range(n)]
    s.discards = []
    s.handcuffs = -1
    s.protected = [[] for _ in range(n)]
    s.culprit_seen = [None] * n
    s.witnessed = None
    s.choices = [""] * n
    s.effect, s.effect_target = "", -1
    events.append(_event(s, "round_start", None, hand_sizes=[len(h) for h in s.hands],
                         pile_size=len(s.pile)))
    for t in range(n):
        events.append(_event(s, "deal", t, cards=list(s.hands[t])))
    holder = next(t for t in range(n) if "first_on_scene" in s.hands[t])
    s.seat = holder
    events.append(_event(s, "turn", holder))
    s.decision, s.waiting = "turn", [holder]
    return _play(s, events, holder, "first_on_scene", None, forced=True)


def _seeded_box(rng: int, n: int, revision: int) -> tuple[int, list[str]]:
    """``(rng, box order)`` of a seeded round [SH-8]. [S6] (revision 2) The fixed cards of §2
    come first, then every other card of the box shuffled: :func:`round_cards` takes the fixed
    ones, then the "others" from that shuffled rest, so every card left is equally likely to be
    drawn. Revision 1 shuffled the whole box, so that the fixed cards were the first copies of
    their types in it and a type's spare copy was seldom among the others."""
    if revision < 2:
        return shuffle(rng, list(BOX))
    fixed = [card for card, count in FIXED[n].items() for _ in range(count)]
    rest = list(BOX)
    for card in fixed:
        rest.remove(card)
    rng, rest = shuffle(rng, rest)
    return rng, [*fixed, *rest]


# --------------------------------------------------------------------------------------------
# Who is awaited


def pending(s: State) -> list[Pending]:
    if s.decision == "over":
        return []
    timer = TIMERS[s.decision]
    return [Pending(t, t, s.decision, timer) for t in s.waiting]


def _is_seat(s: State, player: Any) -> bool:
    return isinstance(player, int) and not isinstance(player, bool) and 0 <= player < s.n


def decision_of(s: State, player: Any) -> str | None:
    """The decision awaited from ``player`` now, or ``None`` (also for any junk ``player``)."""
    if s.decision == "over" or not _is_seat(s, player) or player not in s.waiting:
        return None
    return s.decision


# --------------------------------------------------------------------------------------------
# Targets, legal moves and timeouts


def targets(s: State, seat: int, card: str, left_in_hand: int) -> list[int]:
    """The seats ``seat`` may target with ``card`` (§3), clockwise from the left neighbour;
    ``left_in_hand`` is how many cards ``seat`` holds once ``card`` is played."""
    others = [(seat + k) % s.n for k in range(1, s.n)]
    if card == "detective":  # [S9] an empty hand may be questioned (the answer is "no")
        return [t for t in others if "maid" not in s.protected[t]]
    if card in ("accomplice", "witness"):
        return [t for t in others if s.hands[t]]
    if card == "sheriff":  # [S9] an empty hand may be handcuffed
        return [t for t in others if "governess" not in s.protected[t] and t != s.handcuffs]
    if card == "toby":
        return [t for t in others if s.hands[t] and "governess" not in s.protected[t]]
    if card == "exchange":
        return [t for t in others if s.hands[t]] if left_in_hand else []
    return []


def _playable(hand: list[str], card: str) -> bool:
    """S4: the Culprit only as the last card; the First on scene only as the round opens."""
    if card == "first_on_scene":
        return False
    return card != "culprit" or len(hand) == 1


def _discardable(hand: list[str], card: str) -> bool:
    return card != "culprit" or len(hand) == 1


def _saw_suspect(s: State) -> bool:
    """The Witness's player saw the Culprit or an Accomplice in the target's hand."""
    # [S8] a Culprit or an Accomplice card in the hand looked at (not one played in front).
    return s.witnessed is not None and any(c in ("culprit", "accomplice")
                                           for c in s.witnessed.hand)


def legal_moves(s: State, player: Any) -> list[dict[str, Any]]:
    """Every concrete move ``player`` may send now (cards in §1 order, targets clockwise from the
    left neighbour); empty when nothing is awaited from them."""
    decision = decision_of(s, player)
    if decision is None:
        return []
    hand = s.hands[player]
    if decision == "turn":
        moves: list[dict[str, Any]] = []
        for card in distinct(hand):
            if not _playable(hand, card):
                continue
            chosen = targets(s, player, card, len(hand) - 1) if card in TARGETED else []
            if chosen:
                moves += [{"type": "play", "card": card, "target": t} for t in chosen]
            else:
                moves.append({"type": "play", "card": card})
        return moves
    if decision == "discard":
        return [{"type": "discard", "card": c} for c in distinct(hand) if _discardable(hand, c)]
    if decision in ("give", "contribute"):
        return [{"type": decision, "card": c} for c in distinct(hand)]
    if decision == "witness":
        swaps = ([{"type": "witness_exchange", "card": c} for c in distinct(hand)]
                 if _saw_suspect(s) else [])
        return [*swaps, {"type": "witness_pass"}]
    return [{"type": "say", "text": ""}]


def timeout_move(s: State, player: Any) -> dict[str, Any]:
    """The default move of §6 for ``player``'s pending decision: the first playable card in §1
    order, on the left neighbour or the next eligible seat clockwise; a random allowed card
    (seeded from the state, which it does not change); no swap; nothing said."""
    if s.decision == "over":
        raise GameOver("The game is over: no more moves can be played (§4).")
    decision = decision_of(s, player)
    if decision is None:
        raise NotYourDecision("The game is not waiting for a decision from this player now.")
    if decision == "turn":
        return legal_moves(s, player)[0]
    if decision == "witness":
        return {"type": "witness_pass"}
    if decision == "say":
        return {"type": "say", "text": ""}
    hand = s.hands[player]
    allowed = [c for c in hand if decision != "discard" or _discardable(hand, c)]
    _state, k = below(seed_state((s.rng * 1_000_003 + s.seq) * 16 + player), len(allowed))
    return {"type": decision, "card": allowed[k]}


# --------------------------------------------------------------------------------------------
# Parsing


def _malformed(message: str, code: str) -> MalformedMove:
    return MalformedMove(message, code=code)


def _card(mtype: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _malformed(f"The {mtype!r} move's 'card' must be a card id: {', '.join(CARDS)}.",
                         "wrong_type")
    if value not in CARDS:
        raise _malformed(f"{spell(value)} is not a card id. Ids: {', '.join(CARDS)}.",
                         "unknown_card")
    return value


def _target(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _malformed("The 'play' move's 'target' must be a seat number (leave it out for a "
                         "card played without a target).", "wrong_type")
    if value < 0:
        raise _malformed(f"The target must be a seat of the table; got {spell(value)}.",
                         "out_of_range")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise _malformed("The 'say' move's 'text' must be a string (empty: nothing said).",
                         "wrong_type")
    text = value.strip()
    if len(text) > SAY_LIMIT:
        raise MalformedMove(f"The Divining hat's text may have at most {SAY_LIMIT} characters; "
                            f"it has {len(text)}.", code="text_too_long", limit=SAY_LIMIT,
                            length=len(text))
    for char in text:
        category = unicodedata.category(char)
        if (category == "Cc" and char != "\n") or category == "Cs":
            raise _malformed("The Divining hat's text may not hold control characters (other "
                             "than a new line).", "control_character")
    return text


def parse_move(move: Any) -> tuple[str, dict[str, Any]]:
    """``(type, {field: value})`` of a well-formed move; :class:`MalformedMove` otherwise. A
    ``target`` is checked against the table's size by :func:`apply`."""
    fields = {t: list(names) for t, names in MOVE_FIELDS.items()}
    if not (isinstance(move, dict) and move.get("type") == "play" and "target" in move):
        fields["play"] = ["card"]
    mtype, raw = move_fields(move, fields)
    values: dict[str, Any] = {}
    if "card" in raw:
        values["card"] = _card(mtype, raw["card"])
    if "target" in raw:
        values["target"] = _target(raw["target"])
    if "text" in raw:
        values["text"] = _text(raw["text"])
    return mtype, values


# --------------------------------------------------------------------------------------------
# Apply


def apply(state: State, player: Any, move: Any) -> tuple[State, list[dict[str, Any]]]:
    """Apply ``move`` by ``player``. Returns ``(new state, events)``; ``state`` is unchanged."""
    if state.decision == "over":
        raise GameOver("The game is over: no more moves can be played (§4).")
    mtype, values = parse_move(move)
    if "target" in values and values["target"] >= state.n:
        raise _malformed(f"The target must be a seat of the table, 0 to {state.n - 1}; got "
                         f"{spell(values['target'])}.", "out_of_range")
    decision = decision_of(state, player)
    if decision is None:
        seats = [str(t) for t in state.waiting]
        awaited = (f"seat {seats[0]}" if len(seats) == 1
                   else f"seats {', '.join(seats[:-1])} and {seats[-1]}")
        raise NotYourDecision(f"The game is not waiting for a decision from you now; it waits "
                              f"for {awaited} ({state.decision}).",
                              seats=list(state.waiting), decision=state.decision)
    if mtype not in DECISION_MOVES[decision]:
        raise _wrong_move(decision)
    s = state.copy()
    s.seq += 1
    events: list[dict[str, Any]] = []
    if mtype == "play":
        _play(s, events, player, values["card"], values.get("target"))
    elif mtype == "discard":
        _discard(s, events, player, values["card"], forced=False)
    elif mtype in ("give", "contribute"):
        _choose(s, events, player, values["card"])
    elif mtype == "witness_exchange":
        _witness_exchange(s, events, player, values["card"])
    elif mtype == "witness_pass":
        _witness_pass(s, events, player)
    else:
        _say(s, events, player, values["text"])
    return s, events


def _wrong_move(decision: str) -> IllegalMove:
    message = {
        "turn": "It is your turn: play a card of your hand face up (§3).",
        "discard": "An Accomplice chose you: discard a card of your hand face up (§1).",
        "give": "Choose the card of your hand you give (§1).",
        "contribute": "Panic: choose the card of your hand you put in the pool (§1).",
        "witness": "Your Witness looked: swap a card with the player you saw, or pass (§1).",
        "say": "Your Divining hat: say what you suspect, or send an empty text (§1).",
    }[decision]
    return IllegalMove(message, code="wrong_move_now", decision=decision)


def _event(s: State, etype: str, seat: int | None, **fields: Any) -> dict[str, Any]:
    return {"type": etype, "seat": seat, "round": s.round, **fields}


def _take(hand: list[str], card: str) -> None:
    hand.remove(card)


def _give_to(s: State, seat: int, card: str) -> None:
    s.hands[seat] = in_order([*s.hands[seat], card])


# Turn ----------------------------------------------------------------------------------------


def _play(s: State, events: list, player: int, card: str, target: int | None,
          forced: bool = False) -> None:
    hand = s.hands[player]
    if card not in hand:
        raise IllegalMove(f"You have no {card} in your hand to play.", code="card_not_in_hand",
                          card=card, action="play")
    if card == "culprit" and len(hand) > 1:
        raise IllegalMove("The Culprit may be played only as the last card of your hand (S4).",
                          code="culprit_not_last", action="play")
    if card == "first_on_scene" and not forced:
        raise IllegalMove("The First on scene is played only as the round opens (§2).",
                          code="first_on_scene", card=card)
    eligible = targets(s, player, card, len(hand) - 1) if card in TARGETED else []
    if eligible and target is None:
        raise IllegalMove(f"The {card} needs a target: choose one of the seats "
                          f"{', '.join(map(str, eligible))} (§3).", code="target_required",
                          card=card, seats=list(eligible))
    if target is not None and not eligible:
        why = ("it has no target" if card not in TARGETED
               else "no player can be chosen now")
        raise IllegalMove(f"The {card} is played without a target: {why} (§3).",
                          code="target_not_allowed", card=card)
    if target is not None and target not in eligible:
        message, why = _not_eligible(s, player, card, target)
        raise IllegalMove(message, code="target_not_eligible", card=card, target=target, why=why)
    _take(hand, card)
    s.played[player].append(card)
    s.waiting = []
    events.append(_event(s, "play", player, card=card, target=target, forced=forced))
    return _resolve(s, events, player, card, target)


def _not_eligible(s: State, player: int, card: str, target: int) -> tuple[str, str]:
    """Why ``target`` cannot be chosen: the message, and the reason's key (``self``, ``maid``,
    ``governess``, ``handcuffs``, ``no_cards``)."""
    if target == player:
        return f"You cannot target yourself with the {card} (§3).", "self"
    if card == "detective":
        return (f"Seat {target} is protected by a Maid: no Detective may question them (§1).",
                "maid")
    if card in ("sheriff", "toby") and "governess" in s.protected[target]:
        return (f"Seat {target} is protected by a Governess: no {card} may target them (§1).",
                "governess")
    if card == "sheriff":
        return (f"Seat {target} already holds the Handcuffs: give them to another player (§1).",
                "handcuffs")
    return f"Seat {target} holds no card: the {card} needs a player with cards (§1).", "no_cards"


def _resolve(s: State, events: list, seat: int, card: str, target: int | None) -> None:
    """The effect of ``card``, played by ``seat``; then, unless it waits for decisions, the next
    turn."""
    if card == "culprit":
        return _culprit_gone(s, events, seat)
    if card == "detective" and target is not None:
        hand = s.hands[target]
        answer = "culprit" in hand and "alibi" not in hand
        events.append(_event(s, "detective", seat, target=target, answer=answer))
        if answer:
            return _end_round(s, events, 4 if s.handcuffs == target else 1, target, seat)
    elif card == "accomplice" and target is not None:
        events.append(_event(s, "accomplice", seat, target=target))
        s.effect, s.effect_target = "accomplice", target
        if len(s.hands[target]) == 1:  # [SH-4] public: a hand of one card
            return _discard(s, events, target, s.hands[target][0], forced=True)
        s.decision, s.waiting = "discard", [target]
        return None
    elif card == "sheriff" and target is not None:
        s.handcuffs = target
        events.append(_event(s, "handcuffs", seat, target=target))
    elif card == "toby" and target is not None:
        hand = s.hands[target]
        s.rng, k = below(s.rng, len(hand))  # S5: a card of the hand at random
        shown = hand[k]
        events.append(_event(s, "toby", seat, target=target, card=shown))
        if shown == "culprit":
            return _end_round(s, events, 4 if s.handcuffs == target else 2, target, seat)
    elif card == "little_one":
        holder = _culprit_holder(s)
        s.culprit_seen[seat] = CulpritSeen(holder, s.seq)
        events.append(_event(s, "little_one", seat, culprit=holder))
    elif card == "sharing":
        s.effect = "sharing"
        return _effect_asks(s, events, "give", [t for t in range(s.n) if s.hands[t]])
    elif card == "rumour":
        _rumour(s, events, seat)
    elif card == "panic" and s.hands[seat]:
        s.effect = "panic"
        return _effect_asks(s, events, "contribute", [t for t in range(s.n) if s.hands[t]])
    elif card == "divining_hat":
        s.effect = "divining_hat"
        s.decision, s.waiting = "say", [seat]
        return None
    elif card == "witness" and target is not None:
        hand = list(s.hands[target])
        events.append(_event(s, "witness", seat, target=target, hand=hand))
        if s.hands[seat]:
            s.effect, s.effect_target = "witness", target
            s.witnessed = Witnessed(target, tuple(hand), s.seq)
            s.decision, s.waiting = "witness", [seat]
            return None
    elif card in ("maid", "governess"):
        s.protected[seat] = [k for k in ("maid", "governess")
                             if k == card or k in s.protected[seat]]
        events.append(_event(s, "protect", seat, kind=card))
    elif card == "exchange" and target is not None:
        s.effect, s.effect_target = "exchange", target
        return _effect_asks(s, events, "give", sorted([seat, target]))
    return _next_turn(s, events)


def _culprit_holder(s: State) -> int:
    return next(t for t in range(s.n) if "culprit" in s.hands[t])


def _culprit_gone(s: State, events: list, holder: int) -> None:
    """The Culprit was played or discarded as its holder's last card: case 3, or 4 when the
    holder is handcuffed (§3, §4). The round ends."""
    return _end_round(s, events, 4 if s.handcuffs == holder else 3, holder, None)


# Decisions of an effect -------------------------------------------------------------------------


def _ask(s: State, events: list, decision: str, seats: list[int]) -> bool:
    """Ask ``seats`` for a card at once; [SH-4] a hand of one card gives it at once. ``True``
    when decisions are awaited; otherwise the effect has resolved now (and the turn passed)."""
    s.decision, s.waiting = decision, []
    for t in seats:
        if len(s.hands[t]) == 1:
            s.choices[t] = s.hands[t][0]
        else:
            s.waiting.append(t)
    if s.waiting:
        return True
    _complete(s, events)
    return False


def _effect_asks(s: State, events: list, decision: str, seats: list[int]) -> None:
    """The Sharing, the Panic or the Exchange just played asks ``seats`` for their cards
    (:func:`_ask`). [SH-16] Revision 1 passed the turn a second time when no card was awaited
    (every hand asked held one card, given at once) and the round went on: the seat after the
    next one lost its turn. Revision 2 passes it once; revision 1 still does that, so that its
    games replay as they were played."""
    round_before = s.round
    if _ask(s, events, decision, seats) or s.revision >= 2:
        return None
    if s.decision != "over" and s.round == round_before:  # (no round ended meanwhile)
        return _next_turn(s, events)
    return None


def _choose(s: State, events: list, player: int, card: str) -> None:
    if card not in s.hands[player]:
        raise IllegalMove(f"You have no {card} in your hand to {s.decision}.",
                          code="card_not_in_hand", card=card, action=s.decision)
    s.choices[player] = card
    s.waiting.remove(player)
    if not s.waiting:
        return _complete(s, events)
    return None


def _complete(s: State, events: list) -> None:
    """Every choice of a simultaneous effect is in: it resolves, then the turn passes."""
    effect = s.effect
    if effect == "sharing":
        _resolve_sharing(s, events)
    elif effect == "exchange":
        seat, target = s.seat, s.effect_target
        _swap(s, events, [(seat, target), (target, seat)], "exchange")
    elif effect == "panic":
        _resolve_panic(s, events)
    else:  # the Witness's swap
        seat, target = s.seat, s.effect_target
        _swap(s, events, [(seat, target), (target, seat)], "witness")
    return _next_turn(s, events)


def _clockwise(s: State, start: int) -> list[int]:
    return [(start + k) % s.n for k in range(s.n)]


def _resolve_sharing(s: State, events: list) -> None:
    givers = [t for t in _clockwise(s, s.seat) if s.choices[t]]
    _swap(s, events, [(t, (t + 1) % s.n) for t in givers], "sharing")


def _swap(s: State, events: list, gifts: list[tuple[int, int]], why: str) -> None:
    """Every giver's chosen card leaves their hand, then reaches its receiver (all at once)."""
    for giver, _to in gifts:
        _take(s.hands[giver], s.choices[giver])
    for giver, to in gifts:
        _give_to(s, to, s.choices[giver])
        events.append(_event(s, "give", giver, to=to, card=s.choices[giver], why=why))


def _resolve_panic(s: State, events: list) -> None:
    contributors = [t for t in _clockwise(s, s.seat) if s.choices[t]]
    pool = []
    for t in contributors:
        card = s.choices[t]
        _take(s.hands[t], card)
        pool.append(card)
        events.append(_event(s, "contribute", t))
    events.append(_event(s, "panic_pool", s.seat, cards=in_order(pool)))
    s.rng, dealt = shuffle(s.rng, in_order(pool))
    for t, card in zip(contributors, dealt, strict=True):
        _give_to(s, t, card)
        events.append(_event(s, "panic_deal", t, card=card))


def _rumour(s: State, events: list, seat: int) -> None:
    """Every player takes a random card from their right neighbour's hand as the hands were
    before the effect (none from an empty hand), clockwise from the Rumour's player."""
    taken: list[tuple[int, int, str]] = []
    for t in _clockwise(s, seat):
        source = (t - 1) % s.n
        before = s.hands[source]
        if before:
            s.rng, k = below(s.rng, len(before))
            taken.append((t, source, before[k]))
    for _t, source, card in taken:
        _take(s.hands[source], card)
    for t, source, card in taken:
        _give_to(s, t, card)
        events.append(_event(s, "rumour", t, **{"from": source, "card": card}))


def _discard(s: State, events: list, player: int, card: str, forced: bool) -> None:
    """The Accomplice's target discards ``card`` face up, then draws (none from an empty pile);
    the Culprit as their last card ends the round at once, without a draw (§3)."""
    hand = s.hands[player]
    if card not in hand:
        raise IllegalMove(f"You have no {card} in your hand to discard.",
                          code="card_not_in_hand", card=card, action="discard")
    if not _discardable(hand, card):
        raise IllegalMove("The Culprit may be discarded only as the last card of your hand: "
                          "discard another card (S4).", code="culprit_not_last",
                          action="discard")
    _take(hand, card)
    s.discards.append(card)
    s.waiting = []
    events.append(_event(s, "discard", player, card=card, forced=forced))
    if card == "culprit":
        return _culprit_gone(s, events, player)
    drawn = s.pile.pop(0) if s.pile else None
    if drawn is not None:
        _give_to(s, player, drawn)
    events.append(_event(s, "draw", player, card=drawn))
    return _next_turn(s, events)


def _witness_exchange(s: State, events: list, player: int, card: str) -> None:
    if not _saw_suspect(s):
        raise IllegalMove("You may swap only if you saw the Culprit or an Accomplice in that "
                          "hand (§1): pass.", code="witness_nothing_seen")
    if card not in s.hands[player]:
        raise IllegalMove(f"You have no {card} in your hand to swap.", code="card_not_in_hand",
                          card=card, action="swap")
    target = s.effect_target
    s.choices[player] = card
    events.append(_event(s, "witness_exchange", player, target=target, exchanged=True))
    _ask(s, events, "give", [target])  # (the target's side; the swap resolves when given)


def _witness_pass(s: State, events: list, player: int) -> None:
    events.append(_event(s, "witness_exchange", player, target=s.effect_target,
                         exchanged=False))
    return _next_turn(s, events)


def _say(s: State, events: list, player: int, text: str) -> None:
    events.append(_event(s, "say", player, text=text))
    return _next_turn(s, events)


# End of an effect, next turn -------------------------------------------------------------------


def _next_turn(s: State, events: list) -> None:
    """The effect is over: the turn passes clockwise to the next seat with cards; seats without
    cards are skipped. [SH-5] A seat's protections end as its turn comes round, played or
    skipped. [SH-4] A hand of one card without a target choice is played at once."""
    s.effect, s.effect_target, s.witnessed = "", -1, None
    s.choices = [""] * s.n
    for k in range(1, s.n + 1):
        t = (s.seat + k) % s.n
        has_cards = bool(s.hands[t])
        events.append(_event(s, "turn" if has_cards else "skip", t))
        # [S7] the seat's protections end as its turn comes round, also when it is skipped.
        for kind in s.protected[t]:
            events.append(_event(s, "unprotect", t, kind=kind))
        s.protected[t] = []
        if not has_cards:
            continue
        s.seat = t
        s.decision, s.waiting = "turn", [t]
        hand = s.hands[t]
        if len(hand) == 1:
            (card,) = hand
            if card not in TARGETED or not targets(s, t, card, 0):
                return _play(s, events, t, card, None, forced=True)
        return None
    raise AssertionError("nobody holds a card, yet the Culprit is in a hand")  # pragma: no cover


# End of a round, of the game ---------------------------------------------------------------------


def _end_round(s: State, events: list, case: int, culprit: int, by: int | None) -> None:
    """§4: the round ends at once with ``case``; points (none in a flash game), then the end of
    the game or the next round. Nothing more of the move that ended it resolves: every caller
    returns at once (``return _end_round(...)``)."""
    n = s.n
    accomplices = [t for t in range(n) if "accomplice" in s.played[t]]
    side = {culprit, *accomplices}
    gained = [0] * n
    if case == 3:
        for t in side:
            gained[t] = 2  # [SH-6] a culprit who played an Accomplice scores once
    else:
        for t in range(n):
            if t not in side:
                gained[t] = 1
        if case in (1, 2) and by is not None and by not in side:
            gained[by] = 2 if case == 1 else 3
    if s.flash:
        gained = [0] * n
    s.points = [p + g for p, g in zip(s.points, gained, strict=True)]
    s.case = case
    entry = {"round": s.round, "case": case, "culprit": culprit, "accomplices": accomplices,
             "by": by, "gained": gained, "points": list(s.points)}
    s.rounds.append(entry)
    events.append(_event(s, "round_end", None, case=case, culprit=culprit,
                         accomplices=list(accomplices), by=by, gained=list(gained),
                         points=list(s.points)))
    if s.flash:
        winners = sorted(side) if case == 3 else [t for t in range(n) if t not in side]
        return _end_game(s, events, winners, "flash")
    if max(s.points) >= GOAL:
        best = max(s.points)
        return _end_game(s, events, [t for t in range(n) if s.points[t] == best], "points")
    return _start_round(s, events)


def _end_game(s: State, events: list, winners: list[int], reason: str) -> None:
    s.decision, s.waiting, s.seat = "over", [], -1
    s.effect, s.effect_target, s.witnessed = "", -1, None
    s.choices = [""] * s.n
    s.winners, s.reason = list(winners), reason
    events.append(_event(s, "end", None, winners=list(winners), players=list(winners),
                         reason=reason, points=list(s.points)))
