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
``culprit_seen``  per seat, a :class:`CulpritSeen` when its Little one showed it the Culprit's
                  holder this round, else ``None``; private to that seat. JSON: ``[seat, seq]``
                  or ``[]``
``witnessed``     a :class:`Witnessed` while a Witness's effect resolves (the hand its player
                  saw), else ``None``; private to the Witness's player. JSON: ``[target, hand,
                  seq]`` or ``[]``
``rounds``        the rounds played: ``{"round", "case", "culprit", "accomplices", "by",
                  "gained", "points"}``, oldest first; public
``deals``         the staff option ``deal``'s box orders for the rounds still to come; secret
``winners``       the winning seats once over
``reason``        ``"points"`` or ``"flash"`` once over, else ``""``
``case``          the case (§4) of the last round ended, 0 before
``revision``      the rules' revision the game plays (its option ``revision``: 1, or 2 for ruling
                  S6); a snapshot stored before revisions existed has none and is of a revision
                  1 game
================  ==================================================================================

The JSON form of ``culprit_seen`` and ``witnessed`` is the one snapshots were stored with before
they were named records, so those snapshots still load.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from games.engine.options import FIRST_REVISION


@dataclass(frozen=True, slots=True)
class CulpritSeen:
    """What a Little one showed its player: the seat holding the Culprit, at move ``seq``."""

    seat: int
    seq: int

    def to_json(self) -> list[int]:
        return [self.seat, self.seq]


@dataclass(frozen=True, slots=True)
class Witnessed:
    """What a Witness's player saw while its effect resolves: ``target``'s hand (§1 order), at
    move ``seq``."""

    target: int
    hand: tuple[str, ...]
    seq: int

    def to_json(self) -> list[Any]:
        return [self.target, list(self.hand), self.seq]


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
    culprit_seen: list[CulpritSeen | None]
    witnessed: Witnessed | None
    rounds: list[dict[str, Any]]
    deals: list[list[str]]
    winners: list[int]
    reason: str
    case: int
    revision: int

    def copy(self) -> State:
        """A deep copy: ``apply`` changes it freely without touching ``self`` (the named records
        are immutable: shared)."""
        values = _copied(self.__getattribute__)
        values["culprit_seen"] = list(self.culprit_seen)
        values["witnessed"] = self.witnessed
        return State(**values)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict sharing nothing mutable with the state."""
        data = _copied(self.__getattribute__)
        data["culprit_seen"] = [[] if seen is None else seen.to_json()
                                for seen in self.culprit_seen]
        data["witnessed"] = [] if self.witnessed is None else self.witnessed.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        values = _copied(data.__getitem__, data.get("revision", FIRST_REVISION))
        values["culprit_seen"] = [CulpritSeen(*seen) if seen else None
                                  for seen in data["culprit_seen"]]
        witnessed = data["witnessed"]
        values["witnessed"] = (Witnessed(witnessed[0], tuple(witnessed[1]), witnessed[2])
                               if witnessed else None)
        return cls(**values)


def _copied(get: Any, revision: int | None = None) -> dict[str, Any]:
    """Every field but the named records (``get(name)``), lists copied to the depth they have:
    the rounds' entries are flat dicts of ints and lists of ints (copied faster than by a
    generic deep copy). ``revision``: the value to take instead of ``get("revision")`` (a
    snapshot stored before revisions has none)."""
    values: dict[str, Any] = {name: get(name) for name in _SCALARS}
    values["revision"] = get("revision") if revision is None else revision
    for name in _FLAT_LISTS:
        values[name] = list(get(name))
    for name in _NESTED:
        values[name] = [list(item) for item in get(name)]
    values["rounds"] = [{key: list(value) if isinstance(value, list) else value
                         for key, value in entry.items()} for entry in get("rounds")]
    return values


_FIELDS = tuple(f.name for f in fields(State))
_FLAT_LISTS = ("waiting", "choices", "pile", "discards", "points", "winners")
_NESTED = ("hands", "played", "protected", "deals")
_SCALARS = tuple(name for name in _FIELDS if name not in (
    *_FLAT_LISTS, *_NESTED, "culprit_seen", "witnessed", "rounds", "revision"))
