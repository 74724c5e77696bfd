"""The Mascarade state: one flat, slotted dataclass of ints, strings and short lists.

The state is the whole truth (every card, secret decisions, the generator state): it is stored by
the site and never shown; :mod:`.views` is the only projection. It holds no event history; events
are returned by ``apply`` and stored by the site.

Slots: cards live in *slots* ``0..n-1`` (the seats) then ``n..n+center-1`` (the center slots,
named ``"center-0"``, ``"center-1"`` in moves and views).

Fields (``to_json`` writes them under these names, lists as JSON arrays):

====================  =============================================================================
``n``                 number of players (= seats)
``center``            number of center slots (0, 1 or 2)
``masks``             the masks in play (scenario order, the Peasant twice when present)
``simultaneous``      challenge mode: ``True`` for ``"simultaneous"``
``log_masks``         the ``log_masks`` option
``deal``              the starting deal, one mask per slot (public, R4)
``first``             the first seat
``rng``               SplitMix64 generator state (an int; see :mod:`games.engine.rng`); secret
``seq``               number of moves applied so far
``turn``              turn number, 1-based; turns 1–4 are the preparatory turns
``seat``              the seat whose turn it is
``phase``             ``"prep"``, ``"turn"``, ``"challenge"``, ``"power"`` or ``"over"``
``cards``             the mask in each slot; secret
``coins``             coins of each seat
``justice``           coins on the Justice board
``seat_of``           player → seat
``at``                seat → player (the inverse of ``seat_of``)
``ann_seat``          the announcing seat, or -1 when there is no announcement
``ann_mask``          the announced mask, or ``""``
``claims``            seats that claimed (clockwise from the announcer's left once the window
                      closed)
``passes``            seats that passed
``revealed``          seats revealed by this announcement's challenge (announcer first, then
                      clockwise)
``todo``              revealed holders whose power is still to be applied after the current one
``fined_players``     players revealed by the challenge without the announced mask (announcer
                      first): each pays a fine once the powers are done (R6), from the seat they
                      occupy then (R8)
``decision``          the power decision awaited (``"spy"``, ``"guru_answer"``, ...) or ``""``
``holder``            the seat applying the power that awaits a decision, or -1
``target``            the power's chosen target seat (Spy, Guru, Gambler), or -1
``hidden``            the Gambler's hidden coin count while the guess is awaited (secret), else 0
``rev_prev_players``  players made to reveal their card during the previous turn: they may not
                      announce this turn (R5), whatever seat they occupy now
``rev_cur_players``   players made to reveal their card during the current turn
``know``              per player, private sights: ``[seq, slot, mask, how]``, how
                      ``"look"``/``"spy"``
``shown``             Princess reveals: ``[seq, slot, mask, player who did not see it]``
``public``            per slot, the last time its card was public: ``[seq, mask]`` (seq 0: the
                      deal)
``moved``             per slot, the seq of the last move that may have moved its card (an
                      exchange, a Spy's swap or not, a Fool's: everyone sees which cards went
                      under the table, not whether they were swapped); 0 when none has since
                      the deal
``winners``           winning seats once over
``reason``            why the game ended: ``"thirteen"``, ``"ruin"`` or ``"cheater"``; ``""``
                      before
====================  =============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(slots=True)
class State:
    n: int
    center: int
    masks: tuple[str, ...]
    simultaneous: bool
    log_masks: bool
    deal: tuple[str, ...]
    first: int
    rng: int
    seq: int
    turn: int
    seat: int
    phase: str
    cards: list[str]
    coins: list[int]
    justice: int
    seat_of: list[int]
    at: list[int]
    ann_seat: int
    ann_mask: str
    claims: list[int]
    passes: list[int]
    revealed: list[int]
    todo: list[int]
    fined_players: list[int]
    decision: str
    holder: int
    target: int
    hidden: int
    rev_prev_players: list[int]
    rev_cur_players: list[int]
    know: list[list[list[Any]]]
    shown: list[list[Any]]
    public: list[list[Any]]
    moved: list[int]
    winners: list[int]
    reason: str

    def copy(self) -> State:
        """A copy whose lists can be changed without touching ``self``.

        Inner lists (knowledge entries, ``public`` entries) are never changed in place, only
        replaced, so the outer lists are copied and the entries shared.
        """
        new = object.__new__(State)
        for name in _SCALARS:
            object.__setattr__(new, name, getattr(self, name))
        for name in _LISTS:
            object.__setattr__(new, name, list(getattr(self, name)))
        return new

    def slot_name(self, slot: int) -> int | str:
        """A slot as moves and views spell it: a seat number or ``"center-k"``."""
        return slot if slot < self.n else f"center-{slot - self.n}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict sharing nothing mutable with the state."""
        data: dict[str, Any] = {name: getattr(self, name) for name in _FIELDS}
        data["masks"] = list(self.masks)
        data["deal"] = list(self.deal)
        for name in _FLAT_LISTS:
            data[name] = list(data[name])
        data["know"] = [[list(e) for e in entries] for entries in self.know]
        data["shown"] = [list(e) for e in self.shown]
        data["public"] = [list(e) for e in self.public]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        values = {name: data[name] for name in _FIELDS}
        values["masks"] = tuple(data["masks"])
        values["deal"] = tuple(data["deal"])
        for name in _FLAT_LISTS:
            values[name] = list(data[name])
        values["know"] = [[list(e) for e in entries] for entries in data["know"]]
        values["shown"] = [list(e) for e in data["shown"]]
        values["public"] = [list(e) for e in data["public"]]
        return cls(**values)


_FIELDS = tuple(f.name for f in fields(State))
_LISTS = ("cards", "coins", "seat_of", "at", "claims", "passes", "revealed", "todo",
          "fined_players", "rev_prev_players", "rev_cur_players", "know", "shown", "public",
          "moved", "winners")
_FLAT_LISTS = tuple(name for name in _LISTS if name not in ("know", "shown", "public"))
_SCALARS = tuple(name for name in _FIELDS if name not in _LISTS)
