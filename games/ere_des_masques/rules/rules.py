"""L'Ère des Masques's rules: set-up, who is awaited, legal moves, applying a move, timeouts.

References (§n, En) are to ``shared/rules/ere-des-masques.md``. Every function is pure: ``apply``
works on :meth:`State.copy` and never changes the state it was given. All randomness (the
shuffles, the first player, the Brute's pick) comes from the seed through
:mod:`games.engine.rng`, whose state lives in the game state.

Decisions and moves
-------------------
=============== ===================== ============================================================
decision        timer                 moves
=============== ===================== ============================================================
``turn``        ``move_timeout``      ``{"type": "draw"}`` · ``{"type": "play", "card": kind}``
``respond``     ``challenge_timeout`` ``{"type": "let_pass"}`` · ``{"type": "counter", "kind":
                                      kind}`` (the opponent; counter only with a card in hand)
``discard``     ``move_timeout``      ``{"type": "discard", "card": kind}`` (the counterer)
``keep``        ``move_timeout``      ``{"type": "keep", "card": kind}`` (Recruiter)
``assassinate`` ``move_timeout``      ``{"type": "assassinate", "card": kind}`` (Assassin)
=============== ===================== ============================================================

:func:`parse_move` refuses anything else with :class:`MalformedMove` (not an object, unknown
type, missing or unexpected field, a kind that is not a string or not one of the five kinds). A
well-formed move the rules do not allow now raises :class:`IllegalMove` with a stable ``code``.

Rulings this engine makes (beyond E1–E5)
----------------------------------------
- **Revisions.** A game plays the rules' revision its options name (``revision``; options stored
  before revisions existed name none and play revision 1), so that a stored game replays from
  its seed and moves as it was played. Revision 1 is the rules before E3b and E5 (every decision
  below was asked of its player); revision 2, the latest, follows them. Nothing else differs.
- **Set-up.** The deck (shuffled, or the staff option ``deal``, top first) gives 2 cards face up to
  seat 0's zone, 2 to seat 1's, 5 to seat 0's hand, 5 to seat 1's; the other 26 are the pile. The
  set-up cards' powers do not apply and no victory is checked (2 cards cannot win). The first
  seat is drawn from the seed after the shuffle, unless ``first_seat`` is given.
- **Hands are sets.** A hand is kept in the order of §1, so nothing (the Brute's random pick, a
  view) ever depends on the order its cards were drawn in.
- **Draws** take the pile's top card one at a time. A draw that finds the pile empty first
  shuffles the whole discard pile (seeded) into a new pile (event ``reshuffle``); the discard is
  reshuffled only then, not as soon as the pile runs out. **[E2]** When both are empty the draw
  takes what there was and stops.
- **A counter** reveals the played card at once, before the counterer chooses their discard (they
  know whether they were right when they choose, as at a table). The counterer's discard goes to
  the discard pile first. *Wrong*: the played card is placed in its owner's zone, then its power
  applies for the owner. *Right*: the played card goes to the discard pile, then the discarded
  card's power applies for the counterer (so a reshuffle during that power includes both cards).
  Any kind may be named, even one whose eight copies are all in sight.
- **The Recruiter** draws up to 5 cards (fewer when the pile and the discard run out, E2) and holds
  them apart from the hand; its player keeps one whenever at least one was drawn, and the others
  go to the discard pile in the order of §1. With no card drawn nothing happens. **[E5]** A
  single card drawn is kept at once (revision 1 asked even then: a single legal move).
- **The Assassin** asks for a decision whenever the opponent's zone has a card; with an empty
  zone the power does nothing. Copies are identical: the copy removed is the last one laid of
  that kind. **[E5]** A zone of one kind loses that kind at once (revision 1 asked even then).
- **[E5] Decisions taken at once** (revision 2) are the rules' own: the move that led to them
  applies them in its resolution, with their usual events marked ``forced: true`` (``let_pass``;
  ``keep``; the Assassin's ``discard``), so the history shows them and no deadline runs for
  them. A player with an empty hand is still asked for their turn (drawing is then their only
  move, but the turn is theirs) and a counterer with one card for their discard (E5's list is
  exhaustive).
- **The Brute** discards a uniformly random (seeded) card of the opponent's hand; nothing when
  that hand is empty. The card is discarded face up, so which one is public.
- **The Spy** draws first, then sees the opponent's hand; the sighting is kept in the player's
  private memory with the move number (``seq``) it was made at.
- **Victory [E3]** is checked once the move's resolution is complete — the played card placed and
  its power fully resolved, including a Recruiter's or an Assassin's decision — and only then.
  Only a card placed in a zone can make that zone win; the Assassin only removes cards, so it
  cannot make its victim win, and a right counter (which places nothing) makes nobody win. As a
  zone gains one card at a time, both players can never win at once. **[E3b]** (revision 2) When
  the card just placed made its owner's zone win, a Recruiter's or an Assassin's power stops
  where it would ask for its decision (the Recruiter has drawn: those cards stay apart, kept by
  nobody) and the game ends there; a power that asks nothing resolves, then the game ends.
- **Stalemate.** A draw that takes no card (pile and discard empty) changes nothing. When two
  turns in a row end that way — each player declined to play while nothing could be drawn — the
  position can only repeat: the game ends with no winner, reason ``"stalemate"``. (It is what
  the timeouts alone lead to: two absent players draw the pile out, then pass.)
- **Turn limit.** To guarantee that every game ends, a game still going at the end of turn
  :data:`TURN_LIMIT` ends with no winner, reason ``"turn_limit"``. Played games end far sooner:
  random play within 20 turns on average (50 at most in 2,000 games), two heuristic bots within
  about 40 (about 110 at most).
"""

