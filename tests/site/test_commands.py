"""Play by email's commands (``games.mail.commands``) and the table in words, over every registered
game through its kit only (no database).

Random games of each game are played through the rules (a few seeds and player counts, like
``tests/engine/test_simulation.py``); at sampled positions, for every awaited player and both
languages, every legal move has a command (lower case, single spaces), unique among the
decision's moves in each language and across them, and none a number or a table word; reading
each command back (English, French, its number, the listed line copied whole, a mangled form:
upper case, accents dropped, a final dot, extra spaces) gives exactly that move; a free-text move
reads back with its text as typed. Every seat's status lines are strings, built from the Board of
that viewer's projection alone (the game row offers no state), and name no card held by another
player that the viewer's projection does not name: compared with the moderator's view, as the
no-leak tests do.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from typing import Any

import pytest
from django.utils import translation
from django.utils.translation import pgettext

from games.core import catalog
from games.core.kit import GameKit
from games.engine import MODERATOR, SPECTATOR
from games.mail import commands
from games.mail.commands import CommandReader, command_list, normalize, read_command
from tests.engine.helpers import EXPLORE_OPTIONS
from tests.engine.test_simulation import example_options

LANGUAGES = ("en", "fr")
KITS = {kit.id: kit for kit in catalog.kits()}
#: Players' names as the site gives them: usernames (letters, digits, @ . + - _; accents) and
#: bots' "Bot N" (a space).
NAMES = ["alice", "Bot 2", "Zoé", "jean-luc", "bob.smith", "Bot 6", "x+y", "Élodie", "o_hara",
         "Bot 10", "mary@home", "Bot 12"]
#: Options beyond a game's example options, so that every power shows up (Mascarade's
#: scenarios; other games have no such choice).
EXTRA_OPTIONS: dict[str, list[dict[str, Any]]] = {"mascarade": EXPLORE_OPTIONS[1:]}
SEEDS = (1, 2, 3)
MOVE_CAP = 400
#: The share of positions checked, and the most moves read back in full at one decision (its
#: commands are all checked unique whatever its size).
SAMPLE_SHARE = 0.2
READ_BACK = 40


def cases() -> list:
    out = []
    for game_id, kit in sorted(KITS.items()):
        game = kit.rules
        for players in sorted({game.min_players, game.max_players}):
            for seed in SEEDS:
                out.append(pytest.param(game_id, example_options(game, players), seed,
                                        id=f"{game_id}-{players}-{seed}"))
        for i, options in enumerate(EXTRA_OPTIONS.get(game_id, [])):
            for seed in SEEDS[:2]:
                out.append(pytest.param(game_id, options, seed, id=f"{game_id}-extra{i}-{seed}"))
    return out


class GameRow:
    """The game row a kit gets in its Board: only what a kit may read of it (its kind, options,
    status, seq), never a state, so that status lines can only come from the projection."""

    __slots__ = ("id", "kind", "options", "seq", "status")

    def __init__(self, kind: str, options: dict, seq: int):
        self.id, self.kind, self.options, self.seq, self.status = None, kind, options, seq, "active"


def names_for(players: int) -> dict[int, str]:
    return dict(enumerate(NAMES[:players]))


def payload(kit: GameKit, state: Any, viewer: Any, names: dict[int, str]) -> dict:
    """A viewer's game read, as ``games.core.selectors.game_payload`` makes it (players named)."""
    view = kit.rules.view(state, viewer)
    you = view.pop("you", None)
    view["seats"] = [{**seat, "player": names.get(seat.get("player"), seat.get("player")),
                      "is_bot": str(names.get(seat.get("player"), "")).startswith("Bot ")}
                     for seat in view["seats"]]
    view["awaiting"] = [{**item, "player": names.get(item.get("player"), item.get("player")),
                         "deadline": None} for item in view.get("awaiting", [])]
    if isinstance(viewer, int):
        you = {"seat": (you or {}).get("seat", viewer),
               **{k: v for k, v in (you or {}).items() if k not in ("seat", "player")},
               "legal_moves": kit.rules.legal_moves(state, viewer)}
    else:
        you = None
    players = [{"position": p, "player": name, "is_bot": name.startswith("Bot "),
                "absent": False, "vacation": False} for p, name in names.items()]
    return {"state": view, "you": you, "players": players}


