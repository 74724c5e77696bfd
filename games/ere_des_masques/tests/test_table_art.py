"""L'Ère des Masques's table drawn as a table, with card art: every card kind has its picture
(and the back), each a small, self-contained SVG (parsed as XML, a title and a viewBox, no raster
image, no link out, no script); the kit names its own stylesheet; the board draws the seats
around the table from the viewer's seat, each zone's cards stacked by kind with a count, the hand
as cards with their names, the piles in the middle; and no picture shows a card the viewer could
not know."""

from __future__ import annotations

import re

import pytest

from games.core import selectors, services
from games.core.catalog import get_game
from games.ere_des_masques.rules.cards import KINDS
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory
from tests.web.helpers import browser
from tests.web.table_art import board_of, check_card_picture, check_table_stylesheet, truth


@pytest.mark.parametrize("kind", [*KINDS, "back"])
def test_every_card_kind_has_a_small_self_contained_svg(kind):
    check_card_picture("ere_des_masques", kind)


def test_the_kit_names_its_table_stylesheet():
    check_table_stylesheet("ere_des_masques")


# --------------------------------------------------------------------------------------------
# The boards


def ere_game() -> tuple[list, Game]:
    """Three users, the first two seated at a started game of L'Ère des Masques."""
    users = [UserFactory() for _ in range(3)]
    body = services.create_game(users[0], "ere_des_masques", {}).body
    services.join_game(users[1], body["id"])
    return users, Game.objects.get(pk=body["id"])



@pytest.mark.django_db
def test_ere_table_draws_the_opponent_across_and_the_hand_as_cards():
    users, game = ere_game()
    secret = truth(game)
    for seat, user in enumerate(users[:2]):
        html = browser(user).get(f"/games/{game.pk}/").content.decode()
        board = board_of(html)
        assert 'href="/static/ere_des_masques/table.css"' in html
        # Both seats on the felt, the viewer at the bottom, the opponent across.
        places = re.findall(r'<li class="seat ere-seat ere-(top|bottom)[^"]*">\s*<div '
                            r'class="ere-seat-head">\s*<span class="name">([^<]+)', board)
        assert [p for p, _ in places] == (["bottom", "top"] if seat == 0 else ["top", "bottom"])
        assert "(you)" in dict(places)["bottom"]
        # Each zone stacked by kind, a picture and a count per kind.
        stacks = re.findall(r'<li class="ere-card ere-(\w+) ere-stack[^"]*"><img '
                            r'src="/static/ere_des_masques/cards/(\w+)\.svg" alt=""[^>]*> '
                            r'<span class="ere-name">[^<]+</span> <span class="count">× (\d)',
                            board)
        zones = get_game("ere_des_masques").view(selectors.load_state(game), seat)["seats"]
        expected = [(kind, kind, str(n)) for z in zones for kind, n in z["zone"].items()]
        assert stacks == expected
        # The hand: one card drawn per card, its name under it; the backs of both hands.
        hand = re.search(r'<ul class="hand"[^>]*>(.*?)</ul>', board, re.S).group(1)
        drawn = re.findall(r'cards/(\w+)\.svg" alt=""[^>]*> <span class="ere-name">(\w+)<', hand)
        assert [kind for kind, _ in drawn] == secret["hands"][seat]
        assert all(name.lower() == kind for kind, name in drawn)
        assert board.count("cards/back.svg") >= 5 + 5 + 1  # two hands' backs and the pile
    spectator = board_of(browser(users[2]).get(f"/games/{game.pk}/").content.decode())
    assert '<ul class="hand"' not in spectator


@pytest.mark.django_db
def test_ere_face_down_card_is_a_back_to_the_opponent_and_a_face_to_its_owner():
    users, game = ere_game()
    player = PendingDecision.objects.get(game=game).player
    card = truth(game)["hands"][player][0]
    services.submit_move(game.pk, {"type": "play", "card": card}, user=users[player])
    game.refresh_from_db()
    owner = board_of(browser(users[player]).get(f"/games/{game.pk}/").content.decode())
    middle = re.search(r'<div class="ere-middle.*', owner, re.S).group(0)
    assert f'<span class="ere-card ere-{card} ere-face"><img src="/static/ere_des_masques/cards/'\
           f'{card}.svg"' in middle
    for other in (users[1 - player], users[2]):
        board = board_of(browser(other).get(f"/games/{game.pk}/").content.decode())
        middle = re.search(r'<div class="ere-played.*?</div>', board, re.S).group(0)
        assert "cards/back.svg" in middle and "ere-face" not in middle
        # No picture of a card this viewer cannot know: the hidden card only as a back.
        shown = re.findall(r'cards/(\w+)\.svg', board)
        public = {k for z in get_game("ere_des_masques").view(
            selectors.load_state(game), "spectator")["seats"] for k in z["zone"]}
        mine = set(truth(game)["hands"][1 - player]) if other == users[1 - player] else set()
        assert set(shown) - {"back"} <= public | mine
