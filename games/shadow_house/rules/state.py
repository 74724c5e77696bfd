"""The Shadow House Mascarade state: one flat, slotted dataclass of ints, strings and short lists.

The state is the whole truth (every hand, the pile's order, the simultaneous choices, the
generator state): the site stores it and never shows it; :mod:`.views` is the only projection.
It holds no event history: ``apply`` returns the events and the site stores them. Player ``p``
always sits at seat ``p``, so seats and players are the same numbers.

Fields (``to_json`` writes them under these names, lists as JSON arrays):

================  ==================================================================================
``n``             the number of players (3 to 8)
``flash``         the ``flash`` option: one round, no points
``rng``           SplitMix64 generator state (an int, :mod:`games.engine.rng`); secret
``seq``           number of moves applied so far (the view's ``turn``)
``round``         the round, 1-based
``decision``      the decision awaited: ``"turn"``, ``"discard"``, ``"give"``, ``"contribute"``,
                  ``"witness"``, ``"say"``; ``"over"`` once the game has ended
``waiting``       the seats whose decision is awaited, ascending (several for a simultaneous
                  choice; a seat leaves once it has chosen)
``seat``          the seat whose turn it is (whose card resolves during an effect), -1 once over
``effect``        the card whose effect waits for decisions, or ``""``
``effect_target`` that effect's target seat, or -1
``choices``       per seat, the card chosen for the simultaneous effect resolving (Sharing,
                  Panic, Exchange, the Witness's swap) or ``""``; secret (``chosen`` is public)
``hands``         each seat's hand, in the order of §1; secret (sizes are public)
``pile``          the draw pile, top first; secret (its size is public)
``played``        per seat, the cards played face up this round, in order; public
``discards``      the cards discarded for an Accomplice this round, oldest first; public
``handcuffs``     the seat holding the Handcuffs, or -1
``protected``     per seat, the protections in force (``"maid"``, ``"governess"``); public
``points``        per seat, the points so far (all 0 in a flash game)
``culprit_seen``  per seat, ``[seat, seq]`` when its Little one showed it the Culprit's holder
                  this round, else ``[]``; private to that seat
``witnessed``     ``[target, hand, seq]`` while a Witness's effect resolves (the hand its player
                  saw), else ``[]``; private to the Witness's player
``rounds``        the rounds played: ``{"round", "case", "culprit", "accomplices", "by",
                  "gained", "points"}``, oldest first; public
``deals``         the staff option ``deal``'s box orders for the rounds still to come; secret
``winners``       the winning seats once over
``reason``        ``"points"`` or ``"flash"`` once over, else ``""``
``case``          the case (§4) of the last round ended, 0 before
================  ==================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from games.engine.base import copy_json


@dataclass(slots=True)
class State:
    n: int
    flash: bool
    rng: int
    seq: int
    round: int
    decision: str
    waiting: list[int]
    seat: int
    effect: str
    effect_target: int
    choices: list[str]
    hands: list[list[str]]
    pile: list[str]
    played: list[list[str]]
    discards: list[str]
    handcuffs: int
    protected: list[list[str]]
    points: list[int]
    culprit_seen: list[list[int]]
    witnessed: list[Any]
    rounds: list[dict[str, Any]]
    deals: list[list[str]]
    winners: list[int]
    reason: str
    case: int

    def copy(self) -> State:
        """A deep copy: ``apply`` changes it freely without touching ``self``."""
        return State(**_copied(self.__getattribute__))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict sharing nothing mutable with the state."""
        return _copied(self.__getattribute__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        return cls(**_copied(data.__getitem__))


def _copied(get: Any) -> dict[str, Any]:
    """Every field (``get(name)``), lists copied to the depth they have: the rounds' entries are
    flat dicts of ints and lists of ints (copied faster than by a generic deep copy)."""
    values: dict[str, Any] = {name: get(name) for name in _SCALARS}
    for name in _FLAT_LISTS:
        values[name] = list(get(name))
    for name in _NESTED:
        values[name] = [list(item) for item in get(name)]
    values["witnessed"] = copy_json(get("witnessed"))
    values["rounds"] = [{key: list(value) if isinstance(value, list) else value
                         for key, value in entry.items()} for entry in get("rounds")]
    return values


_FIELDS = tuple(f.name for f in fields(State))
_FLAT_LISTS = ("waiting", "choices", "pile", "discards", "points", "winners")
_NESTED = ("hands", "played", "protected", "culprit_seen", "deals")
_SCALARS = tuple(name for name in _FIELDS
                 if name not in (*_FLAT_LISTS, *_NESTED, "witnessed", "rounds"))
