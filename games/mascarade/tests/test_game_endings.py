"""The end of a game of Mascarade says why it ended and shows the final ranking, on the table and
in the end-of-game mail (its kit's ``GameKit.ending_lines``)."""

from __future__ import annotations

import random
import re

import pytest
from django.core import mail
from django.test import Client

from games.core import selectors, services
from games.core.catalog import get_game
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
    ranks = re.findall(r"<li>(\d+)\. ([^:<]+): (\d+) coins?</li>", html)
    assert len(ranks) == 4
    coins = [int(c) for _r, _n, c in ranks]
    assert coins == sorted(coins, reverse=True)
    winners = set(game.winners)
    assert {int(r) for r, _n, _c in ranks[:len(winners)]} == {1}
    for pk in Notification.objects.filter(kind="ended", status="pending").values_list(
            "pk", flat=True):
        delivery.deliver(pk)
    ended = [m for m in mail.outbox if "is over" in m.subject]
    assert ended and all(why.group(1).replace("&#x27;", "'") in m.body for m in ended)
    assert all(re.search(r"^1\. ", m.body, re.M) for m in ended)
