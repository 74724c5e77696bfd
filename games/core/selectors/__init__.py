"""Reads: a game's engine state, and everything a viewer may see of it.

Every answer about a game goes through the engine's projection for its viewer
(:mod:`.projections`): the site's single projection point. The modules, by what they read:

- :mod:`.state` — the engine state, from the snapshot and the moves after it;
- :mod:`.loading` — a game loaded for a viewer (its seats, state, pending decisions), and
  whether they may see it;
- :mod:`.projections` — what a viewer may see of a game: the payloads, its events, its legal
  moves, the ETag;
- :mod:`.listings` — lists of games;
- :mod:`.vacations` — vacations as spans of time;
- :mod:`.chat` — the table chat as a viewer reads it.

Callers read through this package (``selectors.game_payload``...), which names each module's
public reads.
"""

from __future__ import annotations

from games.core.selectors.chat import (
    CHAT_CONTEXT,
    CHAT_PAGE_MESSAGES,
    chat_context,
    chat_messages,
    chat_payload,
    chat_version,
    latest_chat,
)
from games.core.selectors.estimates import length_estimate, length_estimates
from games.core.selectors.listings import (
    awaited_by_game,
    games_of,
    invitations_of,
    invited_to,
    next_deadlines,
    pending_by_game,
    public_games,
    seats_by_game,
    your_turn_count,
)
from games.core.selectors.loading import (
    Loaded,
    can_see,
    complete,
    days,
    find_and_load,
    find_game,
    game_queryset,
    load_for_viewer,
    pending_of,
    seats_and_pending,
    seats_by_id,
    seats_of,
    seats_with_vacations,
)
from games.core.selectors.projections import (
    EVENTS_PAGE_MOVES,
    etag,
    events_payload,
    game_payload,
    legal_moves_for,
    legal_moves_payload,
    opening_events,
    own_moves_since,
    pause_of,
    player_view,
    players_payload,
    raw_events,
    site_seq,
    stand_ins,
    state_payload,
    summary_payload,
    table_state,
    viewer_history,
)
from games.core.selectors.state import (
    cached_snapshot,
    iso,
    load_state,
)
from games.core.selectors.vacations import (
    interval,
    intervals_by_user,
    intervals_for_rows,
    today_for,
)

__all__ = [
    "CHAT_CONTEXT",
    "CHAT_PAGE_MESSAGES",
    "EVENTS_PAGE_MOVES",
    "Loaded",
    "awaited_by_game",
    "cached_snapshot",
    "can_see",
    "chat_context",
    "chat_messages",
    "chat_payload",
    "chat_version",
    "complete",
    "days",
    "etag",
    "events_payload",
    "find_and_load",
    "find_game",
    "game_payload",
    "game_queryset",
    "games_of",
    "interval",
    "intervals_by_user",
    "intervals_for_rows",
    "invitations_of",
    "invited_to",
    "iso",
    "latest_chat",
    "legal_moves_for",
    "legal_moves_payload",
    "length_estimate",
    "length_estimates",
    "load_for_viewer",
    "load_state",
    "next_deadlines",
    "opening_events",
    "own_moves_since",
    "pause_of",
    "pending_by_game",
    "pending_of",
    "player_view",
    "players_payload",
    "public_games",
    "raw_events",
    "seats_and_pending",
    "seats_by_game",
    "seats_by_id",
    "seats_of",
    "seats_with_vacations",
    "site_seq",
    "stand_ins",
    "state_payload",
    "summary_payload",
    "table_state",
    "today_for",
    "viewer_history",
    "your_turn_count",
]
