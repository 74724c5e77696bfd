"""The starting deal on Mascarade's page in French (issue 42, item 16): "la carte de tom :
Impératrice", a space before the colon as the site's French strings have it."""

from __future__ import annotations

import html
import re

import pytest

from tests.api.factories import UserFactory
from tests.api.helpers import start_game
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db


def deal_lines(page: str) -> list[str]:
    deal = re.search(r"<details[^>]*>\s*<summary>[^<]*</summary>\s*<ul>(.*?)</ul>", page, re.S)
    return [html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", deal.group(1))]


@pytest.mark.parametrize("language, pattern", [
    ("fr", r"^la carte (de \S+|du centre \d) : \S"),
    ("en", r"^(\S+'s card|center card \d): \S"),
])
def test_the_starting_deal_puts_the_colon_as_the_language_does(language, pattern):
    users = [UserFactory(language=language) for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    page = browser(users[1]).get(f"/games/{game.pk}/").content.decode()
    lines = deal_lines(page)
    assert len(lines) == 6
    for line in lines:
        assert re.match(pattern, line), line
