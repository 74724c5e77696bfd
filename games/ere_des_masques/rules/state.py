"""The L'Ère des Masques state: one flat, slotted dataclass of ints, strings and short lists.

The state is the whole truth (both hands, the draw pile's order, the face-down card, the generator
state): the site stores it and never shows it; :mod:`.views` is the only projection. It holds no
event history: ``apply`` returns the events and the site stores them. Player ``p`` always sits at
seat ``p``, so seats and players are the same numbers.

Fields (``to_json`` writes them under these names, lists as JSON arrays):

================  ==================================================================================
``first``         the seat that played the first turn
``rng``           SplitMix64 generator state (an int, :mod:`games.engine.rng`); secret
``seq``           number of moves applied so far (the move number a Spy's sighting is tied to)
``turn``          turn number, 1-based
``seat``          the seat whose turn it is
``phase``         the decision awaited: ``"turn"``, ``"respond"``, ``"discard"``, ``"keep"``,
                  ``"assassinate"``; ``"over"`` once the game has ended
``decider``       the seat whose decision is awaited, or -1 once over
``pile``          the draw pile, top first; secret (only its size is public)
``discard``       the discard pile, oldest first; public
``hands``         each seat's hand, in the order of §1; secret (sizes are public)
``zones``         each seat's play zone, in the order the cards were laid; public
``played``        the card played this turn while it is face down or revealed but not yet placed
                  or discarded, else ``""``; secret until revealed
``revealed``      whether ``played`` has been revealed (a counter reveals it before the discard)
``counter``       the kind the opponent named when countering this turn, else ``""``
``power_seat``    the seat a power awaiting a decision (Recruiter, Assassin) resolves for, or -1
``power``         that power's kind, or ``""``
``recruited``     the cards a Recruiter drew and its owner chooses from, in §1 order (once over
                  after E3b, the cards it drew before the game ended, kept by nobody); secret
``seen``          per seat, the Spy's sightings of the opponent's hand: ``[seq, hand]`` (hand in §1
                  order), oldest first; each is its seat's private knowledge
``idle``          consecutive turns ended by a draw that took no card (see the stalemate ruling in
                  :mod:`.rules`)
``winners``       winning seats once over (empty when the game ended without a winner)
``reason``        ``"four_of_a_kind"``, ``"five_kinds"``, ``"stalemate"`` or ``"turn_limit"``;
                  ``""`` before the end
``kind``          the kind of a four-of-a-kind victory, else ``""``
``revision``      the rules' revision the game plays (its option ``revision``: 1, or 2 for rulings
                  E3b and E5); a snapshot stored before revisions existed has none and is of a
                  revision 1 game
================  ==================================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from games.engine.options import FIRST_REVISION


@dataclass(slots=True)
class State:
    first: int
    rng: int
    seq: int
    turn: int
    seat: int
    phase: str
    decider: int
    pile: list[str]
    discard: list[str]
    hands: list[list[str]]
    zones: list[list[str]]
    played: str
    revealed: bool
    counter: str
    power_seat: int
    power: str
    recruited: list[str]
    seen: list[list[list[Any]]]
    idle: int
    winners: list[int]
    reason: str
    kind: str
    revision: int

    def copy(self) -> State:
        """A deep copy: ``apply`` changes it freely without touching ``self``."""
        return State.from_json(self.to_json())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict sharing nothing mutable with the state."""
        data: dict[str, Any] = {name: getattr(self, name) for name in _SCALARS}
        for name in _FLAT_LISTS:
            data[name] = list(getattr(self, name))
        data["hands"] = [list(hand) for hand in self.hands]
        data["zones"] = [list(zone) for zone in self.zones]
        data["seen"] = [[[seq, list(hand)] for seq, hand in entries] for entries in self.seen]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> State:
        values: dict[str, Any] = {name: data[name] for name in _SCALARS if name != "revision"}
        values["revision"] = data.get("revision", FIRST_REVISION)
        for name in _FLAT_LISTS:
            values[name] = list(data[name])
        values["hands"] = [list(hand) for hand in data["hands"]]
        values["zones"] = [list(zone) for zone in data["zones"]]
        values["seen"] = [[[seq, list(hand)] for seq, hand in entries]
                          for entries in data["seen"]]
        return cls(**values)


_FIELDS = tuple(f.name for f in fields(State))
_FLAT_LISTS = ("pile", "discard", "recruited", "winners")
_NESTED = ("hands", "zones", "seen")
_SCALARS = tuple(name for name in _FIELDS if name not in _FLAT_LISTS + _NESTED)
