"""The games this site serves: one registry from a game id to its rules and its presentation.

Each game is a package, ``games/<game>/``: its pure rules in ``rules/`` (the protocol of
:mod:`games.engine.base`) and its presentation beside them (a :class:`games.core.kit.GameKit`). The
package is a Django application whose ``ready()`` registers its kit here; adding a game is adding
its package and its line in ``INSTALLED_APPS`` (the README, "Adding a game"). Nothing outside a
game's package imports it: the rest of the site asks this module, by id.

The order of registration (that of ``INSTALLED_APPS``) is the order the site lists the games in;
the first one is the default where a page does not say which game it is about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.engine.base import Game, InvalidOptions, spell
from games.engine.bots import Bot, RandomBot

if TYPE_CHECKING:
    from games.core.kit import GameKit

_KITS: dict[str, GameKit] = {}

#: Every game has the random bot; its kit may add others (``GameKit.bots``).
RANDOM_BOT = "random"
#: The bot a seat gets when nobody chose one: the game's that plays from what its player knows
#: (a game without one plays the random bot).
DEFAULT_BOT = "heuristic"


def register(kit: GameKit) -> None:
    """Add a game (called by its application's ``ready()``; registering it again replaces it)."""
    if kit.id != kit.rules.id:
        raise ValueError(f"The kit {kit.id!r} carries the rules of {kit.rules.id!r}.")
    _KITS[kit.id] = kit


def ids() -> list[str]:
    """The registered games' ids, in the site's order."""
    return list(_KITS)


def kits() -> list[GameKit]:
    return list(_KITS.values())


def default_id() -> str:
    return next(iter(_KITS))


def _unknown(game_id) -> InvalidOptions:
    known = ", ".join(_KITS)
    return InvalidOptions(f"Unknown game {spell(game_id)}; known games: {known}.",
                          code="unknown_game", field="game")


def get_kit(game_id: str) -> GameKit:
    if isinstance(game_id, str) and game_id in _KITS:
        return _KITS[game_id]
    raise _unknown(game_id)


def find_kit(game_id) -> GameKit | None:
    """The kit of ``game_id``, or ``None`` for an unknown one (a page's ``?game=``)."""
    return _KITS.get(game_id) if isinstance(game_id, str) else None


def get_game(game_id: str) -> Game:
    """The rules of ``game_id``; :class:`InvalidOptions` (``unknown_game``) for any other."""
    return get_kit(game_id).rules


def bot_kinds() -> list[str]:
    """Every bot kind some game offers (a game without a kind of its own plays the random
    bot in its place)."""
    kinds = {RANDOM_BOT}
    for kit in _KITS.values():
        kinds.update(kit.bots)
    return sorted(kinds)


def get_bot(game_id: str, kind: str = DEFAULT_BOT) -> Bot:
    """The bot of ``kind`` for ``game_id``: the game's own, or the random bot for a kind the game
    does not have. :class:`InvalidOptions` (``unknown_bot``) for a kind no game offers."""
    if kind not in bot_kinds():
        raise InvalidOptions(f"Unknown bot kind {spell(kind)}; choose one of "
                             f"{', '.join(bot_kinds())}.", code="unknown_bot", field="bot")
    factory = get_kit(game_id).bots.get(kind)
    return factory() if factory is not None else RandomBot()
