"""The site's writes: the only code that changes games, seats and their pending decisions.

One module per concern, over one locked write core (:mod:`.core`):

- :mod:`.core` — the game locked, moves of the rules and table actions applied to it, then one
  commit: records, snapshot, version, pending decisions, outbox, after-commit work;
- :mod:`.moves` — a move from a client, a bot, a timeout, a moderator;
- :mod:`.lobby` — creating, joining, leaving, bots filling seats, the start;
- :mod:`.rematch` — "play again": a finished game's new table, its players invited back;
- :mod:`.table` — table actions (pause, absent, replace, extend, abort…) and a player's requests
  about their seat;
- :mod:`.deadlines` — timeouts and the sweep's share of them;
- :mod:`.bots` — the bots' turns;
- :mod:`.vacations` — days off and what they do to deadlines;
- :mod:`.chat` — a player's message at the table, each viewer's chat mutes;
- :mod:`.idempotency` — ``Idempotency-Key``;
- :mod:`.snapshots` — the state cache rebuilt when a read found it behind.

Services take keyword arguments, return domain results (read models built by
:mod:`games.core.selectors`) and raise :mod:`games.core.errors` (or the engine's errors): nothing
here knows
HTTP. Work for the worker goes through :mod:`games.core.dispatch` after the commit.
"""

from __future__ import annotations

from games.core.services import chat
from games.core.services.bots import DEFAULT_BOT_KIND, play_bots, play_stale_bots
from games.core.services.deadlines import (
    anticipate_deadlines,
    due_game_ids,
    fan_out_due_deadlines,
    play_timeout,
    play_timeout_now,
    resolve_due_deadlines,
    resolve_games,
)
from games.core.services.idempotency import Idempotency, Outcome, forget_old_keys
from games.core.services.lobby import (
    STAFF_OPTIONS,
    add_bots,
    create_game,
    decline_invitation,
    join_game,
    leave_game,
)
from games.core.services.moves import submit_move
from games.core.services.rematch import rematch
from games.core.services.snapshots import refresh as refresh_snapshot
from games.core.services.table import (
    apply_table_move,
    come_back,
    mute_game,
    request_pause,
    user_changed,
)
from games.core.services.vacations import cancel as cancel_vacation
from games.core.services.vacations import declare as declare_vacation
from games.core.services.write import lock

__all__ = [
    "DEFAULT_BOT_KIND",
    "STAFF_OPTIONS",
    "Idempotency",
    "Outcome",
    "add_bots",
    "anticipate_deadlines",
    "apply_table_move",
    "cancel_vacation",
    "chat",
    "come_back",
    "create_game",
    "declare_vacation",
    "decline_invitation",
    "due_game_ids",
    "fan_out_due_deadlines",
    "forget_old_keys",
    "join_game",
    "leave_game",
    "lock",
    "mute_game",
    "play_bots",
    "play_stale_bots",
    "play_timeout",
    "play_timeout_now",
    "refresh_snapshot",
    "rematch",
    "request_pause",
    "resolve_due_deadlines",
    "resolve_games",
    "submit_move",
    "user_changed",
]