def play(kit: GameKit, options: dict, seed: int):
    """Yield ``(state, seq, events by viewer)`` at sampled positions of a random game, and at
    every position where a move type shows up that no position yielded before (the rarer
    decisions, a Mascarade power, are all checked). Moves are chosen type first, so that
    announcements and powers come often."""
    game = kit.rules
    options = game.normalize_options(options)
    players = game.player_count(options)
    state = game.setup(options, seed)
    rnd = random.Random(f"{kit.id}:{seed}:{json.dumps(options, sort_keys=True)}")
    viewers = [*range(players), SPECTATOR]
    seen: dict[Any, list[dict]] = {viewer: [] for viewer in viewers}
    checked: set[str] = set()
    seq = 0
    while True:
        awaited = sorted({p.player for p in game.pending(state)})
        types = {move["type"] for p in awaited for move in game.legal_moves(state, p)}
        if seq == 0 or not awaited or not types <= checked or rnd.random() < SAMPLE_SHARE:
            checked |= types
            yield state, seq, seen
        if not awaited or game.result(state) is not None or seq >= MOVE_CAP:
            return
        player = rnd.choice(awaited)
        legal = game.legal_moves(state, player)
        kind = rnd.choice(sorted({m["type"] for m in legal}))
        move = rnd.choice([m for m in legal if m["type"] == kind])
        field = kit.free_text_moves.get(move["type"])
        if field is not None and rnd.random() < 0.5:
            move = {**move, field: rnd.choice(["I suspect Zoé!", "bob, surely"])}
        state, events = game.apply(state, player, move)
        seq += 1
        for viewer in viewers:
            for event in events:
                shown = game.view_event(event, viewer, state)
                if shown is not None:
                    seen[viewer].append({**shown, "seq": seq})


def mangled(text: str) -> str:
    """A command as a hurried player types it: upper case, accents dropped, spaces doubled,
    a final dot."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text)
                    if not unicodedata.combining(c))
    return "  " + plain.upper().replace(" ", "   ") + ". "


# --------------------------------------------------------------------------------------------
# Every game, every decision


def check_commands(kit: GameKit, legal: list[dict], names: dict[int, str], where: str) -> None:
    assert legal, where
    lists = {language: command_list(kit, legal, names, language) for language in LANGUAGES}
    for language, listed in lists.items():
        assert [n for n, _text, _move in listed] == list(range(1, len(legal) + 1))
        assert [move for _n, _text, move in listed] == legal
        texts = [text for _n, text, _move in listed]
        for text in texts:
            assert text and text == " ".join(text.split()) and text == text.lower(), \
                f"{where} {language}: {text!r}"
        assert len({normalize(t) for t in texts}) == len(texts), \
            f"{where} {language}: commands not unique: {texts}"
    assert commands.command_problems(kit, legal, names) == [], where
    reader = CommandReader(kit, legal, names)
    chosen = list(range(len(legal)))
    if len(chosen) > READ_BACK:
        chosen = random.Random(where).sample(chosen, READ_BACK)
    for i in chosen:
        move = legal[i]
        n = i + 1
        typed = [lists[language][i][1] for language in LANGUAGES]
        typed += [mangled(text) for text in typed]
        typed += [str(n), f"{n}.", f"#{n}", f" {n} ", f"{n}. {lists['en'][i][1]}"]
        for text in typed:
            read = reader.read(text)
            assert (read.kind, read.move) == ("move", move), f"{where}: {text!r} read as {read}"
        field = kit.free_text_moves.get(move["type"])
        if field is not None:
            for language in LANGUAGES:
                said = f"{lists[language][i][1].upper()} I suspect Zoé, really!"
                read = reader.read(said)
                assert read.move == {**move, field: "I suspect Zoé, really!"}, read
            assert reader.read(f"{n} Bob it is.").move == {**move, field: "Bob it is."}
    for text in (str(len(legal) + 1), "0", "#999"):
        read = reader.read(text)
        assert read.kind == "out_of_range" and read.number == int(text.strip("#")), read
    assert reader.read("xyzzy plugh").kind == "unknown"
    assert reader.read("").kind == "unknown"


def titles(kit: GameKit) -> dict[str, str]:
    """The game's card ids → their names in the active language (from its rules section)."""
    out = {}
    for value in kit.rules_context().values():
        if isinstance(value, list):
            out.update({str(item["id"]): str(item["name"]) for item in value
                        if isinstance(item, dict) and "id" in item and "name" in item})
    return out