from __future__ import annotations

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
    COPIES,
    HAND_START,
    KINDS,
    PLAYERS,
    RECRUIT_DRAW,
    ZONE_START,
    distinct,
    in_order,
    victory,
)
from .options import normalize_options
from .state import State

#: A game still going at the end of this turn ends with no winner (``"turn_limit"``).
TURN_LIMIT = 300
#: This many turns in a row ended by a draw that took nothing end the game (``"stalemate"``).
IDLE_LIMIT = 2

#: Each move type's fields (every field is a card kind).
MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "draw": (),
    "play": ("card",),
    "let_pass": (),
    "counter": ("kind",),
    "discard": ("card",),
    "keep": ("card",),
    "assassinate": ("card",),
}
#: The move types each decision accepts.
DECISION_MOVES: dict[str, tuple[str, ...]] = {
    "turn": ("draw", "play"),
    "respond": ("let_pass", "counter"),
    "discard": ("discard",),
    "keep": ("keep",),
    "assassinate": ("assassinate",),
}
DECISIONS = tuple(DECISION_MOVES)


def timer(decision: str) -> str:
    """The option that sets ``decision``'s deadline."""
    return "challenge_timeout" if decision == "respond" else "move_timeout"


# --------------------------------------------------------------------------------------------
# Set-up


def setup(options: dict[str, Any], seed: int) -> State:
    """The initial state. Options are normalized here too; all randomness flows from ``seed``.
    The game plays the revision its options name, revision 1 when they name none (options stored
    before revisions existed: :func:`games.engine.options.played_revision`)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError("The seed must be an int.")
    opts = normalize_options(options)
    rng = seed_state(seed)
    deal = opts.get("deal")
    if deal is None:
        rng, deck = shuffle(rng, [kind for kind in KINDS for _ in range(COPIES)])
    else:
        deck = list(deal)
    first = opts.get("first_seat")
    if first is None:
        rng, first = below(rng, PLAYERS)
    zones = [deck[seat * ZONE_START:(seat + 1) * ZONE_START] for seat in range(PLAYERS)]
    start = PLAYERS * ZONE_START
    hands = [in_order(deck[start + seat * HAND_START:start + (seat + 1) * HAND_START])
             for seat in range(PLAYERS)]
    pile = deck[start + PLAYERS * HAND_START:]
    return State(
        first=first, rng=rng, seq=0, turn=1, seat=first, phase="turn", decider=first,
        pile=pile, discard=[], hands=hands, zones=zones, played="", revealed=False, counter="",
        power_seat=-1, power="", recruited=[], seen=[[] for _ in range(PLAYERS)], idle=0,
        winners=[], reason="", kind="", revision=played_revision(options),
    )


# --------------------------------------------------------------------------------------------
# Who is awaited


def pending(s: State) -> list[Pending]:
    if s.phase == "over":
        return []
    return [Pending(s.decider, s.decider, s.phase, timer(s.phase))]


def decision_of(s: State, player: Any) -> str | None:
    """The decision awaited from ``player`` now, or ``None`` (also for any junk ``player``)."""
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < PLAYERS:
        return None
    if s.phase == "over" or player != s.decider:
        return None
    return s.phase


# --------------------------------------------------------------------------------------------
# Legal moves and timeouts


def legal_moves(s: State, player: Any) -> list[dict[str, Any]]:
    """Every concrete move ``player`` may send now (kinds in §1 order); empty when nothing is
    awaited from them."""
    decision = decision_of(s, player)
    if decision is None:
        return []
    hand = s.hands[player]
    if decision == "turn":
        return [{"type": "draw"}, *({"type": "play", "card": k} for k in distinct(hand))]
    if decision == "respond":
        counters = [{"type": "counter", "kind": k} for k in KINDS] if hand else []
        return [{"type": "let_pass"}, *counters]
    if decision == "discard":
        return [{"type": "discard", "card": k} for k in distinct(hand)]
    if decision == "keep":
        return [{"type": "keep", "card": k} for k in distinct(s.recruited)]
    # assassinate
    return [{"type": "assassinate", "card": k} for k in distinct(s.zones[1 - player])]


def timeout_move(s: State, player: Any) -> dict[str, Any]:
    """The default move of §5 for ``player``'s pending decision."""
    if s.phase == "over":
        raise GameOver("The game is over: no more moves can be played (§2).")
    decision = decision_of(s, player)
    if decision is None:
        raise NotYourDecision("The game is not waiting for a decision from this player now.")
    if decision == "turn":
        return {"type": "draw"}
    if decision == "respond":
        return {"type": "let_pass"}
    # The first card in the order of §1: of the hand, of the cards drawn, of the opponent's zone.
    return legal_moves(s, player)[0]


