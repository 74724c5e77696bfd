"""Reliability: the share of a player's decisions they took in time, counted from the stored
moves: a timeout counts against it, a move on a vacation day is not counted; games a player
was removed from or left are counted beside it."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone

from accounts.models import Vacation
from games.core import selectors, services
from games.core.catalog import get_game
from games.core.services import ratings as rating_services
from games.models import Game, MoveRecord
from games.ratings import selectors as ratings
from games.ratings.models import Reliability
from games.ratings.reliability import measure
from moderation import services as moderation
from tests.api.factories import UserFactory

from .play import new_game


def tomorrow() -> dt.date:
    """The day whose figures count today's moves (a day's figures count the days before it)."""
    return timezone.now().date() + dt.timedelta(days=1)


def play(game: Game, timeouts_of: set[int], steps: int, rng: random.Random) -> None:
    """``steps`` decisions: those of the users in ``timeouts_of`` alternately let time out and
    answered, the others answered."""
    engine = get_game(game.kind)
    timed_out: dict[int, int] = {}
    for _ in range(steps):
        loaded = selectors.find_and_load(game.pk, None)
        if loaded.game.status != Game.Status.ACTIVE:
            break
        row = next(row for row in loaded.pending if not row.bot)
        user = loaded.seat_at(row.player).user
        if user.pk in timeouts_of and timed_out.get(user.pk, 0) % 2 == 0:
            timed_out[user.pk] = timed_out.get(user.pk, 0) + 1
            services.play_timeout(game.pk, row.pk, force=True)
            continue
        timed_out[user.pk] = timed_out.get(user.pk, 0) + (user.pk in timeouts_of)
        move = rng.choice(engine.legal_moves(loaded.state, row.player))
        services.submit_move(game.pk, move, user=user, expected_seq=loaded.game.seq)


def moves_by(user, actor: str | None = None) -> int:
    moves = MoveRecord.objects.filter(seat__user=user).exclude(payload__type="table")
    return (moves.filter(actor=actor) if actor else moves).count()


@pytest.mark.django_db
def test_a_timeout_counts_against_reliability_and_a_vacation_day_does_not():
    ada, bea, cid, dan = (UserFactory() for _ in range(4))
    game = new_game("mascarade", [ada, bea, cid, dan], options={"players": 4,
                                                                 "absent_after": 10})
    play(game, {ada.pk, bea.pk}, 40, random.Random(3))
    assert moves_by(ada, "timeout") >= 1 and moves_by(ada, "player") >= 1
    # bea is on vacation today (declared straight in the table: her deadlines are not the point)
    today = timezone.now().date()
    Vacation.objects.create(user=bea, start=today, end=today)
    figures = measure([ada, bea, cid], tomorrow())
    assert figures[ada.pk].decisions == moves_by(ada)
    assert figures[ada.pk].answered == moves_by(ada, "player") < moves_by(ada)
    assert figures[ada.pk].percent == moves_by(ada, "player") * 100 // moves_by(ada)
    assert figures[bea.pk].decisions == 0 and figures[bea.pk].percent is None
    assert figures[cid.pk].percent == 100
    # Today's figures count the days before today: none of these moves yet.
    assert ratings.reliability(ada)["percent"] is None
    # The daily task stores the figures the seats show, and the page reads them.
    assert rating_services.refresh_reliability(tomorrow()) >= 4
    stored = Reliability.objects.get(user=ada)
    assert (stored.decisions, stored.answered) == (figures[ada.pk].decisions,
                                                   figures[ada.pk].answered)
    assert ratings.reliability(ada, tomorrow())["percent"] == figures[ada.pk].percent
    players = selectors.game_payload(selectors.find_and_load(game.pk, None), None)["players"]
    assert {seat["player"]: seat["reliability"] for seat in players}[ada.username] == (
        figures[ada.pk].percent)


@pytest.mark.django_db
def test_games_removed_from_and_left_are_counted():
    ada, bea, cid, dan = (UserFactory() for _ in range(4))
    moderator = UserFactory(is_staff=True, is_superuser=True)
    game = new_game("mascarade", [ada, bea, cid, dan])
    moderation.replace(moderator, game.pk, 2, "gone for good")  # cid's seat to a bot
    services.apply_table_move(game.pk, "absent", player=3, reason="timeouts")
    moderation.abort(moderator, game.pk, "over")  # dan left it absent
    figures = measure([ada, cid, dan], tomorrow())
    assert (figures[cid.pk].removed, figures[cid.pk].left) == (1, 0)
    assert (figures[dan.pk].removed, figures[dan.pk].left) == (0, 1)
    assert (figures[ada.pk].removed, figures[ada.pk].left) == (0, 0)
    # A day's figures never change afterwards: a game over touched since (its updated_at) stays
    # out of the days after its end, which count the games that ended in them.
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() + dt.timedelta(days=95))
    later = measure([dan], tomorrow() + dt.timedelta(days=100))
    assert (later[dan.pk].decisions, later[dan.pk].left) == (0, 0)
    assert measure([dan], tomorrow())[dan.pk].left == 1