def powers(kit: GameKit) -> list[str]:
    """The rules' words of each card's power (public: the rules page's), in the active language;
    they may name other cards ("If you see the Culprit...")."""
    return [str(item["power"]) for value in kit.rules_context().values() if isinstance(value, list)
            for item in value if isinstance(item, dict) and item.get("power")]


def strings(value: Any) -> set[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, dict):
        return {*map(str, value), *(s for item in value.values() for s in strings(item))}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return {value} if isinstance(value, str) else set()


def dicts(value: Any):
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from dicts(item)


def named(title: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(title)}(?!\w)", text) is not None


def check_status(kit: GameKit, lines: Any, state: Any, viewer: Any, events: list[dict],
                 names: dict[int, str], where: str) -> None:
    """The status lines are strings; no card held by someone else that the viewer's projection
    never names is named; a line about another seat names only cards the viewer's projection
    ties to that seat (its seat in the view, or a seen event or note about it)."""
    assert isinstance(lines, list) and all(isinstance(line, str) and line for line in lines), \
        f"{where}: {lines!r}"
    mine = kit.rules.view(state, viewer)
    known = strings(mine) | strings(events)
    truth = kit.rules.view(state, MODERATOR)["moderator"]
    secret = strings(truth) - known
    text = "\n".join(lines)
    for power in powers(kit):  # a card's power, as the rules say it, tells nothing held
        text = text.replace(power, "")
    words = titles(kit)
    for card, title in words.items():
        if card in secret:
            assert not named(title, text), f"{where}: {title} ({card}) leaked to {viewer}: {text}"
    own = mine.get("you", {}).get("seat") if isinstance(mine.get("you"), dict) else None
    for seat, name in names.items():
        if seat == own:
            continue
        pattern = re.compile(rf"^{re.escape(name)}(?: \([^)]*\))? ?: ")
        for line in lines:
            if not pattern.match(line):
                continue
            tied = set()
            for item in dicts([mine, events]):
                if any(item.get(key) == seat for key in ("seat", "about", "target")
                       if not isinstance(item.get(key), bool)):
                    tied |= strings(item)
            for card, title in words.items():
                if named(title, line[len(name):]):
                    assert card in tied, f"{where}: {line!r} names {card} untied to seat {seat}"


@pytest.mark.parametrize(("game_id", "options", "seed"), cases())
def test_every_decision_has_commands_that_read_back(game_id, options, seed):
    kit = KITS[game_id]
    game = kit.rules
    players = game.player_count(game.normalize_options(options))
    names = names_for(players)
    positions = decisions = 0
    for state, seq, seen in play(kit, options, seed):
        positions += 1
        where = f"{game_id} {options} seed={seed} seq={seq}"
        row = GameRow(game_id, options, seq)
        for viewer in [*range(players), SPECTATOR]:
            board = commands.table_board(row, payload(kit, state, viewer, names),
                                         seen[viewer][-60:])
            for language in LANGUAGES:
                with translation.override(language):
                    lines = kit.status_lines(board)
                    check_status(kit, lines, state, viewer, seen[viewer], board.names,
                                 f"{where} viewer={viewer} {language}")
        # Moves name seats: a seat by the name of who sits there now (a Puppeteer moves them).
        by_seat = board.names
        for pending in game.pending(state):
            decisions += 1
            legal = game.legal_moves(state, pending.player)
            check_commands(kit, legal, by_seat, f"{where} player={pending.player}")
    assert positions > 2 and decisions > 2


