"""The bots' turns: a task plays a game's pending bot decisions, one move after another, through
the same path as any move (:func:`games.core.services.moves.submit_move`, by actor ``bot``).

Idempotent and safe late: each move is sent with ``expected_seq``, so a duplicate or late run
finds the game moved on and stops; a turn whose task was lost (broker down, worker killed) is
found by the sweep (:func:`play_stale_bots`), once per game.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.utils import timezone

from games.core import dispatch, selectors
from games.core.catalog import DEFAULT_BOT, get_bot, get_game
from games.core.errors import StaleSeq
from games.core.services.moves import submit_move
from games.engine import InvalidOptions
from games.engine.bots import bot_rng
from games.models import Game, MoveRecord, PendingDecision

logger = logging.getLogger(__name__)

Actor = MoveRecord.Actor

#: The bot a seat gets when nobody chose one (``games.core.catalog.bot_kinds()`` lists every kind).
DEFAULT_BOT_KIND = DEFAULT_BOT
#: Bot moves one task plays before it hands over to a new task.
BOT_MOVES_PER_TASK = 100
#: A bot decision pending this long had its task lost: the sweep plays it.
BOT_STALE_AFTER = dt.timedelta(seconds=30)


def _bot(game: Game, kind: str):
    try:
        return get_bot(game.kind, kind or DEFAULT_BOT_KIND)
    except InvalidOptions:
        # A kind no game offers any more (a seat stored before it went): the random bot plays.
        logger.warning("no %r bot for %s; the random bot plays", kind, game.kind)
        return get_bot(game.kind, "random")


def play_bots(game_id, seq: int, limit: int = BOT_MOVES_PER_TASK) -> int:
    """Play the bots' pending decisions, starting at ``seq``, until a human is awaited, the game
    ends, someone else moved, or ``limit`` moves were played (then a new task takes over).
    Returns the number of moves played."""
    played = 0
    raw: list[tuple[int, dict]] = []
    raw_upto = 0
    while played < limit:
        game = selectors.game_queryset().filter(pk=game_id).first()
        if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
            return played
        row = (PendingDecision.objects.filter(game_id=game.pk, bot=True)
               .order_by("deadline", "seat").first())
        if row is None:
            return played
        seats = selectors.seats_of(game)
        seat = next(s for s in seats if s.position == row.player)
        engine = get_game(game.kind)
        state = selectors.load_state(game)
        legal = engine.legal_moves(state, row.player)
        if not legal:
            logger.error("game %s: bot player %s is pending but has no legal move",
                         game.pk, row.player)
            return played
        if raw_upto < game.seq:
            raw.extend(selectors.raw_events(game.pk, raw_upto, game.seq))
            raw_upto = game.seq
        history = selectors.viewer_history(game, state, row.player, raw)
        move = _bot(game, seat.bot_kind).choose(selectors.player_view(game, state, row.player),
                                               legal, history, bot_rng(game.seed, seq, row.player))
        try:
            submit_move(game.pk, move, player=row.player, actor=Actor.BOT, expected_seq=seq,
                        schedule=False)
        except StaleSeq:
            return played
        seq += 1
        played += 1
    if PendingDecision.objects.filter(game_id=game_id, bot=True, game__seq=seq,
                                      game__status=Game.Status.ACTIVE).exists():
        dispatch.play_bots(game_id, seq)
    return played


def stale_bot_games(now: dt.datetime | None = None, limit: int = 50) -> list[tuple]:
    """``(game id, seq)`` of the active games with a bot decision pending longer than
    :data:`BOT_STALE_AFTER` (its task lost), each game once."""
    now = now or timezone.now()
    return list(PendingDecision.objects
                .filter(bot=True, created_at__lte=now - BOT_STALE_AFTER,
                        game__status=Game.Status.ACTIVE)
                .order_by("game_id").values_list("game_id", "game__seq").distinct()[:limit])


def play_stale_bots(now: dt.datetime | None = None, limit: int = 50) -> int:
    """Bot decisions whose task was lost (broker down, worker killed): play them now, once per
    game."""
    return sum(play_bots(game_id, seq) for game_id, seq in stale_bot_games(now, limit))
