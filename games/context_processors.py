"""What every page may show of the games the site serves (the footer's credits)."""

from __future__ import annotations

from games import catalog


def game_kits(request) -> dict:
    return {"game_kits": catalog.kits()}
