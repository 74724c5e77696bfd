"""A real browser plays a round of Shadow House Mascarade to its end at 375 px: three people and
two bots at a flash investigation, dealt so that the second player opens with a Sharing; each
person picks the card they pass left in the one form the table shows them (while the others
choose too), they talk in the table's chat (a message comes in live on another's page), and they
play on through the table's forms (a card, its target) until the round ends; screenshots of the
table go to ``docs/screenshots/``. Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

from collections import Counter

import pytest

from games.core import services
from games.models import Game, MoveRecord, PendingDecision
from games.shadow_house.rules.cards import BOX, CARDS
from tests.api.factories import UserFactory
from tests.browser.test_chat_in_a_browser import logged_in, watch_console
from tests.browser.test_play_in_a_browser import SHOTS, chromium  # noqa: F401

#: Seats 0–2 people, 3–4 bots; seat 0 opens with the First on scene, seat 1 plays the Sharing.
HANDS = [["first_on_scene", "alibi", "maid", "governess"],
         ["sharing", "divining_hat", "exchange", "rumour"],
         ["culprit", "alibi", "witness", "toby"],
         ["sheriff", "maid", "little_one", "rumour"],
         ["detective", "accomplice", "exchange", "panic"]]


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def box_order(hands):
    wanted = [card for hand in hands for card in hand]
    rest = Counter(BOX) - Counter(wanted)
    return wanted + [card for card in CARDS for _ in range(rest[card])]


def act(page) -> str:
    """One decision through the page's forms: the first card of a choice, the hat's words, or
    the first card offered to play (on the first target listed). Returns what was done."""
    moves = page.locator("section.moves")
    if moves.locator("input[type=radio]").count():
        moves.locator("input[type=radio]").first.check()
        with page.expect_navigation():
            moves.locator("button", has_text="Confirm").click()
        return "choice"
    if moves.locator("#hat-text").count():
        moves.locator("#hat-text").fill("I suspect someone who kept an Alibi")
        with page.expect_navigation():
            moves.locator("button", has_text="Say it").click()
        return "say"
    with page.expect_navigation():
        moves.locator("form button[type=submit]").first.click()
    return "play"


@pytest.mark.postgres
def test_a_round_with_a_sharing_and_a_chat_exchange(live_server, chromium):  # noqa: F811
    base = live_server.url
    people = [UserFactory(username=name, is_staff=index == 0)
              for index, name in enumerate(("ann", "ben", "cat"))]
    body = services.create_game(people[0], "shadow_house",
                                {"players": 5, "flash": True, "deal": [box_order(HANDS)]}).body
    game_id = body["id"]
    for user in people[1:]:
        services.join_game(user, game_id)
    services.add_bots(people[0], game_id, 2)
    game = Game.objects.get(pk=game_id)
    assert game.status == "active"
    url = f"{base}/games/{game_id}/"
    refused: list[str] = []
    pages = []
    for user in people:
        page = logged_in(chromium, base, user, viewport={"width": 375, "height": 800}).new_page()
        watch_console(page, refused)
        page.goto(url)
        pages.append(page)

    # Ben opens with the Sharing: everyone with cards chooses at once.
    ben = pages[1]
    ben.locator("section.moves").wait_for()
    ben.locator("section.moves fieldset", has_text="Sharing").locator("button").click()
    ben.wait_for_load_state()
    for page in pages:
        page.goto(url)
        page.locator("text=You give yours to").wait_for(timeout=5000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages[2].screenshot(path=str(SHOTS / "shadow-table-375.png"), full_page=True)
    for page in pages:
        # (loaded anew once the others' choices and the bots' are in: a refresh the stream
        # brings swapped in between a click's press and its release swallows the click)
        page.goto(url)
        assert act(page) == "choice"
    gifts = [e for events in MoveRecord.objects.filter(game=game).values_list("events", flat=True)
             for e in events if e["type"] == "give" and e.get("why") == "sharing"]
    assert len(gifts) == 5, "all five passed a card left"

    # A word at the table: Cat's message comes in live on Ann's page.
    cat, ann = pages[2], pages[0]
    cat.goto(url)
    cat.fill("#chat-text", "Ben, why the Sharing so early?")
    cat.locator("#chat-form button[type=submit]").click()
    ann.locator("#chat-messages li", has_text="why the Sharing so early").wait_for(timeout=8000)
    ann.fill("#chat-text", "Nobody trusts the Maid")
    ann.locator("#chat-form button[type=submit]").click()
    cat.locator("#chat-messages li", has_text="Nobody trusts the Maid").wait_for(timeout=8000)

    # Play on through the forms until the round ends.
    names = [user.username for user in people]
    done = Counter()
    for _step in range(200):
        game.refresh_from_db()
        if game.status != "active":
            break
        row = (PendingDecision.objects.filter(game=game, user__isnull=False)
               .select_related("user").order_by("seat").first())
        assert row is not None, "a person is awaited while the bots have played"
        page = pages[names.index(row.user.username)]
        page.goto(url)
        page.locator("section.moves").wait_for(timeout=5000)
        done[act(page)] += 1
    game.refresh_from_db()
    assert game.status == "finished", "the round did not end"
    end = pages[0]
    end.goto(url)
    assert "The investigation is over" in end.content()
    end.screenshot(path=str(SHOTS / "shadow-table-end-375.png"), full_page=True)
    desktop = end.context.browser.new_context(viewport={"width": 1280, "height": 900})
    wide = desktop.new_page()
    wide.context.add_cookies(end.context.cookies())
    wide.goto(f"{url}?at=3")
    wide.screenshot(path=str(SHOTS / "shadow-table-desktop.png"))
    desktop.close()
    for name in ("shadow-table-375", "shadow-table-end-375", "shadow-table-desktop"):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
    assert refused == []
