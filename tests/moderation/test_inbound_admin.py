"""Inbound mail in the admin: moderators see every mail received and what became of it, read
only; a mail's text (which may tell a secret move) only once its game is over."""

from __future__ import annotations

import pytest
from django.test import Client

from games.mail.receive import receive_mail
from games.models import Game, InboundMessage
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

URL = "/admin/games/inboundmessage/"


def _mail(game, sender, text):
    raw = (f"From: {sender}\r\nTo: play+1.000000000000000000000000@localhost\r\n"
           f"Subject: Re: your turn\r\nMessage-ID: <m{game.pk.hex[:8]}@x>\r\n\r\n{text}\r\n")
    row = receive_mail(raw.encode(), via="test")
    InboundMessage.objects.filter(pk=row.pk).update(game=game)
    return row


def test_moderators_see_inbound_mail_and_its_text_once_the_game_is_over(moderator, settings):
    settings.MAIL_DOMAIN = "localhost"
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    row = _mail(game, users[0].email, "exchange bob swap")
    assert row.status == InboundMessage.Status.BAD_TOKEN
    client = Client()
    client.force_login(moderator)
    listing = client.get(URL)
    assert listing.status_code == 200 and users[0].email in listing.content.decode()
    page = client.get(f"{URL}{row.pk}/change/").content.decode()
    assert "forged reply address" in page
    assert "exchange bob swap" not in page and "Shown once the game is over" in page
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    page = client.get(f"{URL}{row.pk}/change/").content.decode()
    assert "exchange bob swap" in page
    assert client.post(f"{URL}{row.pk}/delete/").status_code == 403
    assert client.get(f"{URL}add/").status_code == 403
    # A player sees none of it.
    player = Client()
    player.force_login(users[1])
    assert player.get(URL).status_code == 302
