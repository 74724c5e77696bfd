"""Issue 23 on the table page: who really played a move (a timeout, a bot standing in), the
replay's banner, the history's numbering and its older moves, pause requests, readable
buttons, plural-aware words."""

from __future__ import annotations

import re

import pytest

from games.core import selectors, services
from games.core.services.deadlines import play_timeout_now
from games.models import MoveRecord, PendingDecision
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .helpers import browser

pytestmark = pytest.mark.django_db




def page(client, game, suffix=""):
    answer = client.get(f"/games/{game.pk}/{suffix}")
    return answer, answer.content.decode()


def awaited(game):
    return PendingDecision.objects.filter(game=game).order_by("player").first().player


@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


def _play_first_legal(game, user):
    game.refresh_from_db()
    loaded = selectors.load_for_viewer(game, user)
    legal = selectors.game_payload(loaded, user)["you"]["legal_moves"]
    services.submit_move(game.pk, legal[0], user=user)


def test_the_history_says_when_a_timeout_or_a_stand_in_bot_played(users):
    """Issue 23.1: a timed-out move read as if its player chose it, and a bot standing in for an
    absent player was invisible. The history (and the API's ``actor``) says who played."""
    from games.core.services.bots import play_bots

    game = start_game(users[0], users[1:], options={"players": 4, "absent_after": 1})
    late = awaited(game)
    late_name = users[late].username
    play_timeout_now(game.pk, late, actor="timeout")  # seat marked absent after 1 timeout
    game.refresh_from_db()
    while awaited(game) != late:
        _play_first_legal(game, users[awaited(game)])
        game.refresh_from_db()
    assert play_bots(game.pk, game.seq, limit=1) == 1
    stood_in = MoveRecord.objects.get(game=game, seq=game.seq + 1)
    assert (stood_in.actor, stood_in.seat.position) == ("bot", late)
    game.refresh_from_db()
    html = page(browser(users[(late + 1) % 4]), game)[1]
    assert html.count("played by the deadline&#x27;s default") == 1
    assert html.count(f"played by a bot standing in for {late_name}") == 1
    # The API's events carry their actor, every one of them.
    api = browser(users[0]).get(f"/api/v1/games/{game.pk}/events/?after=0").json()
    assert api["results"] and all("actor" in e for e in api["results"])
    assert {e["actor"] for e in api["results"] if e["seq"] == 1} == {"timeout"}
    assert {e["actor"] for e in api["results"] if e["seq"] == stood_in.seq} == {"bot"}


def test_a_mail_says_when_a_timeout_played_the_move(users):
    """Issue 23.1, the mails' sentences of a move (``_move_sentences``)."""
    from games.notify.messages import _move_sentences
    game = start_game(users[0], users[1:], options={"players": 4})
    late = awaited(game)
    play_timeout_now(game.pk, late, actor="timeout")
    game.refresh_from_db()

    class Note:
        game_id, user = game.pk, users[(late + 1) % 4]

    Note.game = game
    sentences = _move_sentences(Note, 1)
    assert any("played by the deadline's default" in s for s in sentences[1:])


def _finished_game(users):
    import random

    from games.core.catalog import get_game

    game = start_game(users[0], users[1:], options={"players": 4})
    rng = random.Random(5)
    engine = get_game("mascarade")
    while True:
        game.refresh_from_db()
        if game.status != "active":
            return game
        row = PendingDecision.objects.filter(game=game).first()
        move = rng.choice(engine.legal_moves(selectors.load_state(game), row.player))
        services.submit_move(game.pk, move, user=users[row.player])


def _banner(html):
    return re.search(r'<div class="banner"[^>]*>(.*?)</div>', html, re.S).group(1)


def test_a_replay_step_before_the_end_names_no_winners(users):
    """Issue 23.2: the replay's banner said "Winner(s): ." at every step."""
    game = _finished_game(users)
    client = browser(users[0])
    names = [users[w].username for w in game.winners]
    step = _banner(page(client, game, "?at=5")[1])
    assert "Winner" not in step and "The game is over" not in step
    for suffix in ("", f"?at={game.seq}"):
        end = _banner(page(client, game, suffix)[1])
        assert "The game is over" in end and all(name in end for name in names)
        assert re.search(r"Winners?: \w", end) and "Winner(s)" not in end


def _seqs(html):
    return [int(n) for n in re.findall(r'<span class="muted">#(\d+)</span>', html)]


def test_the_history_numbers_once_and_shows_older_moves_on_request(users, monkeypatch):
    """Issue 23.3: the history numbered its lines twice (an <ol> and "#seq") and hid every move
    before the last ``HISTORY_MOVES``."""
    from games.web import table as web

    monkeypatch.setattr(web, "HISTORY_MOVES", 6)
    game = start_game(users[0], users[1:], options={"players": 4})
    for _ in range(3):
        _play_first_legal(game, users[awaited(game)])
    client = browser(users[0])
    short = page(client, game)[1]
    assert "<ol class=\"history\"" not in short and 'class="history"' in short
    assert "Show older moves" not in short and set(_seqs(short)) == {1, 2, 3}
    for _ in range(7):
        _play_first_legal(game, users[awaited(game)])
    game.refresh_from_db()
    assert game.seq == 10
    html = page(client, game)[1]
    assert set(_seqs(html)) == set(range(5, 11))
    link = re.search(r'<a href="([^"]+)"[^>]*>Show older moves</a>', html).group(1)
    assert "history=all" in link
    older = client.get(link.replace("&amp;", "&")).content.decode()
    section = older.split('id="older-history"', 1)[1]
    assert set(_seqs(section)) == {1, 2, 3, 4}
    assert set(_seqs(older)) == set(range(1, 11))


