"""Links and addresses already in players' mailboxes keep working when modules move: the salts
of the unsubscribe tokens and of the reply addresses are fixed strings (the modules' names when
the first ones were signed), checked here against tokens made the way they were made then."""

from __future__ import annotations

import pytest
from django.core import signing
from django.utils.crypto import salted_hmac

from games.mail import outgoing
from games.models import MailPlay
from games.notify import unsubscribe
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = pytest.mark.django_db


def test_an_unsubscribe_link_signed_before_the_move_still_unsubscribes():
    user = UserFactory()
    token = signing.dumps({"u": user.pk}, salt="games.notifications.unsubscribe",
                          compress=True)
    assert unsubscribe.unsubscribe_target(token) == (user, unsubscribe.ALL_MAIL)


def test_a_reply_address_signed_before_the_move_still_verifies(settings):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    play = MailPlay.objects.create(user=users[0], game=game, seq=game.seq)
    raw = f"{play.pk}:{play.user_id}:{play.game_id}:{play.seq}"
    signature = salted_hmac("games.mail_play.reply", raw, algorithm="sha256").hexdigest()[:24]
    found, why = outgoing.play_of(f"play+{play.pk}.{signature}@{settings.MAIL_DOMAIN}")
    assert (found, why) == (play, "")
