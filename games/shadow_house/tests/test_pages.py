"""Shadow House Mascarade's pages through the same site code as the other games': the create page
offers it, the table shows the viewer's hand as cards (the Culprit greyed while another card is
held), every player's cards face up, the simultaneous choice as one form that each player sends
from the page they read (none refused because another chose first), the Divining hat's words
typed in a box and posted, escaped, to the chat; nothing a viewer could not know is in their
HTML; a whole game by forms, then its replay in French."""

from __future__ import annotations

import html as htmlmod
import json
import random
import re
from collections import Counter
from unittest import mock

import pytest

from games.core import selectors, services
from games.core.catalog import get_game
from games.engine import MODERATOR
from games.models import Game, MoveRecord, PendingDecision
from games.shadow_house.rules.cards import BOX, CARDS
from tests.api.factories import UserFactory
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db

#: Three hands (seat 0, 1, 2) for a game of 3: seat 0 opens with the First on scene.
HANDS = [["first_on_scene", "sharing", "alibi", "toby"],
         ["culprit", "maid", "divining_hat", "exchange"],
         ["detective", "sheriff", "witness", "rumour"]]


def box_order(hands: list[list[str]]) -> list[str]:
    """A box order whose round deck, dealt 4 by 4 from seat 0, gives ``hands`` (SH-1)."""
    wanted = [card for hand in hands for card in hand]
    rest = Counter(BOX) - Counter(wanted)
    return wanted + [card for card in CARDS for _ in range(rest[card])]




@pytest.fixture
def users():
    staff = UserFactory(is_staff=True)
    return [staff, UserFactory(), UserFactory(), UserFactory()]


def dealt(users, hands=HANDS) -> Game:
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(hands)]}).body
    for user in users[1:3]:
        services.join_game(user, body["id"])
    return Game.objects.get(pk=body["id"])


def truth(game):
    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)


def values(html: str) -> list[str]:
    """Every move a page offers (buttons, radios, a select's options), as JSON text."""
    found = re.findall(r'name="move"(?: id="[^"]*")? value="([^"]+)"', html)
    for select in re.findall(r'<select[^>]*name="move"[^>]*>(.*?)</select>', html, re.S):
        found += re.findall(r'<option value="([^"]+)"', select)
    return [htmlmod.unescape(v) for v in found]


def post(client, game, move, seq=None):
    return client.post(f"/games/{game.pk}/move/",
                       {"move": json.dumps(move), "expected_seq": game.seq if seq is None
                        else seq})


def test_create_page_offers_the_game(users):
    client = browser(users[1])
    form = client.get("/games/new/?game=shadow_house").content.decode()
    assert 'name="game" value="shadow_house"' in form and 'name="players"' in form
    assert 'name="flash"' in form and "Shadow House Mascarade in short" in form
    answer = client.post("/games/new/", {"game": "shadow_house", "players": 4, "flash": "on",
                                         "move_timeout": 3600, "challenge_timeout": 600,
                                         "absent_policy": "bot", "bots": 3})
    game = Game.objects.get(created_by=users[1])
    assert answer.status_code == 302 and game.kind == "shadow_house"
    assert game.status == "active" and game.options["flash"] is True
    assert game.options["players"] == 4
    bad = client.post("/games/new/", {"game": "shadow_house", "players": 3,
                                      "move_timeout": 3600, "challenge_timeout": 600,
                                      "absent_policy": "bot", "bots": 3})
    assert bad.status_code == 200 and Game.objects.count() == 1
    assert "At most 2 bots" in bad.content.decode()


def test_the_table_shows_hands_cards_played_and_hides_the_rest(users):
    game = dealt(users)
    assert [row.player for row in PendingDecision.objects.filter(game=game)] == [1]
    pages = [browser(user).get(f"/games/{game.pk}/").content.decode() for user in users[:4]]
    mine, spectator = pages[1], pages[3]
    # The First on scene lies face up in front of seat 0, for everyone.
    for page in pages:
        assert 'sh-card sh-first_on_scene">First on scene' in page
    # Each player's hand is theirs alone; the spectator sees none.
    hand_of = re.compile(r'<ul class="hand"[^>]*>(.*?)</ul>', re.S)
    secret = truth(game)["moderator"]["hands"]
    for seat in range(3):
        shown = re.findall(r'sh-card sh-(\w+)', hand_of.search(pages[seat]).group(1))
        assert shown == secret[seat]
        for other in set(secret[(seat + 1) % 3]) - set(secret[seat]) - {"first_on_scene"}:
            assert f"sh-{other}" not in hand_of.search(pages[seat]).group(1)
    assert hand_of.search(spectator) is None
    # The Culprit greyed: it cannot be played while another card is held.
    assert "sh-card sh-culprit sh-greyed" in mine and "only as your last card" in mine
    offered = [json.loads(v) for v in values(mine)]
    assert {m["card"] for m in offered} == {"maid", "divining_hat", "exchange"}
    assert {m.get("target") for m in offered if m["card"] == "exchange"} == {0, 2}
    assert "On whom?" in mine
    refused = post(browser(users[1]), game, {"type": "play", "card": "culprit"})
    assert refused.status_code == 302 and MoveRecord.objects.filter(game=game).count() == 0


