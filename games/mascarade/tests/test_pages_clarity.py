"""Issue 23, Mascarade's table: a seat shows only what is true now for its viewer; a decision
says what it is about; a turn's choices fit a phone at 12 players."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from games.core import services
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db




def page(user, game) -> str:
    return browser(user).get(f"/games/{game.pk}/").content.decode()


def dealt(deal: list[str], first_seat: int, players: int = 4):
    """A started custom game with a fixed deal (staff only); its players by seat, and a
    function that plays a move for whoever is awaited."""
    staff = UserFactory(is_staff=True)
    others = [UserFactory() for _ in range(players - 1)]
    body = services.create_game(staff, "mascarade", {
        "players": players, "scenario": "custom", "masks": deal, "deal": deal,
        "first_seat": first_seat}).body
    for user in others:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    by_player = {0: staff, **{i + 1: user for i, user in enumerate(others)}}

    def play(move, player=None):
        row = PendingDecision.objects.filter(game=game).order_by("seat").first()
        services.submit_move(game.pk, move, user=by_player[row.player if player is None
                                                           else player])
        game.refresh_from_db()

    return game, by_player, play


def tiles(html: str) -> dict[str, str]:
    """Each seat's player name → the card shown turned on its tile ("" when face down)."""
    out = {}
    for seat in re.findall(r'<li class="seat[^"]*">(.*?)</li>', html, re.S):
        name = re.search(r'<span class="name">([^<(]+)', seat).group(1).strip()
        face = re.search(r'<span class="card-face">([^<]*)</span>', seat)
        out[html_lib.unescape(name)] = html_lib.unescape(face.group(1)) if face else ""
    return out


def test_a_seat_shows_only_its_latest_reveal_and_not_once_its_card_was_moved():
    """Defect: a Princess's reveal never turned the card for those who saw it, so a tile could
    keep an older reveal (or nothing) after her; a tile shows the latest reveal of its card,
    as this viewer saw it, until a move takes the card under the table (a pause in between:
    the history's move numbers and the rules' own count differ)."""
    deal = ["judge", "fool", "princess", "crook", "king", "empress"]
    game, by_player, play = dealt(deal, first_seat=1)
    names = {p: user.username for p, user in by_player.items()}
    play({"type": "exchange", "target": 2, "swap": False})  # seat 1's preparatory turn
    for user in by_player.values():  # the players pause the game, then resume it
        services.request_pause(user, game.pk, True)
    services.request_pause(by_player[0], game.pk, False)
    for seat in (2, 3, 0):
        play({"type": "exchange", "target": (seat + 1) % 4, "swap": False})
    # Seat 1 announces the Fool; seat 3 claims it wrongly: the Fool and the Crook turn face up.
    play({"type": "announce", "mask": "fool"})
    play({"type": "pass"})
    play({"type": "claim"})
    play({"type": "pass"})
    seen = tiles(page(by_player[0], game))
    assert seen[names[3]] == "card turned: Crook" and seen[names[1]] == "card turned: Fool"
    # The Fool swaps the cards of seats 3 and 0: the Crook is no longer where it was shown.
    play({"type": "fool", "targets": [3, 0], "swap": True})
    for viewer in (by_player[0], by_player[3], None):
        seen = tiles(page(viewer, game))
        assert seen[names[3]] == "" and seen[names[0]] == ""
        assert seen[names[1]] == "card turned: Fool"
    # Seat 2 announces the Princess, nobody claims; she shows seat 3's card (now the Judge) to
    # everyone but its owner.
    play({"type": "announce", "mask": "princess"})
    for _ in range(3):
        play({"type": "pass"})
    play({"type": "princess", "target": 3})
    for viewer in (by_player[0], by_player[1], by_player[2]):
        assert tiles(page(viewer, game))[names[3]] == "card turned: Judge"
    for viewer in (by_player[3], None):
        assert tiles(page(viewer, game))[names[3]] == ""


def test_a_decision_says_what_it_is_about():
    """The Guru's target is told who chose them and what a wrong answer costs; the Spy's swap
    restates both cards (and what the Spy saw); the claim names the announced mask."""
    deal = ["judge", "guru", "spy", "king", "princess", "empress"]
    game, by_player, play = dealt(deal, first_seat=1)
    names = {p: user.username for p, user in by_player.items()}
    for seat in (1, 2, 3, 0):
        play({"type": "exchange", "target": (seat + 1) % 4, "swap": False})
    # Seat 1 announces the Guru; seat 2 would claim: the button names the mask.
    play({"type": "announce", "mask": "guru"})
    claimer = page(by_player[2], game)
    assert "Claim: I am the Guru" in claimer and "I am the announced mask" not in claimer
    for _ in range(3):
        play({"type": "pass"})
    play({"type": "guru", "target": 3})
    target = page(by_player[3], game)
    assert f"{names[1]} used the Guru on you" in target
    assert f"If you name it wrongly, you pay {names[1]} 4 coins" in target
    assert "used the Guru on you" not in page(by_player[0], game)
    play({"type": "guru_answer", "mask": "king"})  # right: no coins
    # Seat 2 announces the Spy, nobody claims; the Spy looks at seat 0's card and her own.
    play({"type": "announce", "mask": "spy"})
    for _ in range(3):
        play({"type": "pass"})
    play({"type": "spy", "target": 0})
    spy = page(by_player[2], game)
    assert (f"You saw your card, the Spy, and {names[0]}&#x27;s card, the Judge: swap these "
            "two cards, or leave them as they are." in spy)


def moves_section(html: str) -> str:
    return re.search(r'<section id="moves-.*?</section>', html, re.S).group(0)


def test_a_turn_at_12_players_is_an_action_then_its_target():
    """At 12 players a turn listed dozens of radios (each target twice, each mask): now one
    form per action, its target in a labelled select whose options are whole legal moves."""
    import json

    staff = UserFactory(is_staff=True)
    others = [UserFactory() for _ in range(11)]
    body = services.create_game(staff, "mascarade", {"players": 12, "first_seat": 0}).body
    for user in others:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    by_player = {0: staff, **{i + 1: user for i, user in enumerate(others)}}
    prep = moves_section(page(by_player[0], game))
    assert prep.count("<form") == 1 and prep.count('type="radio"') == 2
    for seat in range(4):
        services.submit_move(game.pk, {"type": "exchange", "target": seat + 1, "swap": False},
                             user=by_player[seat])
    game.refresh_from_db()
    html = moves_section(page(by_player[4], game))
    assert html.count("<form") <= 4 and html.count('type="radio"') <= 2
    selects = re.findall(r'<select id="([^"]+)" name="move"', html)
    assert len(selects) == 2
    for select in selects:  # each select has a label naming what it chooses
        assert f'<label for="{select}">' in html
    options = [json.loads(html_lib.unescape(v)) for v in re.findall(
        r'<option value="([^"]+)"', html)]
    exchanges = [o for o in options if o["type"] == "exchange"]
    assert len(exchanges) == 11  # the other players (no center card at 12)
    assert {o["type"] for o in options} == {"exchange", "announce"}
    assert "Look at your card" in html
    # The exchange: its target from the select, really swapping from the radios.
    client = browser(by_player[4])
    chosen = next(o for o in exchanges if o["target"] == 9)
    answer = client.post(f"/games/{game.pk}/move/", {
        "move": json.dumps(chosen), "field_swap": "true", "expected_seq": game.seq})
    assert answer.status_code == 302
    from games.models import MoveRecord

    assert MoveRecord.objects.filter(game=game).order_by("-seq").first().payload == {
        "type": "exchange", "target": 9, "swap": True}
