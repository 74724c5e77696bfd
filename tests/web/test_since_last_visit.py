"""A player back at their table is told what happened since their last visit: how many moves,
after which one, and the history's lines since marked "new"; what came in live while the page
was open counts as seen."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.models import Seat
from tests.api.factories import UserFactory
from tests.api.helpers import awaited_players, play_service_moves, start_game

from .helpers import browser

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    """A game under way; ``users[0]`` the player who moves last of the next round (clockwise:
    the right neighbour of the awaited one), so that the next three moves are others'."""
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    last = by_player[(awaited_players(game)[0] - 1) % 4]
    return [last, *(u for u in users if u != last)], game, by_player


def page(client, game) -> str:
    return client.get(f"/games/{game.pk}/").content.decode()


def new_lines(html: str) -> list[str]:
    return re.findall(r'<li class="new"><span class="muted">#(\d+)</span>', html)


def test_a_first_visit_says_nothing_and_a_second_tells_what_came_since(table):
    users, game, by_player = table
    client = browser(users[0])
    first = page(client, game)
    assert 'id="since-visit"' not in first and not new_lines(first)
    seen = game.seq
    assert Seat.objects.get(game=game, user=users[0]).seen_seq == seen

    play_service_moves(game, 3, by_player)
    second = page(client, game)
    assert (f"Since your last visit (after move #{seen}): 3 moves, marked “new” in the "
            f"history.") in second
    shown = {int(seq) for seq in new_lines(second)}
    assert shown == set(range(seen + 1, game.seq + 1))
    assert Seat.objects.get(game=game, user=users[0]).seen_seq == game.seq

    third = page(client, game)
    assert 'id="since-visit"' not in third and not new_lines(third)


def test_what_came_live_counts_as_seen(table):
    users, game, by_player = table
    client = browser(users[0])
    page(client, game)
    play_service_moves(game, 2, by_player)
    assert client.get(f"/games/{game.pk}/live/").status_code == 200
    assert Seat.objects.get(game=game, user=users[0]).seen_seq == game.seq
    assert 'id="since-visit"' not in page(client, game)


def test_the_greeting_in_french_and_for_one_move(table):
    users, game, by_player = table
    users[0].language = "fr"
    users[0].save()
    client = browser(users[0])
    page(client, game)
    seen = game.seq
    play_service_moves(game, 1, by_player)
    with translation.override("fr"):
        html = page(client, game)
    assert f"Depuis votre dernière visite (après le coup n° {seen}) : 1 coup" in html
    assert ">nouveau</strong>" in html


def test_spectators_and_unstarted_games_are_not_greeted():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    stranger = browser(UserFactory())
    page(stranger, game)
    assert 'id="since-visit"' not in page(stranger, game)


def test_your_own_moves_are_not_news(table):
    """Issue 42, item 11: a move the player made themself (by mail, the API, or the page's
    form) is not counted nor marked new; the moves of others after it are."""
    _users, game, by_player = table
    mover = by_player[awaited_players(game)[0]]
    client = browser(mover)
    page(client, game)
    seen = game.seq
    play_service_moves(game, 1, by_player)  # (the mover's own move, as the API would play it)
    assert game.moves.get(seq=seen + 1).by_user == mover
    alone = page(client, game)
    assert 'id="since-visit"' not in alone and not new_lines(alone)

    play_service_moves(game, 2, by_player)  # (the next two players')
    assert {r.by_user for r in game.moves.filter(seq__gt=seen + 1)}.isdisjoint({mover})
    html = page(client, game)
    assert (f"Since your last visit (after move #{seen + 1}): 2 moves, marked “new” in the "
            f"history.") in html
    assert {int(seq) for seq in new_lines(html)} == {seen + 2, seen + 3}


def test_your_own_move_among_others_is_not_news(table):
    """The player's move between others' moves: the others' count, theirs is not marked."""
    _users, game, by_player = table
    order = [by_player[(awaited_players(game)[0] + k) % 4] for k in range(3)]
    viewer = order[1]  # (moves second of the three)
    client = browser(viewer)
    page(client, game)
    seen = game.seq
    play_service_moves(game, 3, by_player)
    assert game.moves.get(seq=seen + 2).by_user == viewer
    html = page(client, game)
    assert (f"Since your last visit (after move #{seen}): 2 moves, marked “new” in the "
            f"history.") in html
    assert {int(seq) for seq in new_lines(html)} == {seen + 1, seen + 3}