def test_a_pause_request_is_shown_to_the_other_players_and_the_asker(users):
    """Issue 23.4: a pause request was invisible to everyone but its asker's button."""
    game = start_game(users[0], users[1:], options={"players": 4})
    services.request_pause(users[1], game.pk, True)
    asker = users[1].username
    other = page(browser(users[2]), game)[1]
    assert f"{asker} asked for a pause (it starts when every player asks)." in other
    assert other.count("asks for a pause</span>") == 1  # the asker's seat badge
    live = browser(users[3]).get(f"/games/{game.pk}/live/").content.decode()
    assert f"{asker} asked for a pause" in live
    own = page(browser(users[1]), game)[1]
    assert "You asked for a pause (it starts when every player asks)" in own
    assert "Withdraw my pause request" in own
    services.request_pause(users[1], game.pk, False)
    assert "asked for a pause" not in page(browser(users[2]), game)[1]


def _css_rule(selector: str) -> str:
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "site.css").read_text()
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))
    return " ".join(body for head, body in rules
                    if selector in [part.strip() for part in head.split(",")])


def test_every_button_style_is_readable_on_a_white_card(users):
    """Issue 23.5: the vacation's cancel button (``button.link``) was white on white: it kept
    the buttons' white text and lost their background."""
    import datetime as dt

    from django.utils import timezone

    client = browser(users[0])
    start = timezone.now().date() + dt.timedelta(days=10)
    client.post("/accounts/profile/", {"form": "vacation", "start": start,
                                       "end": start + dt.timedelta(days=2)})
    html = client.get("/accounts/profile/").content.decode()
    cancel = re.search(r'<button type="submit" class="([^"]+)">cancel</button>', html)
    assert cancel and cancel.group(1) == "link"
    link = _css_rule("button.link")
    assert "background: none" in link and re.search(r"(^|[ ;])color: var\(--accent\)", link)
    secondary = _css_rule("button.secondary")
    assert "background: #fff" in secondary and "color: var(--accent)" in secondary


def _translatable_strings() -> list[tuple[str, str]]:
    """Every msgid of the Python code and the templates of the site and its games (roughly:
    the literals of gettext calls and the bodies of translate/blocktranslate tags)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = []
    calls = re.compile(r"\b(?:_|gettext|gettext_lazy|pgettext|pgettext_lazy)\(\s*(?:\"[^\"]*\""
                       r",\s*)?((?:\"[^\"]*\"\s*)+)")
    tags = re.compile(r"{% (?:translate|trans) \"([^\"]*)\"|{% blocktranslate[^%]*%}(.*?){% "
                      r"(?:plural|endblocktranslate)", re.S)
    for path in [*root.glob("games/**/*.py"), *root.glob("accounts/*.py"),
                 *root.glob("moderation/*.py")]:
        for match in calls.finditer(path.read_text()):
            out.append((str(path), "".join(re.findall(r"\"([^\"]*)\"", match.group(1)))))
    for path in [*root.glob("templates/**/*.html"), *root.glob("templates/**/*.txt"),
                 *root.glob("games/**/templates/**/*.html")]:
        for match in tags.finditer(path.read_text()):
            out.append((str(path), match.group(1) or match.group(2)))
    return out


def test_no_message_counts_with_an_s_in_brackets_nor_needs_an_elision():
    from pathlib import Path

    """Issue 23.6: words built with a count were not plural-aware ("1 places libres", "coin(s)")
    and "Turn of %(player)s" made French write "Tour de alice"."""
    strings = _translatable_strings()
    assert len(strings) > 500
    bracketed = [(path, s) for path, s in strings if "(s)" in s]
    assert bracketed == []
    elided = [(path, s) for path, s in strings
              if re.search(r"[Tt]urn of %\(player\)s|%\(player\)s's turn", s)]
    assert elided == []
    # The English "1 of 4 seats free" stands, but the French needs its singular: a count.
    root = Path(__file__).resolve().parents[2] / "templates"
    assert re.search(r"{% blocktranslate count free=[^%]*%}Waiting for players",
                     (root / "games" / "_waiting.html").read_text())
    assert re.search(r"{% blocktranslate count used=[^%]*%}While you are away",
                     (root / "account" / "profile.html").read_text())


def test_the_justice_board_and_the_open_table_count_in_words(users):
    from games.models import Game as GameRow

    body = services.create_game(users[0], "mascarade", {"players": 4}).body
    services.join_game(users[1], body["id"])
    waiting = page(browser(users[0]), GameRow.objects.get(pk=body["id"]))[1]
    assert "2 of 4 seats free" in waiting
    for user in users[2:]:
        services.join_game(user, body["id"])
    html = page(browser(users[0]), GameRow.objects.get(pk=body["id"]))[1]
    assert "Justice board: 0 coins." in html