# --------------------------------------------------------------------------------------------
# Parsing


def _malformed(message: str, code: str) -> MalformedMove:
    return MalformedMove(message, code=code)


def _kind(mtype: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _malformed(f"The {mtype!r} move's {name!r} must be a card kind: "
                         f"{', '.join(KINDS)}.", "wrong_type")
    if value not in KINDS:
        raise _malformed(f"{spell(value)} is not a card kind. Kinds: {', '.join(KINDS)}.",
                         "unknown_kind")
    return value


def parse_move(move: Any) -> tuple[str, list[str]]:
    """``(type, field values)`` of a well-formed move; :class:`MalformedMove` otherwise."""
    mtype, raw = move_fields(move, {t: list(names) for t, names in MOVE_FIELDS.items()})
    return mtype, [_kind(mtype, name, value) for name, value in raw.items()]


# --------------------------------------------------------------------------------------------
# Apply


def apply(state: State, player: Any, move: Any) -> tuple[State, list[dict[str, Any]]]:
    """Apply ``move`` by ``player``. Returns ``(new state, events)``; ``state`` is unchanged."""
    if state.phase == "over":
        raise GameOver("The game is over: no more moves can be played (§2).")
    mtype, values = parse_move(move)
    decision = decision_of(state, player)
    if decision is None:
        raise NotYourDecision(f"The game is not waiting for a decision from you now; it waits "
                              f"for seat {state.decider} ({state.phase}).",
                              seats=[state.decider], decision=state.phase)
    if mtype not in DECISION_MOVES[decision]:
        raise _wrong_move(decision)
    s = state.copy()
    s.seq += 1
    events: list[dict[str, Any]] = []
    _HANDLERS[mtype](s, events, player, *values)
    return s, events


def _wrong_move(decision: str) -> IllegalMove:
    message = {
        "turn": "It is your turn: draw 2 cards or play a card from your hand (§3).",
        "respond": "Your opponent played a card face down: let it pass or counter it by naming "
                   "a kind (§3).",
        "discard": "You countered: discard a card of your choice from your hand (§3).",
        "keep": "The Recruiter's power: keep one of the cards you drew (§1).",
        "assassinate": "The Assassin's power: choose a card of your opponent's zone to discard "
                       "(§1).",
    }[decision]
    return IllegalMove(message, code="wrong_move_now", decision=decision)


def _event(s: State, etype: str, seat: int | None, **fields: Any) -> dict[str, Any]:
    return {"type": etype, "seat": seat, "turn": s.turn, **fields}


def _end(s: State, events: list, winners: list[int], reason: str, kind: str = "") -> None:
    """The game ends: nothing more resolves (every caller returns at once: ``return _end(...)``).
    """
    s.phase, s.decider = "over", -1
    s.winners, s.reason, s.kind = list(winners), reason, kind
    details = {"kind": kind} if kind else {}
    # The event gets its own lists: the state's must not change when the event does.
    events.append(_event(s, "end", None, winners=list(winners), players=list(winners),
                         reason=reason, **details))


def _take(s: State, events: list, count: int) -> list[str]:
    """Up to ``count`` cards from the top of the pile, reshuffling the discard when the pile is
    empty (E2: fewer when both run out)."""
    got: list[str] = []
    while len(got) < count:
        if not s.pile:  # [E2b] only now that a card must be drawn, and the whole discard
            if not s.discard:
                break
            s.rng, s.pile = shuffle(s.rng, s.discard)
            s.discard = []
            events.append(_event(s, "reshuffle", None, count=len(s.pile)))
        got.append(s.pile.pop(0))
    return got


def _draw(s: State, events: list, seat: int, count: int, why: str) -> int:
    """``seat`` draws ``count`` cards into their hand; returns how many it got."""
    got = in_order(_take(s, events, count))
    s.hands[seat] = in_order(s.hands[seat] + got)
    events.append(_event(s, "draw", seat, count=len(got), cards=got, why=why))
    return len(got)


def _discard_event(s: State, events: list, seat: int, card: str, why: str, source: str,
                   by: int | None = None, forced: bool = False) -> None:
    fields: dict[str, Any] = {"card": card, "why": why, "from": source}
    if by is not None:
        fields["by"] = by
    events.append(_event(s, "discard", seat, **fields, **_forced(forced)))


# Turn ----------------------------------------------------------------------------------------


def _draw_turn(s: State, events: list, player: int) -> None:
    got = _draw(s, events, player, 2, "turn")
    s.idle = 0 if got else s.idle + 1  # [E4] a draw that took no card
    return _next_turn(s, events)


def _play(s: State, events: list, player: int, card: str) -> None:
    hand = s.hands[player]
    if card not in hand:
        raise IllegalMove(f"You have no {card} in your hand to play.", code="card_not_in_hand",
                          card=card, action="play")
    hand.remove(card)
    s.idle = 0  # [E4] a card played: no stalemate
    s.played, s.revealed, s.counter = card, False, ""
    s.phase, s.decider = "respond", 1 - player
    events.append(_event(s, "play", player, card=card))
    if s.revision >= 2 and not s.hands[1 - player]:
        # [E5] An empty hand can only let the card pass (hand sizes are public).
        return _let_pass(s, events, 1 - player, forced=True)


# Answer ---------------------------------------------------------------------------------------


def _reveal(s: State, events: list, right: bool | None) -> None:
    s.revealed = True
    fields: dict[str, Any] = {"card": s.played}
    if right is not None:
        fields["right"] = right
    events.append(_event(s, "reveal", s.seat, **fields))


def _place(s: State, events: list) -> str:
    """The revealed played card stays in its owner's zone."""
    card = s.played
    s.zones[s.seat].append(card)
    s.played, s.revealed = "", False
    events.append(_event(s, "place", s.seat, card=card))
    return card


def _let_pass(s: State, events: list, player: int, forced: bool = False) -> None:
    events.append(_event(s, "let_pass", player, **_forced(forced)))
    _reveal(s, events, None)
    card = _place(s, events)
    return _resolve(s, events, s.seat, card)


def _counter(s: State, events: list, player: int, kind: str) -> None:
    if not s.hands[player]:
        raise IllegalMove("You may counter only with at least one card in your hand: let the "
                          "card pass (§3).", code="counter_needs_card")
    s.counter = kind
    events.append(_event(s, "counter", player, kind=kind))
    _reveal(s, events, s.played == kind)
    s.phase, s.decider = "discard", player


def _discard(s: State, events: list, player: int, card: str) -> None:
    hand = s.hands[player]
    if card not in hand:
        raise IllegalMove(f"You have no {card} in your hand to discard.",
                          code="card_not_in_hand", card=card, action="discard")
    hand.remove(card)
    s.discard.append(card)
    _discard_event(s, events, player, card, "counter", "hand")
    if s.played == s.counter:
        # Right: the played card is discarded; the counterer's discarded card's power applies.
        # [E2c] The played card is discarded first, so a reshuffle during that power takes it.
        played = s.played
        s.discard.append(played)
        s.played, s.revealed = "", False
        _discard_event(s, events, s.seat, played, "countered", "played")
        return _resolve(s, events, player, card)
    # Wrong: the played card stays and its power applies for its owner.
    placed = _place(s, events)
    return _resolve(s, events, s.seat, placed)


# Powers --------------------------------------------------------------------------------------


def _resolve(s: State, events: list, seat: int, kind: str) -> None:
    """``kind``'s power applies for ``seat``; then, unless it waits for a decision, the turn
    ends."""
    events.append(_event(s, "power", seat, kind=kind))
    opponent = 1 - seat
    if kind == "noble":
        _draw(s, events, seat, 2, "noble")
    elif kind == "spy":
        _draw(s, events, seat, 1, "spy")
        hand = list(s.hands[opponent])
        s.seen[seat].append([s.seq, hand])
        events.append(_event(s, "spy", seat, target=opponent, hand=list(hand)))
    elif kind == "brute":
        hand = s.hands[opponent]
        if hand:
            s.rng, i = below(s.rng, len(hand))
            card = hand.pop(i)
            s.discard.append(card)
            _discard_event(s, events, opponent, card, "brute", "hand", by=seat)
    elif kind == "recruiter":
        got = in_order(_take(s, events, RECRUIT_DRAW))
        events.append(_event(s, "recruit", seat, count=len(got), cards=list(got)))
        if got:
            s.recruited = got
            if s.revision >= 2:
                won = victory(s.zones[seat])
                if won is not None:  # [E3b] no card to keep: the game is won
                    return _end(s, events, [seat], *won)
                if len(got) == 1:  # [E5] a single card drawn: it is kept
                    return _keep(s, events, seat, got[0], forced=True)
            return _ask(s, seat, kind, "keep")
    elif kind == "assassin" and s.zones[opponent]:
        if s.revision >= 2:
            won = victory(s.zones[seat])
            if won is not None:  # [E3b] no card to remove: the game is won
                return _end(s, events, [seat], *won)
            kinds = distinct(s.zones[opponent])
            if len(kinds) == 1:  # [E5] a zone of one kind: that kind goes
                return _assassinate(s, events, seat, kinds[0], forced=True)
        return _ask(s, seat, kind, "assassinate")
    return _finish(s, events)


def _ask(s: State, seat: int, kind: str, decision: str) -> None:
    """The power waits for its player's decision: the move's resolution stops here."""
    s.power_seat, s.power = seat, kind
    s.phase, s.decider = decision, seat


def _forced(forced: bool) -> dict[str, Any]:
    """The field of an event that a decision taken at once for its player [E5] carries:
    ``forced: true`` (absent when the player chose)."""
    return {"forced": True} if forced else {}


def _keep(s: State, events: list, player: int, card: str, forced: bool = False) -> None:
    if card not in s.recruited:
        raise IllegalMove(f"There is no {card} among the cards you drew: keep one of "
                          f"{', '.join(distinct(s.recruited))} (§1).", code="card_not_recruited",
                          card=card, cards=distinct(s.recruited))
    rest = list(s.recruited)
    rest.remove(card)
    s.recruited = []
    s.hands[player] = in_order([*s.hands[player], card])
    events.append(_event(s, "keep", player, card=card, **_forced(forced)))
    for other in rest:
        s.discard.append(other)
        _discard_event(s, events, player, other, "recruiter", "drawn")
    return _finish(s, events)


def _assassinate(s: State, events: list, player: int, card: str, forced: bool = False) -> None:
    victim = 1 - player
    zone = s.zones[victim]
    if card not in zone:
        raise IllegalMove(f"There is no {card} in your opponent's zone: choose one of "
                          f"{', '.join(distinct(zone))} (§1).", code="card_not_in_zone",
                          card=card, cards=distinct(zone))
    del zone[len(zone) - 1 - zone[::-1].index(card)]  # the last one laid of that kind
    s.discard.append(card)
    _discard_event(s, events, victim, card, "assassin", "zone", by=player, forced=forced)
    return _finish(s, events)


# End of a turn ---------------------------------------------------------------------------------


def _finish(s: State, events: list) -> None:
    """The move's resolution is complete: [E3] check the zones, then pass the turn."""
    s.played, s.revealed, s.counter = "", False, ""
    s.power_seat, s.power, s.recruited = -1, "", []
    for seat in (s.seat, 1 - s.seat):
        won = victory(s.zones[seat])
        if won is not None:
            return _end(s, events, [seat], *won)
    return _next_turn(s, events)


def _next_turn(s: State, events: list) -> None:
    # [E4] Stalemate (two turns in a row ended by a draw that took nothing), turn limit.
    if s.idle >= IDLE_LIMIT:
        return _end(s, events, [], "stalemate")
    if s.turn >= TURN_LIMIT:
        return _end(s, events, [], "turn_limit")
    s.turn += 1
    s.seat = 1 - s.seat
    s.phase, s.decider = "turn", s.seat
    events.append(_event(s, "turn", s.seat, player=s.seat))


_HANDLERS = {
    "draw": _draw_turn,
    "play": _play,
    "let_pass": _let_pass,
    "counter": _counter,
    "discard": _discard,
    "keep": _keep,
    "assassinate": _assassinate,
}
