"""The end of a game of Mascarade says why it ended and shows the final ranking, on the table and
in the end-of-game mail (its kit's ``GameKit.ending_lines``)."""

from __future__ import annotations

import random
import re

import pytest
from django.core import mail
from django.test import Client

from games.core import selectors, services
from games.core.catalog import get_game, get_kit
from games.core.kit import Board
from games.models import Game, Notification, PendingDecision, Seat
from games.notify import delivery
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = pytest.mark.django_db


def play_to_the_end(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    engine = get_game(game.kind)
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        row = PendingDecision.objects.filter(game=game).order_by("seat").first()
        state = selectors.load_for_viewer(selectors.find_game(game.pk), None).state
        user = Seat.objects.get(game=game, position=row.player).user
        services.submit_move(game.pk, rng.choice(engine.legal_moves(state, row.player)),
                             user=user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.mark.parametrize("seed", [1, 2])
def test_a_mascarade_ending_says_why_and_ranks_the_players(seed, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    users = [UserFactory() for _ in range(4)]
    game = play_to_the_end(start_game(users[0], users[1:], options={"players": 4}), seed)
    page = Client()
    page.force_login(users[0])
    html = page.get(f"/games/{game.pk}/").content.decode()
    why = re.search(r'<div class="ending" role="status"><p><strong>([^<]+)</strong>', html)
    assert why, "the table says why the game ended"
    assert re.search(r"reached 13 coins|is ruined: the richest win|won with the Cheater",
                     why.group(1))
    ranks = re.findall(r"<li>(\d+)\. ([^:<]+): (\d+) coins?( · winner: [^<]+)?</li>", html)
    assert len(ranks) == 4
    winners = set(game.winners)
    assert [bool(w) for _r, _n, _c, w in ranks] == [True] * len(winners) + [False] * (
        4 - len(winners)), "the winners first, each saying why"
    assert {int(r) for r, _n, _c, _w in ranks[:len(winners)]} == {1}
    coins = [int(c) for _r, _n, c, _w in ranks[len(winners):]]
    assert coins == sorted(coins, reverse=True)
    for pk in Notification.objects.filter(kind="ended", status="pending").values_list(
            "pk", flat=True):
        delivery.deliver(pk)
    ended = [m for m in mail.outbox if "You won!" in m.body or "The game is over." in m.body]
    assert ended and all(why.group(1).replace("&#x27;", "'") in m.body for m in ended)
    assert all(re.search(r"^1\. ", m.body, re.M) for m in ended)


def _over(reason: str, winners: list[int], coins: list[int]) -> Board:
    """The board of a game of Mascarade just over, as a player sees it."""
    names = {seat: f"Bot {seat + 1}" for seat in range(len(coins))}
    seats = [{"seat": seat, "player": names[seat], "coins": n} for seat, n in enumerate(coins)]
    return Board(game=None, state={"phase": "over", "winners": winners, "seats": seats},
                 you=None, names=names, seats=seats,
                 recent=[{"type": "end", "seq": 40, "reason": reason, "winners": winners}])


def test_a_cheaters_win_ranks_the_cheater_first_and_says_why():
    """Bot 3 wins with the Cheater at 10 coins; Bot 2 has 10 coins too and Bot 1 more: the
    ranking puts Bot 3 alone first, saying why, and the others after it (R7)."""
    lines = get_kit("mascarade").ending_lines(_over("cheater", [2], [11, 10, 10, 4]))
    assert lines == [
        "Bot 3 won with the Cheater, holding 10 coins or more.",
        "1. Bot 3: 10 coins · winner: the Cheater's power, with 10 coins or more",
        "2. Bot 1: 11 coins",
        "3. Bot 2: 10 coins",
        "4. Bot 4: 4 coins",
    ]


def test_winners_who_reached_13_coins_share_the_first_rank():
    lines = get_kit("mascarade").ending_lines(_over("thirteen", [0, 3], [13, 9, 9, 14]))
    assert lines[1:] == ["1. Bot 4: 14 coins · winner: 13 coins or more",
                         "1. Bot 1: 13 coins · winner: 13 coins or more",
                         "3. Bot 2: 9 coins", "3. Bot 3: 9 coins"]
