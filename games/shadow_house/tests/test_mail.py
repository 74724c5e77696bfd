"""What a Shadow House mail shows its reader is what the game's page shows them (issue 42): who
their left neighbour is (a Sharing gives them a card) and the powers of the cards in their hand,
beside the seats and the hand."""

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


def test_a_mail_shows_what_the_page_shows_its_reader():
    users = [UserFactory(is_staff=True), UserFactory(), UserFactory()]  # (a deal: staff only)
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(HANDS)]}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    services.submit_move(game.pk, {"type": "play", "card": "sharing"}, user=users[1])
    game.refresh_from_db()
    names = {seat.position: seat.user.username for seat in game.seats.all()}
    for seat in Seat.objects.filter(game=game).select_related("user"):
        user = seat.user
        page = html.unescape(browser(user).get(f"/games/{game.pk}/").content.decode())
        with translation.override("en"):
            status = listing(game, user).status
        neighbour = names[(seat.position + 1) % 3]
        assert f"You give yours to {neighbour}." in page
        assert any(line.startswith(f"{neighbour}: your left neighbour · ") for line in status)
        assert sum("your left neighbour" in line for line in status) == 1
        hand = re.search(r"^Your hand: (.*)\.$", "\n".join(status), re.M).group(1)
        for card in dict.fromkeys(HANDS[seat.position]):
            if display.title(card) in hand:
                assert f"- {display.title(card)}: {display.POWERS[card]}" in status
        assert not any(line.startswith(f"- {display.title(card)}:") for line in status
                       for card in display.POWERS if display.title(card) not in hand)