def test_the_leak_check_catches_a_kit_that_tells_other_hands(monkeypatch):
    """``check_status`` is not vacuous: status lines that name each seat's true cards (from the
    moderator's view) fail it."""
    caught = 0
    for game_id, kit in KITS.items():
        game = kit.rules
        options = example_options(game, game.max_players)
        for state, _seq, seen in play(kit, options, 3):
            truth = game.view(state, MODERATOR)["moderator"]
            names = names_for(game.player_count(game.normalize_options(options)))
            cards = sorted(strings(truth) & set(titles(kit)))
            lines = [f"{names[seat]}: " + ", ".join(titles(kit)[c] for c in cards)
                     for seat in names if seat != 0]
            try:
                check_status(kit, lines, state, 0, seen[0], names, game_id)
            except AssertionError:
                caught += 1
                break
    assert caught == len(KITS)


# --------------------------------------------------------------------------------------------
# The words


def test_normalize():
    assert normalize("Échanger Bob OUI.") == normalize("echanger bob oui") == "echanger bob oui"
    assert normalize("  exchange   Bot 4\tswap ...  ") == "exchange bot 4 swap"
    assert normalize("ÉTAT") == "etat"
    assert normalize("Panique !!!") == "panique"
    assert normalize("say: « je soupçonne Zoé »") == "say je soupconne zoe"
    assert normalize("jean-luc bob.smith x+y mary@home o_hara") == \
        "jean-luc bob.smith x+y mary@home o_hara"
    assert normalize("#3.") == "3"
    assert normalize("Straße") == "strasse"
    assert normalize("…") == ""
    assert normalize("") == ""


@pytest.mark.parametrize(("typed", "word"), [
    ("help", "help"), ("Aide", "help"), ("STATUS", "status"), ("état", "status"),
    ("Etat.", "status"), ("statut", "status"), ("pause", "pause"), ("Pause!", "pause"),
    ("back", "back"), ("Retour", "back"), ("mute", "mute"), ("silence", "mute"),
])
def test_table_words_in_both_languages(typed, word):
    kit = KITS["mascarade"]
    read = read_command(kit, typed, [{"type": "look"}, {"type": "claim"}], {0: "alice"})
    assert (read.kind, read.word, read.move) == ("word", word, None)


def test_table_words_as_written():
    assert [commands.table_word(w, "en") for w in commands.TABLE_WORDS] == list(
        commands.TABLE_WORDS)
    assert [commands.table_word(w, "fr") for w in commands.TABLE_WORDS] == [
        "aide", "état", "pause", "retour", "silence"]
    for word, spellings in commands.TABLE_WORDS.items():
        for language in LANGUAGES:
            assert normalize(commands.table_word(word, language)) in map(normalize, spellings)


