"""Shadow House Mascarade's table drawn as a table, with card art: every card has its picture
(and the back), each a small, self-contained SVG (parsed as XML, a title and a viewBox, no raster
image, no link out, no script); the kit names its own stylesheet; the board draws the seats
clockwise from the viewer's seat, the left neighbour marked, the cards played stacked by kind
with a count, the hand as cards with their names; and no picture shows a card the viewer could
not know."""

from __future__ import annotations

import re

import pytest

from games.core import selectors, services
from games.core.catalog import get_game, get_kit
from games.models import Game
from games.shadow_house.rules.cards import CARDS
from tests.api.factories import UserFactory
from tests.web.helpers import browser
from tests.web.table_art import board_of, check_card_picture, check_table_stylesheet, truth

from .test_pages import box_order


@pytest.mark.parametrize("kind", [*CARDS, "back"])
def test_every_card_kind_has_a_small_self_contained_svg(kind):
    check_card_picture("shadow_house", kind)


def test_the_kit_names_its_table_stylesheet():
    check_table_stylesheet("shadow_house")


# --------------------------------------------------------------------------------------------
# The boards



SHADOW_HANDS = [["first_on_scene", "sharing", "alibi", "toby"],
                ["culprit", "maid", "divining_hat", "exchange"],
                ["detective", "sheriff", "witness", "rumour"],
                ["alibi", "rumour", "panic", "governess"]]


@pytest.mark.django_db
def test_shadow_table_seats_clockwise_from_the_viewer_left_neighbour_marked_no_leak():
    users = [UserFactory(is_staff=True)] + [UserFactory() for _ in range(4)]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 4, "deal": [box_order(SHADOW_HANDS)]}).body
    for user in users[1:4]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    names = {seat.position: seat.user.username for seat in game.seats.all()}
    secret = truth(game)
    for seat in range(4):
        html = browser(users[seat]).get(f"/games/{game.pk}/").content.decode()
        assert 'href="/static/shadow_house/table.css"' in html
        board = board_of(html)
        assert '<div class="sh-felt sh-n4">' in board
        places = dict(re.findall(r'<li class="seat sh-seat sh-p(\d)[^"]*">\s*<span class="name">'
                                 r'([^<(]+)', board))
        # the seats counted clockwise from the viewer's own
        assert {int(p): n.strip() for p, n in places.items()} == {
            (s - seat) % 4: names[s] for s in range(4)}
        left = re.findall(r'<li class="seat sh-seat sh-p(\d)[^"]*sh-left"', board)
        assert left == ["1"] and board.count("your left neighbour") == 1
        # the hand as cards with their names; nothing of another hand pictured
        hand = re.search(r'<ul class="hand"[^>]*>(.*?)</ul>', board, re.S).group(1)
        assert re.findall(r'cards/(\w+)\.svg', hand) == secret["hands"][seat]
        pictured = set(re.findall(r'cards/(\w+)\.svg', board)) - {"back"}
        assert pictured <= set(secret["hands"][seat]) | {"first_on_scene"}
    spectator = board_of(browser(users[4]).get(f"/games/{game.pk}/").content.decode())
    assert "your left neighbour" not in spectator and '<ul class="hand"' not in spectator
    assert set(re.findall(r'cards/(\w+)\.svg', spectator)) == {"back", "first_on_scene"}


@pytest.mark.django_db
def test_shadow_cards_played_are_stacked_by_kind_with_a_count():
    users = [UserFactory(is_staff=True)] + [UserFactory() for _ in range(2)]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(SHADOW_HANDS[:3])]}).body
    for user in users[1:3]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    kit = get_kit("shadow_house")
    state = get_game("shadow_house").view(selectors.load_state(game), "spectator")
    state["seats"][0]["played"] = ["first_on_scene", "rumour", "rumour", "alibi"]
    from games.core.kit import Board

    context = kit.board_context(Board(game=game, state=state, you=None, names={0: "a", 1: "b",
                                                                               2: "c"},
                                      seats=state["seats"]))
    groups = context["players"][0]["played_groups"]
    assert [(g["card"], g["count"]) for g in groups] == [("first_on_scene", 1), ("alibi", 1),
                                                         ("rumour", 2)]
    from django.template.loader import render_to_string

    html = render_to_string(kit.board_template, {**context, "state": state, "you": None})
    assert 'sh-stack sh-many sh-card sh-rumour">Rumour<img src="/static/shadow_house/cards/' \
           'rumour.svg" alt=""' in html and "× 2</span>" in html
    assert 'sh-stack sh-card sh-first_on_scene">First on scene<img' in html
