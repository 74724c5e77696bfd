"""Shadow House Mascarade's table drawn as a table, with card art: every card has its picture
(and the back), each a small, self-contained SVG (parsed as XML, a title and a viewBox, no raster
image, no link out, no script); the kit names its own stylesheet; the board draws the seats
clockwise from the viewer's seat, the left neighbour marked, the cards played stacked by kind
with a count, the hand as cards with their names; and no picture shows a card the viewer could
not know."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from games.core import selectors, services
from games.core.catalog import get_game, get_kit
from games.engine import MODERATOR
from games.models import Game
from games.shadow_house.rules.cards import CARDS
from tests.api.factories import UserFactory
from tests.web.helpers import browser

from .test_pages import box_order

GAMES = Path(__file__).resolve().parents[3] / "games"
ART = {"shadow_house": CARDS}
SVG = "{http://www.w3.org/2000/svg}"


def art_files():
    for game, kinds in ART.items():
        for kind in (*kinds, "back"):
            yield game, kind, GAMES / game / "static" / game / "cards" / f"{kind}.svg"


@pytest.mark.parametrize(("game", "kind", "path"), list(art_files()),
                         ids=[f"{g}-{k}" for g, k, _ in art_files()])
def test_every_card_kind_has_a_small_self_contained_svg(game, kind, path):
    assert path.is_file(), f"{game}: no picture for {kind}"
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) < 4096, "a card's picture stays small"
    root = ElementTree.fromstring(text)  # noqa: S314 (the project's own files)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 100 140"
    title = root.find(f"{SVG}title")
    assert title is not None and (title.text or "").strip()
    for element in root.iter():
        assert element.tag not in (f"{SVG}image", f"{SVG}script", f"{SVG}foreignObject")
        for name, value in element.attrib.items():
            assert not name.startswith("on"), f"{kind}: an event handler"
            if name.endswith("href"):
                assert not value.startswith(("http:", "https:", "//", "data:")), kind
    lowered = text.lower()
    assert "<script" not in lowered and "http://" not in lowered.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "url(" not in lowered and "@import" not in lowered


@pytest.mark.parametrize("game", list(ART))
def test_each_kit_names_its_table_stylesheet(game):
    kit = get_kit(game)
    assert kit.stylesheet == f"{game}/table.css"
    assert (GAMES / game / "static" / kit.stylesheet).is_file()


# --------------------------------------------------------------------------------------------
# The boards

def truth(game):
    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)["moderator"]


def board_of(html: str) -> str:
    return re.search(r'<section aria-labelledby="table-title".*?</section>', html, re.S).group(0)


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
