"""The protocol every game implements, and the errors it raises.

Nothing under ``games.engine`` imports Django: the engine is a library the site stores, serves and
schedules around (scalachess beside lichess). A game is one object of pure functions over plain,
JSON-ready data (boardgame.io's game object; OpenSpiel's ``legal_actions`` / ``apply_action``).

Vocabulary
----------
player
    An index 0..n-1 fixed for the whole game: the site's "seat position at sign-up". What a player
    has seen stays with the player (Mascarade R2): knowledge, moves and viewers are about players.
seat
    A place at the table, 0..n-1 clockwise, that owns a card and coins. In most games player ``p``
    always sits at seat ``p``; Mascarade's Puppeteer moves players between seats.
viewer
    Who a projection is for: a player index (``int``), :data:`SPECTATOR` (sees only what everyone
    at the table sees) or :data:`MODERATOR` (sees everything; the site shows it to moderators only
    and logs each opening).
move
    A JSON-ready ``dict`` with a ``"type"`` key, exactly as ``shared/API.md`` spells it.
event
    A JSON-ready ``dict`` with a ``"type"`` key that :meth:`Game.apply` returns; it has the whole
    truth and is only ever shown through :meth:`Game.view_event`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

SPECTATOR = "spectator"
MODERATOR = "moderator"

Viewer = int | str  # a player index, SPECTATOR or MODERATOR
Move = dict[str, Any]
Event = dict[str, Any]


#: The longest spelling :func:`spell` gives of a string, and the most digits it prints of an int.
SPELL_LIMIT = 40

_JSON_KINDS = {bool: "a boolean", float: "a number", list: "a list", dict: "an object",
               type(None): "null"}


def spell(value: Any) -> str:
    """A safe, short spelling of a client-sent value for an error message; every message that
    mentions such a value spells it with this.

    A string is quoted and cut at :data:`SPELL_LIMIT` characters; an int is printed when it has
    at most :data:`SPELL_LIMIT` digits, and described as "a number too large" beyond (Python
    refuses to print an int of more than 4,300 digits: an f-string would raise ``ValueError``);
    anything else is named by its JSON kind ("a boolean", "a list", ...), never printed (a list
    may be long or nested thousands deep).
    """
    if isinstance(value, str):
        text = repr(value[:SPELL_LIMIT + 1])
        return text if len(text) <= SPELL_LIMIT else text[:SPELL_LIMIT - 3] + "..."
    if isinstance(value, int) and not isinstance(value, bool):
        if -(10**SPELL_LIMIT) < value < 10**SPELL_LIMIT:
            return str(int(value))
        return "a number too large"
    return _JSON_KINDS.get(type(value), "a value")


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-ready data (dicts, lists, scalars): what a projection returns must
    share no list or dict with the state or with the event it was made from."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


class EngineError(Exception):
    """Base of every error the engine raises on purpose.

    ``code`` is a stable machine code (``"r5_revealed_last_turn"``); ``message`` is a sentence a
    player understands, naming the rule where there is one.
    """

    default_code = "engine_error"

    def __init__(self, message: str, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.extra = extra

    def __str__(self) -> str:
        return self.message


class InvalidOptions(EngineError):
    """The options cannot make a game. ``field`` names the offending option when there is one."""

    default_code = "invalid_options"

    def __init__(self, message: str, code: str | None = None, field: str | None = None, **extra):
        super().__init__(message, code, **extra)
        self.field = field


class MalformedMove(EngineError):
    """The move is not a move at all: unknown type, missing field, wrong type, out of range."""

    default_code = "malformed_move"


class IllegalMove(EngineError):
    """A well-formed move that the rules do not allow now."""

    default_code = "illegal_move"


class NotYourDecision(EngineError):
    """The game is not waiting for a decision from this player."""

    default_code = "not_your_decision"


class GameOver(IllegalMove):
    """The game has ended; no move is possible."""

    default_code = "game_over"


def move_fields(move: Any, fields: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """The type of a move and its fields' raw values, checked for shape only: ``move`` must be an
    object whose ``type`` is one of ``fields`` and which has exactly that type's fields
    (``fields[type]``, their names). Raises :class:`MalformedMove` (``not_an_object``,
    ``missing_field``, ``unknown_move_type``, ``unexpected_field``) with the same words in every
    game; each game then checks the values."""
    if not isinstance(move, dict):
        raise MalformedMove('A move must be a JSON object with a "type" field.',
                            code="not_an_object")
    mtype = move.get("type")
    if not isinstance(mtype, str) or mtype not in fields:
        known = ", ".join(fields)
        if "type" not in move:
            raise MalformedMove(f'A move needs a "type" field; known types: {known}.',
                                code="missing_field")
        raise MalformedMove(f"Unknown move type ({spell(mtype)}); known types: {known}.",
                            code="unknown_move_type")
    names = fields[mtype]
    for key in move:
        if key != "type" and key not in names:
            takes = ", ".join(repr(n) for n in names) or "no other field"
            raise MalformedMove(f"The {mtype!r} move has an unexpected field ({spell(key)}); it "
                                f"takes {takes}.", code="unexpected_field")
    for name in names:
        if name not in move:
            raise MalformedMove(f"The {mtype!r} move needs the field {name!r}.",
                                code="missing_field")
    return mtype, {name: move[name] for name in names}


@dataclass(frozen=True)
class Pending:
    """A decision the game waits for.

    ``decision`` is the kind the site shows and times: for Mascarade ``"prep"``, ``"turn"``,
    ``"challenge"`` or a power decision's move type (``"spy_swap"``, ``"guru_answer"``, ...).
    ``timer`` names the option that sets its deadline (``"move_timeout"`` or
    ``"challenge_timeout"``).
    """

    player: int
    seat: int
    decision: str
    timer: str = "move_timeout"

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "seat": self.seat, "decision": self.decision,
                "timer": self.timer}


@dataclass(frozen=True)
class Result:
    """The end of a game: winners as seats and as players (they differ after a Puppeteer).

    ``ranks`` and ``teams`` say how every player finished, for the ratings (each game's rules
    say it: nothing outside a game knows its scores): ``ranks[p]`` is player ``p``'s place, 0
    the best, equal places a tie; ``teams[p]`` the side ``p`` played on, players of one side
    sharing a number (their side's result is theirs). Empty ``ranks``: the winners share the
    first place and everyone else the second; empty ``teams``: each player plays for
    themself. :func:`standings` reads them."""

    winner_seats: tuple[int, ...]
    winner_players: tuple[int, ...]
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    ranks: tuple[int, ...] = ()
    teams: tuple[int, ...] = ()


def places(scores: list[int], first: Any = ()) -> tuple[int, ...]:
    """Places from scores (the higher the better), players in ``first`` (winners who need not
    have the best score: a Cheater's win) placed before everyone: equal scores share a place,
    and a place counts those before it (0, 0, 2)."""
    first = set(first)
    ranked = []
    for p, score in enumerate(scores):
        ahead = sum(1 for q, other in enumerate(scores) if q not in first and other > score)
        ranked.append(0 if p in first else len(first) + ahead)
    return tuple(ranked)


def standings(result: Result, players: int) -> list[tuple[tuple[int, ...], int]]:
    """The sides of a finished game and the place of each: ``[(players, place), ...]``, one per
    side (a player alone is a side of one), in the order of their first player. From the
    result's ``ranks`` and ``teams`` (see :class:`Result`)."""
    winners = set(result.winner_players)
    ranks = result.ranks or tuple(0 if p in winners else 1 for p in range(players))
    teams = result.teams or tuple(range(players))
    sides: dict[int, list[int]] = {}
    for p in range(players):
        sides.setdefault(teams[p], []).append(p)
    return [(tuple(members), min(ranks[p] for p in members)) for members in sides.values()]


@runtime_checkable
class Game(Protocol):
    """One game: data plus pure functions. No method mutates its arguments."""

    id: str
    min_players: int
    max_players: int

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Validate ``options`` and return them complete (defaults filled in), JSON-ready.

        Raises :class:`InvalidOptions` with a message per broken rule. Engine-level options only
        (site options such as timeouts are passed through unchanged when present).
        """

    def player_count(self, options: dict[str, Any]) -> int:
        """How many players normalized ``options`` seat."""

    def setup(self, options: dict[str, Any], seed: int) -> Any:
        """The initial state for normalized ``options``; all randomness flows from ``seed``."""

    def pending(self, state: Any) -> list[Pending]:
        """Every decision the game is waiting for now (empty once over)."""

    def legal_moves(self, state: Any, player: int) -> list[Move]:
        """Every concrete move ``player`` may send now (empty if none is awaited from them)."""

    def apply(self, state: Any, player: int, move: Move) -> tuple[Any, list[Event]]:
        """Apply ``move`` by ``player``: the new state and the events it caused.

        Raises :class:`MalformedMove`, :class:`NotYourDecision`, :class:`IllegalMove`.
        """

    def timeout_move(self, state: Any, player: int) -> Move:
        """The move played for ``player`` when their pending decision's deadline passes."""

    def view(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        """The state as ``viewer`` may know it: JSON-ready, nothing they could not know."""

    def view_event(self, event: Event, viewer: Viewer, state: Any) -> Event | None:
        """``event`` as ``viewer`` may see it, given the current ``state`` (memory rules such as
        Mascarade's ``log_masks`` depend on it); ``None`` when the viewer sees nothing of it."""

    def result(self, state: Any) -> Result | None:
        """``None`` while the game goes on."""

    def to_json(self, state: Any) -> dict[str, Any]:
        """Serialise a state; ``from_json(to_json(s)) == s``."""

    def from_json(self, data: dict[str, Any]) -> Any:
        """Rebuild a state from :meth:`to_json`."""


class ModuleGame:
    """The :class:`Game` protocol over a game's modules, for a game written as the three built
    ones are: ``rules_module`` (``setup``, ``pending``, ``legal_moves``, ``apply``,
    ``timeout_move``), ``views_module`` (``view``, ``view_event``), ``options_module``
    (``normalize_options``, whose result has ``players``) and ``state_class`` (``to_json`` and
    ``from_json``). A game subclasses it with its ``id``, ``min_players``, ``max_players``, those
    four and its own ``result`` (the protocol's :meth:`Game.result`: the end is each game's)."""

    id: str
    min_players: int
    max_players: int
    rules_module: Any
    views_module: Any
    options_module: Any
    state_class: Any

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return self.options_module.normalize_options(options)

    def player_count(self, options: dict[str, Any]) -> int:
        return self.normalize_options(options)["players"]

    def setup(self, options: dict[str, Any], seed: int) -> Any:
        return self.rules_module.setup(options, seed)

    def pending(self, state: Any) -> list[Pending]:
        return self.rules_module.pending(state)

    def legal_moves(self, state: Any, player: int) -> list[Move]:
        return self.rules_module.legal_moves(state, player)

    def apply(self, state: Any, player: int, move: Move) -> tuple[Any, list[Event]]:
        return self.rules_module.apply(state, player, move)

    def timeout_move(self, state: Any, player: int) -> Move:
        return self.rules_module.timeout_move(state, player)

    def view(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        return self.views_module.view(state, viewer)

    def view_event(self, event: Event, viewer: Viewer, state: Any) -> Event | None:
        return self.views_module.view_event(event, viewer, state)

    def to_json(self, state: Any) -> dict[str, Any]:
        return state.to_json()

    def from_json(self, data: dict[str, Any]) -> Any:
        return self.state_class.from_json(data)