def test_the_divining_hat_s_words_go_to_the_chat_escaped(users):
    game = dealt(users)
    seat1 = browser(users[1])
    assert post(seat1, game, {"type": "play", "card": "divining_hat"}).status_code == 302
    game.refresh_from_db()
    page = seat1.get(f"/games/{game.pk}/").content.decode()
    assert 'name="field_text"' in page and "Divining hat: say what you suspect" in page
    said = seat1.post(f"/games/{game.pk}/move/", {
        "move": json.dumps({"type": "say", "text": ""}), "expected_seq": game.seq,
        "field_text": "<script>alert(1)</script> it is Bob"})
    assert said.status_code == 302
    record = MoveRecord.objects.filter(game=game).order_by("-seq").first()
    assert record.payload == {"type": "say", "text": "<script>alert(1)</script> it is Bob"}
    for user in (users[2], users[3]):
        page = browser(user).get(f"/games/{game.pk}/").content.decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt; it is Bob" in page
        assert "<script>alert(1)" not in page
        assert "Divining hat" in page


def test_sharing_is_one_form_each_player_sends_from_the_page_they_read(users):
    hands = [["first_on_scene", "exchange", "alibi", "toby"],
             ["sharing", "maid", "divining_hat", "culprit"],
             ["detective", "sheriff", "witness", "rumour"]]
    game = dealt(users, hands)
    clients = [browser(user) for user in users[:3]]
    assert post(clients[1], game, {"type": "play", "card": "sharing"}).status_code == 302
    game.refresh_from_db()
    assert sorted(PendingDecision.objects.filter(game=game).values_list("player", flat=True)) \
        == [0, 1, 2]
    read_seq = game.seq
    pages = [c.get(f"/games/{game.pk}/").content.decode() for c in clients]
    assert "You give yours to" in pages[0] and "Choose the card you give" in pages[0]
    before = truth(game)["moderator"]["hands"]
    chosen = {}
    for seat, (client, page) in enumerate(zip(clients, pages, strict=True)):
        gifts = [json.loads(v) for v in values(page)]
        assert {g["card"] for g in gifts} == set(before[seat]) and {g["type"] for g in gifts} \
            == {"give"}
        chosen[seat] = gifts[0]["card"]
        answer = post(client, game, gifts[0], seq=read_seq)
        assert answer.status_code == 302
        follow = client.get(answer["Location"]).content.decode()
        assert "no longer" not in follow.lower()
        if seat < 2:
            assert "waiting for the others" in follow
    game.refresh_from_db()
    after = truth(game)["moderator"]["hands"]
    for seat in range(3):
        expected = Counter(before[seat]) - Counter([chosen[seat]]) + Counter(
            [chosen[(seat - 1) % 3]])
        assert Counter(after[seat]) == expected
    history = clients[2].get(f"/games/{game.pk}/").content.decode()
    giver = users[1].username
    assert f"{giver} gives" in history


def test_a_whole_game_by_forms_then_its_replay_in_french(users):
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=11):
        body = services.create_game(users[1], "shadow_house", {"players": 3}).body
    for user in users[2:4]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    seated = {seat.position: seat.user for seat in game.seats.all()}
    clients = {p: browser(u) for p, u in seated.items()}
    rng = random.Random(5)
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != "active":
            break
        player = PendingDecision.objects.filter(game=game).order_by("seat").first().player
        html = clients[player].get(f"/games/{game.pk}/").content.decode()
        offered = values(html)
        assert offered, "the awaited player has a form"
        post(clients[player], game, json.loads(rng.choice(offered)))
    assert game.status == "finished"
    final = clients[0].get(f"/games/{game.pk}/").content.decode()
    assert "on points" in final and "Round 1 is over." in final
    replay = clients[0].get(f"/games/{game.pk}/?at=3").content.decode()
    assert "after move 3 of" in replay
    seated[0].language = "fr"
    seated[0].save()
    french = clients[0].get(f"/games/{game.pk}/").content.decode()
    assert "Pioche" in french and "Premier sur place" in french


def test_the_rules_page_has_the_game(users):
    page = browser().get("/rules/").content.decode()
    for title in ("First on scene", "Divining hat", "Governess", "Panic!!!"):
        assert title in page


def test_a_witness_swap_through_the_forms(users):
    hands = [["first_on_scene", "exchange", "alibi", "toby"],
             ["witness", "maid", "divining_hat", "exchange"],
             ["culprit", "sheriff", "detective", "rumour"]]
    game = dealt(users, hands)
    witness, target, other = browser(users[1]), browser(users[2]), browser(users[0])
    play = {"type": "play", "card": "witness", "target": 2}
    assert json.dumps(play, sort_keys=True) in values(witness.get(f"/games/{game.pk}/")
                                                      .content.decode())
    post(witness, game, play)
    game.refresh_from_db()
    seen = witness.get(f"/games/{game.pk}/").content.decode()
    name = users[2].username
    assert f"Your Witness sees {name}'s hand: Culprit, Detective, Sheriff, Rumour." in seen
    outsider = other.get(f"/games/{game.pk}/").content.decode()
    assert "Witness sees" not in outsider and "Culprit, Detective" not in outsider
    # (the target knows their own hand: the history's opening says what they were dealt)
    assert "Witness sees" not in target.get(f"/games/{game.pk}/").content.decode()
    offered = [json.loads(v) for v in values(seen)]
    assert {"type": "witness_pass"} in offered
    assert {"type": "witness_exchange", "card": "maid"} in offered
    post(witness, game, {"type": "witness_exchange", "card": "maid"})
    game.refresh_from_db()
    asked = target.get(f"/games/{game.pk}/").content.decode()
    assert f"{users[1].username}&#x27;s Witness saw your hand and swaps a card with you" in asked
    post(target, game, {"type": "give", "card": "rumour"})
    game.refresh_from_db()
    hands_now = truth(game)["moderator"]["hands"]
    assert "rumour" in hands_now[1] and "maid" in hands_now[2] and "maid" not in hands_now[1]
