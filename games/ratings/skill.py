"""The rating model: OpenSkill's Plackett-Luce (multiplayer, teams, ties), its parameters, and
the figure players see.

Pure functions over ``(mu, sigma)`` pairs; no Django. Changing a parameter here and running
``manage.py recompute_ratings`` rates every finished game again with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from openskill.models import PlackettLuce

#: The model's starting belief: the openskill defaults (mu 25, sigma 25/3).
MU = 25.0
SIGMA = 25.0 / 3.0
#: A rating is provisional until this many rated games.
PROVISIONAL_GAMES = 10
#: The figure shown: ``SHOWN_BASE + SHOWN_SCALE × (mu − 3σ)`` (a new player shows 1000).
SHOWN_BASE = 1000
SHOWN_SCALE = 20

Pair = tuple[float, float]


@cache
def model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative figure: ``mu − 3σ``."""
    return mu - 3.0 * sigma


def shown(value: float) -> int:
    """The figure a player sees for an ordinal."""
    return round(SHOWN_BASE + SHOWN_SCALE * value)


def initial() -> Pair:
    return MU, SIGMA


def rate(sides: Sequence[Sequence[Pair]], places: Sequence[int]) -> list[list[Pair]]:
    """The new ``(mu, sigma)`` of each player of each side, the sides having finished at
    ``places`` (0 the best; equal places a tie)."""
    m = model()
    teams = [[m.rating(mu=mu, sigma=sigma) for mu, sigma in side] for side in sides]
    rated = m.rate(teams, ranks=list(places))
    return [[(r.mu, r.sigma) for r in side] for side in rated]
