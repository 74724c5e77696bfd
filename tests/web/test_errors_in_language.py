"""Every refusal a page shows is in the page's language (issue 23): a move the rules refuse, a
stale form, a move while the game waits for someone else, through each game's page form; the
kit words the rules' codes (``GameKit.error_words``), the site words the rest by the error's
class, and never shows the engine's English message. The API's error body stays as it was (the
engine's English ``detail``, the same codes); a mail answer quotes the refusal in the player's
language. Each game's own refusals are checked in its tests
(``games/<game>/tests/test_errors_in_language.py``, with the helpers here); the create form's, for
every game of the catalog, here."""

from __future__ import annotations

import html
import json
from unittest import mock

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games.core import selectors
from games.core.catalog import get_game, get_kit, ids
from games.core.errors import text_of
from games.engine import MODERATOR, IllegalMove, MalformedMove
from games.engine.base import InvalidOptions
from games.models import InboundMessage, PendingDecision
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import game_url, start_game

pytestmark = pytest.mark.django_db

STALE = "The game moved on meanwhile: here it is now, decide again."
NOT_YOURS = "The game is not waiting for a decision from you now."


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def speaking(language: str, users) -> None:
    for user in users:
        user.language = language
        user.save(update_fields=["language"])


def shown(user, game, move, seq=None, **fields) -> str:
    """The page after posting ``move`` through the table's form (its messages included)."""
    answer = browser(user).post(f"/games/{game.pk}/move/", {
        "move": json.dumps(move), "expected_seq": game.seq if seq is None else seq, **fields},
        follow=True)
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


def said(language: str, msgid: str, **values) -> str:
    with translation.override(language):
        text = gettext(msgid)
    return text % values if values else text


def assert_in_language(page: str, language: str, msgid: str, engine_message: str = "",
                       **values) -> None:
    expected = said(language, msgid, **values)
    assert expected in page
    if engine_message:
        assert engine_message not in page
    if language != "en" and expected != said("en", msgid, **values):
        assert said("en", msgid, **values) not in page


def awaited(game) -> int:
    game.refresh_from_db()
    return PendingDecision.objects.filter(game=game).order_by("player").first().player


def truth(game):
    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)


# --------------------------------------------------------------------------------------------
# A game's fixture for the site's own refusals (the API, the mail)


@pytest.fixture
def mascarade():
    users = [UserFactory() for _ in range(4)]
    return users, start_game(users[0], users[1:], options={"players": 4})


# --------------------------------------------------------------------------------------------
# What the site words by class, the API, the mail


def test_an_unknown_code_is_said_by_its_class_in_the_language():
    kit = get_kit("mascarade")
    with translation.override("fr"):
        assert text_of(IllegalMove("English words", code="nothing_known"), kit) == gettext(
            "This move is not allowed now.")
        assert text_of(MalformedMove("English words"), kit) == gettext(
            "This is not a move of this game.")


def test_the_api_body_is_unchanged_for_a_french_user(mascarade):
    users, game = mascarade
    speaking("fr", users)
    player = awaited(game)
    answer = client_for(users[player]).post(game_url(game.pk, "moves/"), {
        "move": {"type": "exchange", "target": player, "swap": False},
        "expected_seq": game.seq}, format="json")
    assert answer.status_code == 400
    assert answer.json() == {
        "code": "illegal_move", "rule_code": "exchange_with_self",
        "detail": "You cannot exchange your card with your own seat: choose another seat or a "
                  "center card (§5)."}
    stale = client_for(users[player]).post(game_url(game.pk, "moves/"), {
        "move": {"type": "look"}, "expected_seq": game.seq + 5}, format="json")
    assert stale.status_code == 409 and stale.json() == {
        "code": "stale_seq", "seq": game.seq,
        "detail": f"The game is at seq {game.seq}, not at the expected_seq you sent: read it "
                  f"again and decide on the current position."}
    other = client_for(users[(player + 1) % 4]).post(game_url(game.pk, "moves/"), {
        "move": {"type": "look"}, "expected_seq": game.seq}, format="json")
    assert other.status_code == 403 and other.json()["code"] == "not_your_decision"
    assert other.json()["detail"].startswith("The game is not waiting for a decision from you "
                                             "now; it waits for")


def test_a_mail_answer_quotes_the_refusal_in_the_player_s_language(mascarade):
    from games.mail import receive as mail_service

    users, game = mascarade
    speaking("fr", users)
    player = awaited(game)
    play = mock.Mock(game=game, user=users[player], moves=[{"type": "look"}], seq=game.seq)
    row = InboundMessage(via="test")
    refusal = IllegalMove("You cannot announce this turn: your card was revealed during the "
                          "previous turn (R5). You may look at it or exchange it.",
                          code="r5_revealed_last_turn")
    with mock.patch.object(mail_service.commands, "read_command",
                           return_value=mock.Mock(kind="move", move={"type": "look"})), \
            mock.patch.object(mail_service, "submit_move", side_effect=refusal):
        mail_service._act(row, play, "1")
    assert row.status == InboundMessage.Status.ILLEGAL
    assert row.detail == said("fr", "You cannot announce this turn: your card was revealed "
                              "during the previous turn (R5). You may look at it or exchange "
                              "it.")
    assert translation.get_language() in ("en", "en-us")


# --------------------------------------------------------------------------------------------
# The create form: a refusal of the rules is worded in the page's language for every game


def form_data(kit) -> dict:
    """The create form's initial values, as a browser posts them."""
    form = kit.form()
    data = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value not in (None, ""):
            data[name] = value
    return data


@pytest.mark.parametrize("kind", ids())
@pytest.mark.parametrize(("code", "words"), [
    ("out_of_range", "This value is outside what the rules allow."),
    ("wrong_type", "This value is not of the kind the rules expect."),
    ("some_rule_of_the_game", "The rules do not allow these options.")])
def test_create_form_words_the_rules_refusal_in_french(kind, code, words):
    kit = get_kit(kind)
    english = "The option 'move_timeout' must be between 60 and 86400; got 3."
    refusal = InvalidOptions(english, code=code, field="move_timeout")
    with mock.patch.object(type(kit.rules), "normalize_options", side_effect=refusal), \
            translation.override("fr"):
        form = kit.form(data=form_data(kit))
        assert not form.is_valid()
        shown = [str(e) for e in form.errors.get("move_timeout", [])]
        french = gettext(words)
    assert shown == [french]
    assert french != words  # translated (test_translations checks every string)


@pytest.mark.parametrize("kind", ids())
def test_every_choice_the_create_form_offers_is_one_the_rules_accept(kind):
    """So that the rules' own refusal is met only by options the form lets through together
    (Mascarade's custom masks), not by one of its offered values."""
    kit = get_kit(kind)
    base = form_data(kit)
    for name, field in kit.form().fields.items():
        for value, _label in getattr(field, "choices", []) or []:
            if name in ("masks", "bots") or (name, value) == ("scenario", "custom"):
                continue  # custom: the masks chosen with it are what the rules check
            form = kit.form(data={**base, name: value})
            assert form.is_valid(), (name, value, form.errors)
