"""The history's order and numbers, and French colons (issue 42, item 16).

* One order, oldest first (the latest move last), on the game's page (which says so), in its
  older moves and in the mails: the page listed the newest first while the mails listed the
  oldest first, and a move's own sentences came out backwards on the page.
* A move's number on its first line only: the "Turn: bob." a move ends with carried that move's
  number, so it read as if bob's turn were the move before his.
* French puts a space before a colon, as the site's French strings do: the chat's line labels
  had none."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.utils import translation

from games.core import catalog, selectors, services
from games.mail.outgoing import listing
from games.models import PendingDecision
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .helpers import browser

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


def play(game, users, count: int) -> None:
    """``count`` peaceful moves (preparatory exchanges, then looks), each by its awaited
    player."""
    for _ in range(count):
        row = PendingDecision.objects.get(game=game)
        game.refresh_from_db()
        moves = catalog.get_game("mascarade").legal_moves(selectors.load_state(game), row.player)
        move = next((m for m in moves if m["type"] == "look"), None) or next(
            m for m in moves if m["type"] == "exchange" and not m["swap"])
        services.submit_move(game.pk, move, user=users[row.player])
    game.refresh_from_db()


def history_items(page: str, section: str = "history-title") -> list[str]:
    part = page.split(f'id="{section}"', 1)[1]
    items = re.search(r'<ul class="history">(.*?)</ul>', part, re.S).group(1)
    return re.findall(r"<li[^>]*>.*?</li>", items, re.S)


def numbers(items: list[str]) -> list[int]:
    return [int(n) for item in items for n in re.findall(r'<span class="muted">#(\d+)</span>',
                                                          item)]


def test_the_page_lists_the_oldest_first_and_says_so(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    play(game, users, 6)
    page = browser(users[0]).get(f"/games/{game.pk}/").content.decode()
    seqs = numbers(history_items(page))
    assert seqs == sorted(seqs) == list(range(1, 7))
    assert "Oldest first: the latest move is last." in page
    french = browser(UserFactory(language="fr")).get(f"/games/{game.pk}/").content.decode()
    assert "Du plus ancien au plus récent : le dernier coup est en bas." in french


def test_the_older_moves_too_and_their_link_comes_before_the_list(users, monkeypatch):
    from games.web import table as web

    monkeypatch.setattr(web, "HISTORY_MOVES", 3)
    game = start_game(users[0], users[1:], options={"players": 4})
    play(game, users, 7)
    client = browser(users[0])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert numbers(history_items(page)) == [5, 6, 7]
    section = page.split('id="history-title"', 1)[1]
    assert section.index("Show older moves") < section.index('<ul class="history">')
    link = re.search(r'<a href="([^"]+)"[^>]*>Show older moves</a>', page).group(1)
    older = client.get(html.unescape(link)).content.decode()
    assert numbers(history_items(older, "older-title")) == [1, 2, 3, 4]


def test_a_moves_number_is_on_its_first_line_only(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    play(game, users, 3)
    items = history_items(browser(users[1]).get(f"/games/{game.pk}/").content.decode())
    turns = [item for item in items if re.search(r"[Tt]urn: ", item)]
    assert turns, "a move that passes the turn says whose it is"
    for item in turns:
        assert "#" not in item and 'class="follows"' in item
    assert len(numbers(items)) == 3  # one number per move
    # The mail's lines likewise: "#2 ..." then its other lines indented under it.
    with translation.override("en"):
        # (the awaited player: the three moves were the others')
        since = listing(game, users[PendingDecision.objects.get(game=game).player]).since
    assert since[0] == "Since the start:"
    seqs = [int(line[1:].split(" ", 1)[0]) for line in since[1:] if line.startswith("#")]
    assert seqs == [1, 2, 3]
    turns = [line for line in since if re.search(r"[Tt]urn: ", line)]
    assert turns and all(line.startswith("   ") for line in turns)


def test_a_chat_lines_label_takes_a_space_before_its_colon_in_french(users, monkeypatch):
    game = start_game(users[0], users[1:], options={"players": 4})
    kit = catalog.get_kit("mascarade")
    monkeypatch.setattr(kit, "chat_lines", lambda events: [
        (events[0]["player"], "Look into the hat", "divining_hat")])
    monkeypatch.setattr(kit, "chat_source_label", lambda source: "Divining hat")
    player = game.pending_decisions.get().player
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
    move = catalog.get_game("mascarade").legal_moves(loaded.state, player)[0]
    browser(users[player]).post(f"/games/{game.pk}/move/", {
        "move": json.dumps(move), "expected_seq": game.seq})
    english = browser(users[0]).get(f"/games/{game.pk}/").content.decode()
    assert "<strong>Divining hat:</strong> Look into the hat" in english
    french = browser(UserFactory(language="fr")).get(f"/games/{game.pk}/").content.decode()
    assert "<strong>Divining hat :</strong> Look into the hat" in french
