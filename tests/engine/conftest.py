"""Hypothesis profiles for the engine tests, and the property-test figures they print.

- ``ci`` (the default): bounded, so that the property tests take well under a minute.
- ``thorough``: at least 10,000 whole games per property test, no time limit::

      HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/engine/test_properties.py -q

One hypothesis example is one whole game; the games played, moves and failures are counted in
:data:`GAME_STATS` and printed at the end of the run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Filled by the property tests: games played, moves applied, games that failed, seconds.
GAME_STATS: dict[str, float] = {"games": 0, "moves": 0, "failed": 0, "seconds": 0.0}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if GAME_STATS["games"]:
        terminalreporter.write_line(
            f"mascarade property games ({settings.default.max_examples} examples per test, "
            f"profile {os.environ.get('HYPOTHESIS_PROFILE', 'ci')}): "
            f"{int(GAME_STATS['games'])} games, {int(GAME_STATS['moves'])} moves, "
            f"{int(GAME_STATS['failed'])} failed, {GAME_STATS['seconds']:.1f} s in games"
        )
