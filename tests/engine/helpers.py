"""Mascarade's scripting helpers moved with its tests to ``games/mascarade/tests/helpers.py``;
this name stays for ``tests/site/test_commands.py``, which reads Mascarade's explore option sets
(:data:`EXPLORE_OPTIONS`) from here. New code imports them from the game's tests."""

from __future__ import annotations

from games.mascarade.tests.helpers import EXPLORE_OPTIONS

__all__ = ["EXPLORE_OPTIONS"]
