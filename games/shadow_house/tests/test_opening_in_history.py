"""Round 1's opening in the history and the mails (issue 42, item 16): the setup deals round 1
and plays the First on scene without an event (ruling SH-15), so neither said that the round
began nor who opened it. Both now begin with it, as the later rounds' openings read, and each
reader learns only their own cards."""

from __future__ import annotations

import html
import re

import pytest
from django.utils import translation

from games.core import services
from games.mail.outgoing import listing
from games.models import Game, Seat
from games.shadow_house import display
from games.shadow_house.tests.test_pages import box_order
from tests.api.factories import UserFactory
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db


HANDS = [["first_on_scene", "exchange", "alibi", "toby"],
         ["sharing", "maid", "divining_hat", "culprit"],
         ["detective", "sheriff", "witness", "rumour"]]


def dealt(position: int) -> str:
    return display.cards(HANDS[position])


@pytest.fixture
def game():
    users = [UserFactory(is_staff=True), UserFactory(), UserFactory()]  # (a deal: staff only)
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(HANDS)]}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    services.submit_move(game.pk, {"type": "play", "card": "sharing"}, user=users[1])
    game.refresh_from_db()
    return game


def history(page: str) -> list[str]:
    items = re.search(r'<ul class="history">(.*?)</ul>', page, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", item).strip()
            for item in re.findall(r"<li[^>]*>(.*?)</li>", items, re.S)]


def test_the_page_and_the_mail_begin_with_round_1_and_its_first_on_scene(game):
    seats = list(Seat.objects.filter(game=game).select_related("user").order_by("position"))
    opener = seats[0].user.username
    for seat in seats:
        page = html.unescape(browser(seat.user).get(f"/games/{game.pk}/").content.decode())
        lines = history(page)
        you = f"You are dealt {dealt(seat.position)}."
        assert lines[0] == "Round 1 begins: 4 cards each."
        assert lines[1:4] == [you if position == seat.position
                              else f"{seats[position].user.username} is dealt 4 cards."
                              for position in range(3)]
        assert lines[4:6] == [f"Turn: {opener}.", f"{opener} plays First on scene."]
        assert lines[6].startswith("#1 ")  # then move 1, numbered
        for other in {1, 2} - {seat.position}:  # only the reader's own cards are named
            assert dealt(other) not in page
        with translation.override("en"):
            since = listing(game, seat.user).since
        if seat.position == 1:
            continue  # (move 1 is theirs: nothing since)
        assert since[0] == "Since the start:"
        assert since[1:3] == ["   Round 1 begins: 4 cards each.",
                              f"   You are dealt {dealt(0)}." if seat.position == 0
                              else f"   {opener} is dealt 4 cards."]
        assert f"   {opener} plays First on scene." in since
        assert next(line for line in since if line.startswith("#")).startswith("#1 ")


def test_the_first_mail_before_any_move_tells_the_opening():
    users = [UserFactory(is_staff=True), UserFactory(), UserFactory()]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(HANDS)]}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    assert game.seq == 0
    opener = users[0].username
    with translation.override("en"):
        since = listing(game, users[1]).since  # (seat 1 is awaited: the opener played)
    assert since == ["Since the start:", "   Round 1 begins: 4 cards each.",
                     f"   {opener} is dealt 4 cards.", f"   You are dealt {dealt(1)}.",
                     f"   {users[2].username} is dealt 4 cards.", f"   Turn: {opener}.",
                     f"   {opener} plays First on scene."]


def test_the_opening_is_in_french_too(game):
    seat = Seat.objects.select_related("user").get(game=game, position=2)
    seat.user.language = "fr"
    seat.user.save(update_fields=["language"])
    page = html.unescape(browser(seat.user).get(f"/games/{game.pk}/").content.decode())
    assert "Premier sur place" in "\n".join(history(page)[:6])
