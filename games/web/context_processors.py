"""What every page may show of the games the site serves (the footer's credits) and of the
viewer's (how many await them: the title's "(n) " and the header's "Your turn (n)")."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from games.core import catalog, selectors


def game_kits(request) -> dict:
    user = getattr(request, "user", None)
    return {"game_kits": catalog.kits(),
            "your_turn": SimpleLazyObject(lambda: selectors.your_turn_count(user))}
