"""The lobby and "your games" say of each game its name, its kind, its own options (scenario,
flash investigation...), its speed and the time left before the next deadline."""

from __future__ import annotations

import pytest
from django.test import Client

from games.core import services
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = pytest.mark.django_db


def test_listings_say_kind_options_speed_and_time_left():
    users = [UserFactory() for _ in range(4)]
    active = start_game(users[0], users[1:], options={"players": 4, "scenario": "A",
                                                      "challenge_mode": "simultaneous"})
    services.create_game(users[1], "shadow_house", {"players": 3, "flash": True,
                                                   "move_timeout": 3600})
    services.create_game(users[2], "ere_des_masques", {"move_timeout": 4 * 3600})
    awaited = active.pending_decisions.get().user
    client = Client()
    client.force_login(awaited)
    page = client.get("/games/").content.decode()
    assert "Shadow House Mascarade</span> · <span>flash investigation</span> · <span>1 hour per " \
           "turn</span>" in page
    assert "L&#x27;Ère des Masques</span> · <span>4 hours per turn</span>" in page
    mine = page.split('id="mine-title"')[1].split('id="public-title"')[0]
    assert "scenario A, challenges all at once" in mine and "1 day per turn" in mine
    assert "your deadline: 23 h left" in mine or "your deadline: 24 h left" in mine
    watching = Client()
    watching.force_login(users[3] if awaited != users[3] else users[2])
    public = watching.get("/games/?status=active").content.decode()
    assert "next deadline:" in public and "scenario A" in public
