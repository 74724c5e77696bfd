"""The site's pages: lobby, create, the table and its live fragment, moves through forms, the
rules, the language preference; the rendered HTML shows only what the viewer may know."""

from __future__ import annotations

import json
import re

import pytest

from games.core import services
from games.models import Game, MoveRecord, PendingDecision
from games.web.table import HISTORY_MOVES
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .helpers import browser

pytestmark = pytest.mark.django_db

DEAL = ["judge", "king", "empress", "thief", "cheater", "spy"]




@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def game(users):
    return start_game(users[0], users[1:], options={"players": 4})


def dealt_game(users):
    """A started game with a fixed deal (staff only) and seat 0 first; its players by seat."""
    staff = UserFactory(is_staff=True)
    body = services.create_game(staff, "mascarade", {"players": 4, "deal": DEAL,
                                                     "first_seat": 0}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    return Game.objects.get(pk=body["id"]), {0: staff, 1: users[1], 2: users[2], 3: users[3]}


def page(client, game, suffix=""):
    answer = client.get(f"/games/{game.pk}/{suffix}")
    return answer, answer.content.decode()


def awaited(game):
    return PendingDecision.objects.get(game=game).player


def test_home_and_lobby_list_open_games_and_mine(users):
    open_game = services.create_game(users[0], "mascarade", {"players": 5}).body
    for who in (None, users[1]):
        for url in ("/", "/games/"):
            answer = browser(who).get(url)
            assert answer.status_code == 200
            assert f"/games/{open_game['id']}/" in answer.content.decode()
    mine = browser(users[0]).get("/games/?status=open").content.decode()
    assert "Your games" in mine


def test_create_needs_a_login_and_makes_a_game(users):
    assert browser().get("/games/new/").status_code == 302
    client = browser(users[0])
    assert client.get("/games/new/").status_code == 200
    answer = client.post("/games/new/", {"players": 4, "scenario": "B",
                                         "challenge_mode": "simultaneous",
                                         "move_timeout": 3600, "challenge_timeout": 600,
                                         "absent_policy": "bot", "log_masks": "on",
                                         "bots": 3})
    game = Game.objects.get(created_by=users[0])
    assert answer.status_code == 302 and answer["Location"] == f"/games/{game.pk}/"
    assert game.status == "active" and game.options["scenario"] == "B"
    assert game.options["challenge_mode"] == "simultaneous"
    bad = client.post("/games/new/", {"players": 4, "scenario": "A", "challenge_mode":
                                      "sequential", "move_timeout": 3600,
                                      "challenge_timeout": 600, "absent_policy": "bot",
                                      "bots": 5})
    assert bad.status_code == 200 and "At most 3 bots" in bad.content.decode()
    assert Game.objects.count() == 1


def test_join_an_open_game_from_its_page_then_it_starts(users):
    body = services.create_game(users[0], "mascarade", {"players": 4}).body
    game = Game.objects.get(pk=body["id"])
    anonymous = page(browser(), game)[1]
    assert "Log in to join" in anonymous
    for user in users[1:]:
        client = browser(user)
        assert "Join this game" in page(client, game)[1]
        assert client.post(f"/games/{game.pk}/join/").status_code == 302
    game.refresh_from_db()
    assert game.status == "active"


def test_a_private_game_is_hidden_from_outsiders(users):
    body = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    game = Game.objects.get(pk=body["id"])
    assert page(browser(), game)[0].status_code == 404
    assert page(browser(users[1]), game)[0].status_code == 404
    creator_page = page(browser(users[0]), game)[1]
    assert f"invite={game.invite_code}" in creator_page
    assert page(browser(users[1]), game, "?invite=wrong")[0].status_code == 404
    invited = page(browser(users[1]), game, f"?invite={game.invite_code}")[1]
    assert "Join this game" in invited and f'value="{game.invite_code}"' in invited
    joined = browser(users[1]).post(f"/games/{game.pk}/join/",
                                    {"invite_code": game.invite_code})
    assert joined.status_code == 302
    assert page(browser(users[1]), game)[0].status_code == 200
    # Once the game runs, the link shows nothing to outsiders.
    for user in users[2:]:
        services.join_game(user, game.pk, game.invite_code)
    assert page(browser(UserFactory()), game, f"?invite={game.invite_code}")[0].status_code \
        == 404


def test_members_see_forms_spectators_and_waiting_players_do_not(game, users):
    p = awaited(game)
    answer, html = page(browser(users[p]), game)
    assert answer.status_code == 200 and "Your move" in html and 'name="move"' in html
    other = (p + 1) % 4
    assert 'name="move"' not in page(browser(users[other]), game)[1]
    spectator = page(browser(), game)[1]
    assert 'name="move"' not in spectator and "Your notebook" not in spectator
    assert page(browser(UserFactory()), game)[0].status_code == 200  # public: may watch


def test_a_move_through_the_form_and_the_errors_that_change_nothing(game, users):
    p = awaited(game)
    client = browser(users[p])
    html = page(client, game)[1]
    moves_html = re.search(r'<section id="moves-.*?</section>', html, re.S).group(0)
    values = re.findall(r'(?:name="move" id="[^"]+"|<option) value="([^"]+)"', moves_html)
    moves = [json.loads(v.replace("&quot;", '"')) for v in values]
    assert moves and all(m["type"] == "exchange" for m in moves)
    # Not your turn: refused with a message, nothing stored.
    other = browser(users[(p + 1) % 4])
    answer = other.post(f"/games/{game.pk}/move/", {"move": json.dumps(moves[0]),
                                                     "expected_seq": 0}, follow=True)
    assert "not" in answer.content.decode().lower() and MoveRecord.objects.count() == 0
    # Junk and a stale seq: refused, nothing stored.
    client.post(f"/games/{game.pk}/move/", {"move": "{not json", "expected_seq": 0})
    stale = client.post(f"/games/{game.pk}/move/", {"move": json.dumps(moves[0]),
                                                     "expected_seq": 7}, follow=True)
    assert "The game moved on meanwhile" in stale.content.decode()
    assert MoveRecord.objects.count() == 0
    ok = client.post(f"/games/{game.pk}/move/", {"move": json.dumps(moves[0]),
                                                  "expected_seq": 0})
    assert ok.status_code == 302
    assert list(MoveRecord.objects.values_list("seq", "actor")) == [(1, "player")]
    html = page(client, game)[1]
    assert "#1" in html  # the history shows the move


def test_the_live_fragment_answers_304_while_nothing_changed(game, users):
    client = browser(users[0])
    first = client.get(f"/games/{game.pk}/live/")
    assert first.status_code == 200 and 'id="live"' in first.content.decode()
    etag = first["ETag"]
    assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    p = awaited(game)
    services.submit_move(game.pk, {"type": "exchange", "target": (p + 1) % 4, "swap": True},
                         user=users[p])
    again = client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag


@pytest.mark.postgres
def test_the_live_polls_304_reads_the_pending_decisions_once(game, users):
    """The pages' poll (every 2 s when the stream is blocked): its 304 reads the game, its seats
    and its pending decisions, and nothing of them again."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = browser(users[0])
    etag = client.get(f"/games/{game.pk}/live/")["ETag"]
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    pending = [q["sql"] for q in queries.captured_queries  # (not the header's count of yours)
               if '"games_pendingdecision"' in q["sql"]
               and '"games_pendingdecision"."user_id" = ' not in q["sql"]]
    seats = [q["sql"] for q in queries.captured_queries if 'FROM "games_seat"' in q["sql"]]
    assert len(pending) == 1 and len(seats) == 1


def test_the_page_shows_only_what_the_viewer_knows(users):
    game, by_player = dealt_game(users)
    # The four preparatory exchanges, really swapping: nobody knows their card any more.
    for _ in range(4):
        p = awaited(game)
        services.submit_move(game.pk, {"type": "exchange", "target": (p + 1) % 4,
                                       "swap": True}, user=by_player[p])
    p = awaited(game)
    services.submit_move(game.pk, {"type": "look"}, user=by_player[p])
    looker = page(browser(by_player[p]), game)[1]
    knows = re.findall(r'data-knows="([^"]+)"', looker)
    assert len(knows) == 1 and knows[0].startswith(f"{p}:")
    spectator = page(browser(), game)[1]
    assert "data-knows" not in spectator and "you know:" not in spectator
    assert str(game.seed) not in spectator
    for q in range(4):
        html = page(browser(by_player[q]), game)[1]
        assert str(game.seed) not in html
        if q != p:
            assert "data-knows" not in html
        # Each player made one preparatory exchange: they see their own decision, and only it.
        decisions = re.findall(r"(\S+) exchanged with [^<]*\(you know: really swapped\)", html)
        assert decisions == [by_player[q].username]
        assert "only pretended" not in html


def test_rules_page_lists_every_mask_in_the_viewers_language(users):
    english = browser().get("/rules/").content.decode()
    assert "Puppeteer" in english and "Gambler" in english
    users[0].language = "fr"
    users[0].save()
    french = browser(users[0]).get("/rules/").content.decode()
    assert "Marionnettiste" in french and "Espionne" in french and "Règles" in french


def test_the_language_switcher_remembers_a_users_choice(users):
    client = browser(users[0])
    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    users[0].refresh_from_db()
    assert users[0].language == "fr"
    assert "Parties" in client.get("/games/").content.decode()


def test_deadlines_show_in_the_viewers_time_zone(game, users):
    p = awaited(game)
    row = PendingDecision.objects.get(game=game)
    users[p].timezone = "Asia/Tokyo"
    users[p].save()
    html = page(browser(users[p]), game)[1]
    import zoneinfo

    local = row.deadline.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))
    assert local.strftime("%H:%M") in html
    assert "h left" in html or "days left" in html


def test_profile_preferences_and_vacations(users):
    import datetime as dt

    from django.utils import timezone

    client = browser(users[0])
    assert browser().get("/accounts/profile/").status_code == 302
    assert client.get("/accounts/profile/").status_code == 200
    saved = client.post("/accounts/profile/", {"form": "preferences", "language": "fr",
                                               "notify_email": "", "timezone": "Europe/Paris"})
    assert saved.status_code == 302
    users[0].refresh_from_db()
    assert (users[0].language, users[0].notify_email, users[0].timezone) == (
        "fr", False, "Europe/Paris")
    bad = client.post("/accounts/profile/", {"form": "preferences", "language": "xx",
                                             "timezone": "Mars/Olympus"})
    assert bad.status_code == 200
    users[0].refresh_from_db()
    assert users[0].language == "fr"
    start = timezone.now().date() + dt.timedelta(days=10)
    ok = client.post("/accounts/profile/", {"form": "vacation", "start": start,
                                            "end": start + dt.timedelta(days=2)})
    assert ok.status_code == 302
    too_many = client.post("/accounts/profile/", {"form": "vacation",
                                                  "start": start + dt.timedelta(days=5),
                                                  "end": start + dt.timedelta(days=30)})
    # (in the page's language: this user now reads French)
    assert too_many.status_code == 200 and "au plus 21 jours" in too_many.content.decode()
    from accounts.models import Vacation

    vacation = Vacation.objects.get(user=users[0])
    client.post("/accounts/profile/", {"form": "cancel", "vacation": vacation.pk})
    assert not Vacation.objects.filter(user=users[0]).exists()


def test_a_finished_game_replays_move_by_move_as_the_viewer_saw_it(game, users):
    import random

    from games.core import selectors
    from games.core.catalog import get_game

    rng = random.Random(5)
    engine = get_game("mascarade")
    while True:
        game.refresh_from_db()
        if game.status != "active":
            break
        row = PendingDecision.objects.filter(game=game).first()
        move = rng.choice(engine.legal_moves(selectors.load_state(game), row.player))
        services.submit_move(game.pk, move, user=users[row.player])
    client = browser(users[0])
    end = page(client, game)[1]
    assert "Replay this game move by move" in end and "The game is over" in end
    html = page(client, game, "?at=5")[1]
    assert "after move 5 of" in html
    seqs = {int(n) for n in re.findall(r'<span class="muted">#(\d+)</span>', html)}
    assert seqs and max(seqs) == 5
    assert 'hx-get' not in html  # a replay does not refresh itself
    # The position after move 5 is the replay of the first five records, seen by this viewer.
    assert page(client, game, "?at=999")[0].status_code == 200
    assert page(client, game, "?at=junk")[0].status_code == 200
    assert "Replay" not in page(browser(users[0]), start_game(users[0], users[1:], options={
        "players": 4}), "?at=2")[1]


def test_the_custom_scenario_builder_checks_the_rules(users):
    client = browser(users[0])
    base = {"players": 6, "scenario": "custom", "challenge_mode": "sequential",
            "move_timeout": 3600, "challenge_timeout": 600, "absent_policy": "bot", "bots": 5}
    # No Judge, too few stars, wrong count: each rule is named, nothing is created.
    bad = client.post("/games/new/", {**base, "masks": ["king", "thief", "spy"]})
    text = bad.content.decode()
    assert bad.status_code == 200
    assert "must include the Judge" in text and "exactly 6 masks" in text
    assert not Game.objects.exists()
    check = client.post("/games/new/check/", {**base, "masks": ["judge", "peasant", "king",
                                                                "empress"]})
    assert "exactly 6 masks" in check.content.decode()
    peasants = client.post("/games/new/check/", {**base, "masks": ["judge", "peasant"]})
    assert "need more players: Peasant" in peasants.content.decode()
    good = ["judge", "king", "empress", "thief", "cheater", "widow", "princess"]
    check = client.post("/games/new/check/", {**base, "masks": good, "center": 1})
    assert "This scenario follows the rules" in check.content.decode()
    made = client.post("/games/new/", {**base, "masks": good, "center": 1})
    assert made.status_code == 302
    game = Game.objects.get()
    assert game.options["scenario"] == "custom" and game.options["center"] == 1
    assert sorted(game.options["masks"]) == sorted(good)
    users[0].language = "fr"
    users[0].save()
    french = client.post("/games/new/check/", {**base, "masks": ["king"]}).content.decode()
    assert "doit inclure le Juge" in french


def test_the_notebook_counts_exchanges_since_and_reveals_show_turned_cards(users):
    game, by_player = dealt_game(users)
    for _ in range(4):  # preparatory turns: pretend
        p = awaited(game)
        services.submit_move(game.pk, {"type": "exchange", "target": (p + 1) % 4,
                                       "swap": False}, user=by_player[p])
    p = awaited(game)
    services.submit_move(game.pk, {"type": "look"}, user=by_player[p])
    assert "Not touched since." in page(browser(by_player[p]), game)[1]
    q = awaited(game)
    services.submit_move(game.pk, {"type": "exchange", "target": p, "swap": False},
                         user=by_player[q])
    game.refresh_from_db()
    assert f"Touched since: it may have moved (last at move {game.seq})." in page(
        browser(by_player[p]), game)[1]
    # An announcement challenged: the cards turn face up on the table for everyone.
    r = awaited(game)
    services.submit_move(game.pk, {"type": "announce", "mask": "king"}, user=by_player[r])
    claimer = PendingDecision.objects.get(game=game).player
    services.submit_move(game.pk, {"type": "claim"}, user=by_player[claimer])
    while PendingDecision.objects.filter(game=game, decision="challenge").exists():
        other = PendingDecision.objects.get(game=game, decision="challenge").player
        services.submit_move(game.pk, {"type": "pass"}, user=by_player[other])
    html = page(browser(), game)[1]
    assert html.count("card turned:") == 2


def test_history_names_who_sat_at_a_seat_then_after_the_puppeteer_moved_players(users):
    """R2: the Puppeteer moves players between seats; a past sentence about a seat names the
    player who sat there at the time, not the seat's occupant now."""
    staff = UserFactory(is_staff=True)
    more = [UserFactory() for _ in range(5)]
    deal = ["judge", "guru", "crook", "princess", "puppeteer", "patron"]
    body = services.create_game(staff, "mascarade", {
        "players": 6, "scenario": "custom", "masks": deal, "deal": deal, "first_seat": 0}).body
    for user in more:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    by_player = {0: staff, **{i + 1: user for i, user in enumerate(more)}}

    def play(move):
        row = PendingDecision.objects.get(game=game)
        services.submit_move(game.pk, move, user=by_player[row.player])

    for seat in range(4):  # the preparatory exchanges, without swapping
        play({"type": "exchange", "target": (seat + 1) % 6, "swap": False})
    play({"type": "announce", "mask": "puppeteer"})  # seat 4 (player 4)
    while PendingDecision.objects.get(game=game).decision == "challenge":
        play({"type": "pass"})
    play({"type": "puppeteer", "targets": [0, 1]})
    game.refresh_from_db()
    events = [e for r in MoveRecord.objects.filter(game=game).order_by("seq") for e in r.events]
    assert [e["players"] for e in events if e["type"] == "seat_change"] == [[1, 0]]

    html = page(browser(more[0]), game)[1]
    taker = more[3].username  # player 4, at seat 4 throughout
    # Before the change seat 0 was player 0's (staff), seat 1 player 1's: the Puppeteer took
    # from seat 0, then from seat 1 (the history lists the oldest first).
    from_seat_1 = html.index(f"1 coin from {more[0].username} to {taker}.")
    from_seat_0 = html.index(f"1 coin from {staff.username} to {taker}.")
    assert from_seat_0 < from_seat_1
    # The preparatory exchange of seat 0 (player 0) with seat 1's card (player 1's then).
    assert f"exchanged (or pretended to) with {more[0].username}&#x27;s card" in html
    # Now: player 1 sits at seat 0 and player 0 at seat 1 (the seats list, current names).
    from games.core import selectors

    state = selectors.game_payload(selectors.load_for_viewer(game, more[0]), more[0])["state"]
    assert [(s["seat"], s["player"]) for s in state["seats"]][:2] == [
        (0, more[0].username), (1, staff.username)]


def test_the_live_fragment_changes_with_a_pause_request(game, users):
    """Defect: a pause request changes what the table shows (the button, the players' requests)
    without touching ``seq``: the live fragment answered 304."""
    client = browser(users[0])
    etag = client.get(f"/games/{game.pk}/live/")["ETag"]
    services.request_pause(users[1], game.pk, True)
    again = client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag


class _EngineCalls:
    """Counts the calls of every method of the game's engine object."""

    NAMES = ("setup", "pending", "legal_moves", "apply", "timeout_move", "view", "view_event",
             "result", "to_json", "from_json", "normalize_options", "player_count")

    def __init__(self, monkeypatch, engine):
        self.counts: dict[str, int] = {}
        for name in self.NAMES:
            real = getattr(type(engine), name)

            def counted(*args, _name=name, _real=real, **kwargs):
                self.counts[_name] = self.counts.get(_name, 0) + 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(type(engine), name, counted)

    def take(self) -> dict[str, int]:
        out, self.counts = self.counts, {}
        return out


def test_the_table_page_costs_the_same_at_move_5_and_at_move_1000(users, monkeypatch):
    """Defect: the page projected every event since the viewer's oldest knowledge (hundreds of
    event projections in a long game) and computed the legal moves twice. A player who looked
    once early, then a long game of exchanges: the same queries and engine calls at moves 5 and
    1,000, but for the projections of the history's events, which shows the last moves up to a
    fixed number (fewer at move 5: the game has fewer), the same at moves 100 and 1,000."""
    game, by_player = dealt_game(users)
    looker = None
    costs = {}
    while game.seq < 1000:
        p = awaited(game)
        if game.seq == 4:
            move, looker = {"type": "look"}, p
            # (a visit before: each page measured is a return, which tells what others did
            # since, the looker's own moves left out: one query)
            browser(by_player[p]).get(f"/games/{game.pk}/")
        else:
            move = {"type": "exchange", "target": (p + 1) % 4, "swap": False}
        services.submit_move(game.pk, move, user=by_player[p])
        game.refresh_from_db()
        if game.seq in (5, 100, 1000):
            costs[game.seq] = _page_costs(browser(by_player[looker]), game, monkeypatch)
    assert costs[5]["engine"]["legal_moves"] == 1  # once, not twice
    assert costs[1000] == costs[100]
    early, late = costs[5], costs[1000]
    assert early["queries"] == late["queries"]
    others = {name: n for name, n in late["engine"].items() if name != "view_event"}
    assert {name: n for name, n in early["engine"].items() if name != "view_event"} == others
    # Two events per move in this game: the history's window, not the game's length.
    assert early["engine"]["view_event"] == 2 * 5
    assert late["engine"]["view_event"] == 2 * HISTORY_MOVES


def _page_costs(client, game, monkeypatch) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.core.catalog import get_game

    with monkeypatch.context() as patch:
        calls = _EngineCalls(patch, get_game(game.kind))
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"/games/{game.pk}/")
        assert answer.status_code == 200 and "data-knows" in answer.content.decode()
        return {"engine": calls.take(), "queries": len(queries)}
