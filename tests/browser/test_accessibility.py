"""An automated accessibility check: axe-core (vendored under ``vendor/axe.min.js``, from the npm
package ``axe-core``, MPL-2.0, its licence header kept) runs in Chromium on the home page, the
lobby, the create page of each game and a table of each game (Mascarade, L'Ère des Masques,
Shadow House) seen by a player and by a spectator, in English and in French, at 375 px and at
desktop width, and a visitor's home, lobby, sign-up, log-in and table pages (375 px, both
languages); no violation of impact "serious" or "critical" may be found. The tables are played
a few moves in (a history, cards played, the player's forms; Shadow House's Culprit greyed).

The site's Content-Security-Policy refuses inline scripts, so ``page.add_script_tag`` (an inline
``<script>``) is refused: the script is evaluated through the DevTools protocol instead
(``page.evaluate``), which the policy does not govern, and the page keeps its real policy.
Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from accounts.models import User
from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, PendingDecision
from games.shadow_house.tests.test_in_a_browser import box_order
from tests.api.factories import UserFactory

from .test_chat_in_a_browser import logged_in
from .test_play_in_a_browser import chromium  # noqa: F401

#: Shadow House's deal: the first person (seat 0) holds the Culprit, greyed in the hand.
HANDS = [["culprit", "alibi", "maid", "governess"],
         ["sharing", "divining_hat", "exchange", "rumour"],
         ["first_on_scene", "alibi", "witness", "toby"],
         ["sheriff", "maid", "little_one", "rumour"],
         ["detective", "accomplice", "exchange", "panic"]]

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
WIDTHS = {"375": {"width": 375, "height": 800}, "desktop": {"width": 1280, "height": 900}}
BAD = ("serious", "critical")
KINDS = ("mascarade", "ere_des_masques", "shadow_house")
#: What each table must show (the states checked are the ones meant).
SHOWN = {("table mascarade", "player"): [".history li", "section.moves"],
         ("table mascarade", "spectator"): [".history li"],
         ("table ere_des_masques", "player"): [".history li", "section.moves"],
         ("table shadow_house", "player"): [".sh-greyed", ".history li", "section.moves"]}
#: What axe is asked to report (its summary of each node, not the whole page).
RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + n.failureSummary)}));
}"""


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def axe_violations(page, source: str) -> list[dict]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(source)
    return [v for v in page.evaluate(RUN) if v["impact"] in BAD]


def started(kind: str, people: list, steps: int) -> str:
    """A game of ``kind`` with ``people`` seated (and a bot for Shadow House, dealt so that the
    first person holds the Culprit, greyed in the hand), then ``steps`` moves played by whoever
    is awaited and on until the first person is awaited: the table shows a history, cards
    played, the first person's forms."""
    options = {"mascarade": {"players": 4}, "ere_des_masques": {"players": 2},
               "shadow_house": {"players": 5, "flash": True, "deal": [box_order(HANDS)]}}[kind]
    seated = people[:options["players"]]
    body = services.create_game(seated[0], kind, options).body
    game_id = body["id"]
    for user in seated[1:]:
        services.join_game(user, game_id)
    if kind == "shadow_house":
        services.add_bots(seated[0], game_id, 1)
    rng = random.Random(23)
    engine = get_game(kind)
    for step in range(steps + 20):
        awaited = (PendingDecision.objects.filter(game_id=game_id, user__isnull=False)
                   .select_related("user").order_by("seat"))
        if step >= steps and any(row.user == seated[0] for row in awaited):
            break
        row = awaited.first()
        loaded = selectors.load_for_viewer(selectors.find_game(game_id), None)
        services.submit_move(game_id, rng.choice(engine.legal_moves(loaded.state, row.player)),
                             user=row.user)
    assert Game.objects.get(pk=game_id).status == "active"
    return game_id


@pytest.mark.postgres
def test_no_serious_accessibility_violation(live_server, chromium):  # noqa: F811
    base = live_server.url
    source = AXE.read_text(encoding="utf-8")
    # (Ada is staff, as the deal of Shadow House asks: the header shows the Admin link too.)
    people = [UserFactory(username=name, is_staff=name == "ada")
              for name in ("ada", "bea", "cyd", "dov")]
    spectator = UserFactory(username="sam")
    games = {kind: started(kind, people, steps) for kind, steps in
             (("mascarade", 5), ("ere_des_masques", 3), ("shadow_house", 2))}
    pages = [("home", "/"), ("lobby", "/games/")]
    pages += [(f"create {kind}", f"/games/new/?game={kind}") for kind in KINDS]
    tables = [(f"table {kind}", f"/games/{game_id}/") for kind, game_id in games.items()]
    found: dict[str, list] = {}
    for language in ("en", "fr"):
        User.objects.filter(pk__in=[people[0].pk, spectator.pk]).update(language=language)
        for width, viewport in WIDTHS.items():
            for who, user, paths in (("player", people[0], pages + tables),
                                     ("spectator", spectator, tables)):
                page = logged_in(chromium, base, user, viewport=viewport).new_page()
                for name, path in paths:
                    page.goto(f"{base}{path}")
                    assert page.locator("html").get_attribute("lang") == language
                    for shown in SHOWN.get((name, who), ()):
                        assert page.locator(shown).count(), f"{name} as {who}: no {shown}"
                    bad = axe_violations(page, source)
                    if bad:
                        found[f"{name} as {who}, {language}, {width}"] = bad
                page.context.close()
        # A visitor, in the browser's language (on a phone): the pages before an account.
        context = chromium.new_context(viewport=WIDTHS["375"], locale=language)
        page = context.new_page()
        for path in ("/", "/games/", "/accounts/signup/", "/accounts/login/",
                     f"/games/{games['mascarade']}/"):
            page.goto(f"{base}{path}")
            assert page.locator("html").get_attribute("lang") == language
            bad = axe_violations(page, source)
            if bad:
                found[f"{path} as a visitor, {language}, 375"] = bad
        context.close()
    assert not found, "\n".join(f"{where}: {v['id']} ({v['impact']}) {v['help']}: {v['nodes']}"
                                for where, bad in found.items() for v in bad)
