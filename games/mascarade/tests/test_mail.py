"""What Mascarade's mails show and read (issue 42): every decision mail carries the starting deal,
which R4 makes public and the page shows; the masks in play come with their powers, as in the
page's aside; the words of the exchange's commands say what they mean, in English and French
(``swap`` / ``keep``, ``échanger`` / ``garder``), explained under the commands; a reply that mixes
the two languages (``annoncer thief``) is answered with the command in the player's language."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.utils import translation

from games.core.catalog import get_kit
from games.mail import commands
from games.mail.outgoing import listing, names_and_board
from games.mail.receive import receive_mail
from games.mascarade import display
from games.models import InboundMessage, Notification, PendingDecision, Seat
from games.notify import messages
from games.notify.outbox import DECISION_KINDS
from tests.api.helpers import peaceful, play_service_moves, start_game
from tests.api.test_play_by_mail import answer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"
    settings.MAIL_DOMAIN = "mascarade.example"


def awaited_user(game):
    row = PendingDecision.objects.filter(game=game).order_by("seat").first()
    return Seat.objects.get(game=game, position=row.player).user


def page_deal(game, user) -> list[str]:
    """The starting deal as the game's page shows it to ``user``: its lines."""
    client = Client()
    client.force_login(user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    deal = re.search(r"The starting deal</summary>\s*<ul>(.*?)</ul>", page, re.S)
    assert deal, "the page shows the starting deal"
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", deal.group(1))]


def test_every_decision_mail_carries_the_starting_deal_the_page_shows(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    play_service_moves(game, 5, by_player, choose=peaceful)
    notes = Notification.objects.filter(game=game, kind__in=DECISION_KINDS)
    assert notes.count() >= 5
    for note in notes:
        body = messages.build_email(note).body
        deal = page_deal(game, note.user)
        assert len(deal) == 4 + 2, deal  # every seat's and the two center cards
        line = next((line for line in body.splitlines()
                     if line.startswith("The starting deal: ")), None)
        assert line == f"The starting deal: {'; '.join(deal)}.", (line, deal)
    # the reader's neighbours, as the page's table says them
    note = notes.last()
    seats = sorted(seat.position for seat in game.seats.all())
    mine = next(seat.position for seat in game.seats.all() if seat.user == note.user)
    names = {seat.position: seat.user.username for seat in game.seats.all()}
    body = messages.build_email(note).body
    assert f"{names[(mine + 1) % len(seats)]}: on your left · " in body
    assert f"{names[(mine - 1) % len(seats)]}: on your right · " in body
    # in French too, and the masks in play with their powers (the page's aside)
    player = notes.last().user
    player.language = "fr"
    player.save()
    body = messages.build_email(notes.last()).body
    assert "La donne de départ : " in body
    with translation.override("fr"):
        _names, board, _payload = names_and_board(game, player)
        for mask in dict.fromkeys(board.state["masks_in_play"]):
            assert f"- {display.mask(mask)} : {display.POWERS[mask]}" in body, mask


def test_the_exchange_commands_say_what_their_words_mean_in_both_languages(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    player = awaited_user(game)
    other = next(seat.user.username for seat in game.seats.all() if seat.user != player)
    for language, swap, keep, note in (
            ("en", f"exchange {other} swap", f"exchange {other} keep",
             "“swap”: the cards really change hands. “keep”: they stay where they are, and "
             "the others cannot tell which you chose."),
            ("fr", f"échanger {other} échanger", f"échanger {other} garder",
             "« échanger » : les cartes changent vraiment de main. « garder » : elles restent "
             "où elles sont, et les autres ne peuvent pas savoir ce que vous avez choisi.")):
        with translation.override(language):
            listed = listing(game, player)
        texts = [text for _n, text in listed.commands]
        assert swap in texts and keep in texts
        assert listed.notes == [note]
    player.language = "fr"
    player.save()
    note = Notification.objects.filter(game=game, user=player, kind__in=DECISION_KINDS).last()
    message = messages.build_email(note)
    assert f"échanger {other} garder" in message.body and "« garder » : elles" in message.body
    assert "« garder » : elles" in message.alternatives[0][0]
    assert "oui" not in message.body.split()


@pytest.mark.parametrize("language, typed, meant", [
    ("fr", "annoncer thief", "annoncer voleur"),
    ("fr", "Announce voleur", "annoncer voleur"),
    ("en", "annoncer thief", "announce thief"),
])
def test_a_command_mixing_languages_is_answered_with_it_in_the_players_language(
        users, language, typed, meant):
    game = start_game(users[0], users[1:], options={"players": 4})
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    play_service_moves(game, 4, by_player, choose=peaceful)  # the preparatory turns
    player = awaited_user(game)
    player.language = language
    player.save()
    with translation.override(language):
        address = listing(game, player).reply_to
    inbound = receive_mail(answer(address, player.email, typed), via="test")
    assert inbound.status == InboundMessage.Status.UNREADABLE, (inbound.status, inbound.detail)
    reply = Notification.objects.get(kind="mail_reply", user=player)
    body = messages.build_email(reply).body
    number = re.search(rf"^  (\d+)\. {meant}$", body, re.M)
    assert number, body
    hint = {"en": f"Did you mean “{meant}” ({number.group(1)})?",
            "fr": f"Vouliez-vous dire « {meant} » ({number.group(1)}) ?"}[language]
    assert hint in body, body


def test_suggestions_are_the_moves_a_line_most_likely_meant(users):
    """Word for word in a mix of the languages first; else one word off; none when too many
    moves are that near or none is."""
    game = start_game(users[0], users[1:], options={"players": 4})
    player = awaited_user(game)
    names, _board, payload = names_and_board(game, player)
    legal = payload["you"]["legal_moves"]
    reader = commands.CommandReader(get_kit("mascarade"), legal, names)
    other = next(name for seat, name in names.items() if seat != payload["you"]["seat"])

    def meant(text):
        listed = commands.command_list(get_kit("mascarade"), legal, names, "en")
        return [listed[i][1] for i in reader.suggest(text)]

    assert meant(f"échanger {other} swap") == [f"exchange {other} swap"]
    assert sorted(meant(f"exchange {other} oui")) == [f"exchange {other} keep",
                                                      f"exchange {other} swap"]
    assert meant("dance the tango") == []
    assert meant("échanger") == []  # one word: only a mix of languages counts
    assert meant(f"exchange {other}") == []
