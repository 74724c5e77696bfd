"""L'Ère des Masques's pages through the same site code as Mascarade's: the create page and the
lobby offer it, the table shows the viewer's hand as cards to play and both zones by kind, the
counter is a form built from the legal moves, the history speaks in sentences, a finished game
replays as each viewer saw it; nothing a viewer could not know is in their HTML."""

from __future__ import annotations

import json
import random
import re
from unittest import mock

import pytest

from games.core import selectors, services
from games.core.catalog import get_game
from games.engine import MODERATOR
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db

TITLES = {"noble": "Noble", "recruiter": "Recruiter", "spy": "Spy", "brute": "Brute",
          "assassin": "Assassin"}




@pytest.fixture
def users():
    return [UserFactory() for _ in range(3)]


def started(users, seed=7) -> Game:
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=seed):
        body = services.create_game(users[0], "ere_des_masques", {}).body
    services.join_game(users[1], body["id"])
    return Game.objects.get(pk=body["id"])


def truth(game):
    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)


def awaited(game):
    return PendingDecision.objects.get(game=game).player


def test_create_page_and_lobby_offer_the_game(users):
    client = browser(users[0])
    home = client.get("/").content.decode()
    assert "L&#x27;Ère des Masques" in home or "L'Ère des Masques" in home
    form = client.get("/games/new/?game=ere_des_masques").content.decode()
    assert 'name="game" value="ere_des_masques"' in form
    assert "Time to let a card pass or counter it" in form and 'name="players"' not in form
    answer = client.post("/games/new/", {"game": "ere_des_masques", "move_timeout": 3600,
                                         "challenge_timeout": 600, "absent_policy": "bot",
                                         "bots": 1})
    game = Game.objects.get(created_by=users[0])
    assert answer.status_code == 302 and game.kind == "ere_des_masques"
    assert game.status == "active" and game.options["challenge_timeout"] == 600
    bad = client.post("/games/new/", {"game": "ere_des_masques", "move_timeout": 3600,
                                      "challenge_timeout": 600, "absent_policy": "bot",
                                      "bots": 2})
    assert bad.status_code == 200 and Game.objects.count() == 1
    lobby = browser().get("/games/?game=ere_des_masques").content.decode()
    assert f"/games/{game.pk}/" not in lobby or "ere_des_masques" in lobby
    open_one = services.create_game(users[1], "ere_des_masques", {}).body
    mascarade = services.create_game(users[2], "mascarade", {"players": 4}).body
    lobby = browser().get("/games/?game=ere_des_masques").content.decode()
    assert f"/games/{open_one['id']}/" in lobby and f"/games/{mascarade['id']}/" not in lobby


def test_the_table_shows_the_hand_as_cards_to_play_and_hides_the_rest(users):
    game = started(users)
    secret = truth(game)["moderator"]
    player = awaited(game)
    mine = browser(users[player]).get(f"/games/{game.pk}/").content.decode()
    other = browser(users[1 - player]).get(f"/games/{game.pk}/").content.decode()
    spectator = browser(users[2]).get(f"/games/{game.pk}/").content.decode()
    # The hand as buttons that play each kind, and "draw 2".
    for kind in set(secret["hands"][player]):
        move = json.dumps({"card": kind, "type": "play"}, sort_keys=True)
        assert f'value="{move.replace(chr(34), "&quot;")}"' in mine
    assert "Draw 2 cards" in mine and "Draw 2 cards" not in other
    # Zones by kind with the distance to each victory, for everyone.
    for html in (mine, other, spectator):
        assert "Four of a kind:" in html and "Five kinds:" in html
        assert "Draw pile: 26 cards." in html
    # The other hand appears nowhere: the opponent's page lists only its own hand.
    hand_of = re.compile(r'<ul class="hand"[^>]*>(.*?)</ul>', re.S)
    shown = re.findall(r'ere-card ere-(\w+)', hand_of.search(other).group(1))
    assert shown == secret["hands"][1 - player]
    assert hand_of.search(spectator) is None


def test_a_counter_through_the_forms_and_the_face_down_card(users):
    game = started(users)
    player = awaited(game)
    owner, opponent = browser(users[player]), browser(users[1 - player])
    card = truth(game)["moderator"]["hands"][player][0]
    move = json.dumps({"type": "play", "card": card})
    assert owner.post(f"/games/{game.pk}/move/", {"move": move,
                                                  "expected_seq": game.seq}).status_code == 302
    game.refresh_from_db()
    mine = owner.get(f"/games/{game.pk}/").content.decode()
    theirs = opponent.get(f"/games/{game.pk}/").content.decode()
    spectator = browser(users[2]).get(f"/games/{game.pk}/").content.decode()
    assert f"You played the {TITLES[card]} face down" in mine
    assert "played a card face down" in theirs and "played a card face down" in spectator
    assert f"plays the {TITLES[card]} face down" not in theirs
    # The counter: one button per kind, and "let it pass".
    assert "Let it pass" in theirs
    for kind in TITLES:
        assert f"Counter: it is the {TITLES[kind]}" in theirs
    wrong = next(k for k in TITLES if k != card)
    counter = json.dumps({"type": "counter", "kind": wrong})
    assert opponent.post(f"/games/{game.pk}/move/", {"move": counter,
                                                     "expected_seq": game.seq}).status_code == 302
    game.refresh_from_db()
    theirs = opponent.get(f"/games/{game.pk}/").content.decode()
    assert "The counter is wrong." in theirs and "Discard a card from your hand" in theirs
    # A stale form changes nothing and says why.
    stale = opponent.post(f"/games/{game.pk}/move/", {"move": counter, "expected_seq": 1},
                          follow=True)
    assert stale.status_code == 200 and Game.objects.get(pk=game.pk).seq == game.seq


def test_a_whole_game_by_forms_then_its_replay_in_french(users):
    game = started(users, seed=3)
    rng = random.Random(3)
    clients = [browser(users[0]), browser(users[1])]
    while True:
        game.refresh_from_db()
        if game.status != "active":
            break
        player = awaited(game)
        html = clients[player].get(f"/games/{game.pk}/").content.decode()
        values = re.findall(r'name="move" value="([^"]+)"', html)
        assert values, "the awaited player has buttons"
        move = rng.choice(values).replace("&quot;", '"')
        clients[player].post(f"/games/{game.pk}/move/", {"move": move,
                                                         "expected_seq": game.seq})
    replay = browser(users[0]).get(f"/games/{game.pk}/?at=3").content.decode()
    assert "after move 3 of" in replay
    seqs = {int(n) for n in re.findall(r'<span class="muted">#(\d+)</span>', replay)}
    assert seqs and max(seqs) == 3
    users[0].language = "fr"
    users[0].save()
    french = browser(users[0]).get(f"/games/{game.pk}/").content.decode()
    assert "Pioche" in french and "Quatre identiques" in french


def test_the_rules_page_has_both_games(users):
    html = browser().get("/rules/").content.decode()
    for kind in TITLES.values():
        assert kind in html
    assert "Mascarade" in html