EXPECTED_ENGLISH = {
    "mascarade": [
        ({"type": "look"}, "look"),
        ({"type": "exchange", "target": 1, "swap": True}, "exchange bot 2 swap"),
        ({"type": "exchange", "target": 2, "swap": False}, "exchange zoé keep"),
        ({"type": "exchange", "target": "center-1", "swap": True}, "exchange center 2 swap"),
        ({"type": "announce", "mask": "king"}, "announce king"),
        ({"type": "claim"}, "claim"), ({"type": "pass"}, "pass"),
        ({"type": "spy", "target": 3}, "choose jean-luc"),
        ({"type": "sorceress", "target": None}, "choose nobody"),
        ({"type": "spy_swap", "swap": True}, "swap"),
        ({"type": "spy_swap", "swap": False}, "keep"),
        ({"type": "fool", "targets": [1, 2], "swap": True}, "choose bot 2 zoé swap"),
        ({"type": "puppeteer", "targets": [2, 1]}, "choose zoé bot 2"),
        ({"type": "guru_answer", "mask": "peasant"}, "answer peasant"),
        ({"type": "gambler", "hidden": 2, "target": 0}, "hide 2 alice"),
        ({"type": "gambler_guess", "guess": 3}, "guess 3"),
    ],
    "ere_des_masques": [
        ({"type": "draw"}, "draw"), ({"type": "play", "card": "spy"}, "play spy"),
        ({"type": "let_pass"}, "pass"), ({"type": "counter", "kind": "brute"}, "counter brute"),
        ({"type": "discard", "card": "noble"}, "discard noble"),
        ({"type": "keep", "card": "recruiter"}, "keep recruiter"),
        ({"type": "assassinate", "card": "assassin"}, "kill assassin"),
    ],
    "shadow_house": [
        ({"type": "play", "card": "detective", "target": 1}, "play detective bot 2"),
        ({"type": "play", "card": "divining_hat"}, "play hat"),
        ({"type": "play", "card": "little_one"}, "play little one"),
        ({"type": "discard", "card": "alibi"}, "discard alibi"),
        ({"type": "give", "card": "maid"}, "give maid"),
        ({"type": "contribute", "card": "panic"}, "put panic"),
        ({"type": "witness_exchange", "card": "culprit"}, "swap culprit"),
        ({"type": "witness_pass"}, "pass"), ({"type": "say", "text": ""}, "say"),
    ],
}


@pytest.mark.parametrize("game_id", sorted(EXPECTED_ENGLISH))
def test_english_words(game_id):
    kit, names = KITS[game_id], names_for(4)
    with translation.override("en"):
        assert [(move, kit.command_words(move, names)) for move, _words in
                EXPECTED_ENGLISH[game_id]] == EXPECTED_ENGLISH[game_id]


def test_every_registered_game_has_its_own_words():
    assert set(KITS) <= set(EXPECTED_ENGLISH), "a new game: add its words to EXPECTED_ENGLISH"


@pytest.mark.parametrize("game_id", sorted(EXPECTED_ENGLISH))
def test_french_words_are_french_once_the_catalogue_has_them(game_id):
    kit, names = KITS[game_id], names_for(4)
    moves = [move for move, _words in EXPECTED_ENGLISH[game_id]]
    with translation.override("en"):
        english = [kit.command_words(move, names) for move in moves]
    with translation.override("fr"):
        french = [kit.command_words(move, names) for move in moves]
    assert not all(f.split()[0] == e.split()[0] for f, e in zip(french, english, strict=True)), (
        "the French catalogue has no command words")
    # Each command's verb is French (a card's name may read the same: "alibi", "toby").
    assert [e for f, e in zip(french, english, strict=True)
            if f.split()[0] == e.split()[0]] == []
    assert all(f == " ".join(f.lower().split()) for f in french)


def test_the_default_words_of_a_kit_without_its_own():
    kit = GameKit()
    names = {0: "alice", 1: "Bot 2"}
    with translation.override("en"):
        assert kit.command_words({"type": "look"}, names) == "look"
        assert kit.command_words({"type": "spy_swap", "swap": True}, names) == "spy swap yes"
        assert kit.command_words({"type": "fool", "targets": [0, 1], "swap": False},
                                 names) == "fool alice bot 2 no"
        assert kit.command_words({"type": "sorceress", "target": None}, names) == \
            "sorceress none"
        assert kit.command_words({"type": "play", "card": "little_one", "target": 1},
                                 names) == "play little one bot 2"
    with translation.override("fr"):
        assert kit.command_words({"type": "spy_swap", "swap": True}, names) == (
            "spy swap " + pgettext("command", "yes").lower())
    assert kit.status_lines(None) == []
    assert kit.free_text_moves == {}


# --------------------------------------------------------------------------------------------
# Reading


LEGAL = [{"type": "look"},
         {"type": "exchange", "target": 1, "swap": True},
         {"type": "exchange", "target": 1, "swap": False},
         {"type": "exchange", "target": 2, "swap": True},
         {"type": "announce", "mask": "king"}]
NAMED = {0: "alice", 1: "Bot 2", 2: "Zoé"}


