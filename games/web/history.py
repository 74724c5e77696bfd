"""The table's past: a finished game replayed to one of its moves (``?at=``), and the history's
lines before the page's window (``?history=all``)."""

from __future__ import annotations

import copy
from typing import Any

from games.core import catalog, selectors
from games.core.kit import history_lines


def at_move(loaded: selectors.Loaded, at: int) -> selectors.Loaded:
    """A finished game as it stood after move ``at``: the stored records up to it replayed
    (rules and table moves alike); the page then shows that state through the same projection
    for the same viewer, with the history up to that move."""
    from games.engine import replay_records
    from games.models import MoveRecord

    game = loaded.game
    records = (MoveRecord.objects.filter(game_id=game.pk, seq__lte=at).order_by("seq")
               .values_list("seat__position", "payload"))
    state, _table, _events = replay_records(catalog.get_game(game.kind), game.options, game.seed,
                                            list(records))
    past = copy.copy(game)
    past.seq = at
    return selectors.Loaded(game=past, seats=loaded.seats, state=state, pending=[])


def older_history(request, loaded: selectors.Loaded, context: dict[str, Any]) -> list[dict]:
    """The history's lines before its window (``?history=all``), oldest first as the window's,
    from the game's opening: the whole history projected (so that a past sentence names who sat
    at a seat then), only on request."""
    upto = context["history_start"]
    if not context["state"] or upto <= 0:
        return []
    kit = context["kit"]
    names = {seat["seat"]: seat["player"] for seat in context["seats"]}
    events = selectors.events_payload(loaded, request.user, 0,
                                      limit=max(1, loaded.game.seq))["results"]
    opening = selectors.opening_events(loaded, request.user)
    return [line for line in history_lines(kit, opening + events, names,
                                           selectors.stand_ins(loaded, 0, upto))
            if line["seq"] <= upto]