def read(text: str, legal=LEGAL, names=NAMED):
    return read_command(KITS["mascarade"], text, legal, names)


def test_reading_numbers():
    assert read("2").move == LEGAL[1] and read("2").number == 2
    assert read("#3").move == read("3.").move == read("3)").move == read(" 3 ").move == LEGAL[2]
    assert read("5. announce king").move == LEGAL[4]
    assert read("4. announce king").kind == "unknown"  # not the 4th move's command
    for text, n in (("6", 6), ("0", 0), ("#12", 12)):
        got = read(text)
        assert (got.kind, got.number, got.move) == ("out_of_range", n, None)
    assert read("1", legal=[]).kind == "out_of_range"


def test_reading_commands_in_either_language_whatever_the_case():
    assert read("LOOK").move == LEGAL[0]
    assert read("exchange bot 2 swap").move == LEGAL[1]
    assert read("Exchange   BOT 2 keep.").move == LEGAL[2]
    assert read("exchange zoe swap").move == read("exchange Zoé swap!").move == LEGAL[3]
    assert read("announce King").move == LEGAL[4]
    with translation.override("fr"):
        french = commands.command_list(KITS["mascarade"], LEGAL, NAMED, "fr")
    with translation.override("en"):  # the French commands read whatever language is active
        for n, text, move in french:
            assert read(text).move == move == LEGAL[n - 1]


def test_unknown_lines_suggest_the_moves_of_their_first_word():
    got = read("exchange bob swap")
    assert got.kind == "unknown" and got.move is None
    assert list(got.candidates) == LEGAL[1:4]
    assert read("hello there").candidates == ()
    assert read("   ").kind == "unknown"


def test_a_line_two_moves_share_is_ambiguous():
    names = {0: "alice", 1: "Zoé", 2: "zoe"}
    legal = [{"type": "spy", "target": 1}, {"type": "spy", "target": 2}]
    got = read("choose zoe", legal=legal, names=names)
    assert got.kind == "ambiguous" and list(got.candidates) == legal
    assert commands.command_problems(KITS["mascarade"], legal, names) != []
    assert read("1", legal=legal, names=names).move == legal[0]


def test_free_text_moves_keep_the_text_as_typed():
    kit = KITS["shadow_house"]
    legal = [{"type": "say", "text": ""}]
    for text, said in (("say I suspect Zoé!", "I suspect Zoé!"),
                       ("SAY: bob, surely.", "bob, surely."), ("say", ""), ("Say.", ""),
                       ("1 it is Bot 2", "it is Bot 2"), ("#1", ""),
                       ("1. say it is Zoé", "it is Zoé"), ("1. say", "")):
        got = read_command(kit, text, legal, NAMED)
        assert (got.kind, got.move) == ("move", {"type": "say", "text": said}), text
    assert read_command(kit, "sayonara", legal, NAMED).kind == "unknown"
    with translation.override("fr"):
        (_n, french, _move), = commands.command_list(kit, legal, NAMED, "fr")
    assert read_command(kit, f"{french} je soupçonne Zoé", legal, NAMED).move == {
        "type": "say", "text": "je soupçonne Zoé"}


def test_table_board_builds_the_page_s_board():
    kit = KITS["ere_des_masques"]
    state = kit.rules.setup(kit.rules.normalize_options({}), 5)
    names = {0: "alice", 1: "Bot 2"}
    read_ = payload(kit, state, 0, names)
    board = commands.table_board(GameRow(kit.id, {}, 0), read_, [{"seq": 1, "type": "turn"}])
    assert board.names == names and board.you is read_["you"] and board.state is read_["state"]
    assert [s["is_you"] for s in board.seats] == [True, False]
    assert [s["awaited"] for s in board.seats] == [
        any(a["seat"] == s for a in read_["state"]["awaiting"]) for s in (0, 1)]
    assert board.recent == [{"seq": 1, "type": "turn"}]
    with translation.override("en"):
        lines = kit.status_lines(board)
    assert any(line.startswith("alice (you): ") for line in lines)
