"""Play by email: a decision's legal moves as numbered short commands, and one line a player typed
read back as a move or a table word. It knows no game: each game's kit says how its moves are
written (:meth:`games.core.kit.GameKit.command_words`, in the active language, with
:attr:`games.core.kit.GameKit.free_text_moves` for a move whose field is the player's own text);
this
module numbers, lists and reads them for every game alike.

A line is read, in this order, as:

- a number (``3``, ``3.``, ``#3``, ``3)``): the 3rd move of the list, in the legal moves' order
  (:func:`command_list`); the move's own command may follow (the listed line copied whole,
  ``3. look``), and for a free-text move the text (``3 i suspect bob``, ``3. say i suspect
  bob``);
- a table word (:data:`TABLE_WORDS`: ``help``, ``status``, ``pause``, ``back``, ``mute``, and
  their French ``aide``, ``état``/``statut``, ``pause``, ``retour``, ``silence``);
- a move's command in any of the site's languages, whatever the player's own (English and
  French), compared after :func:`normalize` (case, accents, punctuation, spaces, a final dot);
- a free-text move's command followed by the text, kept as typed (``say I suspect Bob``).

Anything else is ``unknown``; a number outside the list is ``out_of_range``; a line that is the
command of several moves (two players' names that read the same, say) is ``ambiguous``: the
caller explains each in the player's language (:class:`ReadResult`). For an unknown line,
:meth:`CommandReader.suggest` finds the moves it most likely meant (words of two languages mixed,
``annoncer thief``; one word off), for the answer to name them in the player's language.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import timezone, translation

from games.core.kit import Board, GameKit, seat_bank

#: The table words a line may be, whatever the game: word → every spelling accepted (the
#: English first, then the French), compared after :func:`normalize`.
TABLE_WORDS: dict[str, tuple[str, ...]] = {
    "help": ("help", "aide"),
    "status": ("status", "état", "etat", "statut"),
    "pause": ("pause",),
    "back": ("back", "retour"),
    "mute": ("mute", "silence"),
}
#: How a table word is written in a mail, by language (others: English).
_WRITTEN_WORDS: dict[str, dict[str, str]] = {
    "fr": {"help": "aide", "status": "état", "pause": "pause", "back": "retour",
           "mute": "silence"},
}
#: The kinds of :class:`ReadResult`.
KINDS = ("move", "word", "unknown", "ambiguous", "out_of_range")

_KEPT = frozenset("@._+-")
_NUMBER = re.compile(r"^\s*#?\s*(\d+)\s*[.):]?(?:\s+(.*\S))?\s*$", re.DOTALL)
#: What may stand between a free-text move's command and its text ("say: I suspect bob").
_TEXT_SEPARATORS = " \t:;,-–—"


def languages() -> list[str]:
    """The site's languages (``settings.LANGUAGES``): every one is read in any mail."""
    return [code for code, _name in settings.LANGUAGES]


def normalize(text: str) -> str:
    """A line as commands are compared: case folded, accents dropped (NFKD without its
    combining marks), every character but letters, digits and ``@ . _ + -`` made a space,
    spaces collapsed, final dots dropped: ``"Échanger  Bob OUI."`` → ``"echanger bob oui"``."""
    decomposed = unicodedata.normalize("NFKD", str(text).casefold())
    kept = "".join(c if c.isalnum() or c in _KEPT else " " for c in decomposed
                   if not unicodedata.combining(c))
    return re.sub(r"[\s.]+$", "", " ".join(kept.split()))


def free_text_field(kit: GameKit, move: dict) -> str | None:
    """The field of ``move`` that holds the player's own text, or ``None`` (not a free-text
    move)."""
    return kit.free_text_moves.get(move.get("type"))


def table_word(word: str, language: str) -> str:
    """A table word (a key of :data:`TABLE_WORDS`) as a mail in ``language`` writes it."""
    return _WRITTEN_WORDS.get(language, {}).get(word, word)


def _commands(kit: GameKit, legal_moves: list[dict], names: dict[int, str],
              language: str) -> list[str]:
    """Each legal move's command in ``language`` (a free-text move's with its field empty)."""
    with translation.override(language):
        return [kit.command_words(_blank(kit, move), names) for move in legal_moves]


def _blank(kit: GameKit, move: dict) -> dict:
    field = free_text_field(kit, move)
    return {**move, field: ""} if field is not None else move


def command_list(kit: GameKit, legal_moves: list[dict], names: dict[int, str],
                 language: str) -> list[tuple[int, str, dict]]:
    """``(number, command, move)`` for each legal move, numbered from 1 in the order given (the
    legal moves' own), the command as written in ``language``. A free-text move's command is
    the words to write before the text (:func:`free_text_field` tells which moves take one)."""
    return [(number, text, move) for number, (text, move)
            in enumerate(zip(_commands(kit, legal_moves, names, language), legal_moves,
                             strict=True), start=1)]


@dataclass(frozen=True)
class ReadResult:
    """One line read: ``kind`` is one of :data:`KINDS`.

    - ``"move"``: ``move`` is the legal move (a free-text move with the player's text in its
      field), ``number`` its place in the list when the line was a number;
    - ``"word"``: ``word`` is the table word's key (``"help"``, ``"status"``, ``"pause"``,
      ``"back"``, ``"mute"``);
    - ``"out_of_range"``: ``number`` is the number read, outside 1 to the list's length;
    - ``"ambiguous"``: ``candidates`` are the moves whose command the line is;
    - ``"unknown"``: ``candidates`` are the moves whose command begins with the line's first
      word, if any (:meth:`CommandReader.suggest` tells which the line most likely meant).

    ``detail`` says the same in a few English words, for logs."""

    kind: str
    move: dict | None = None
    word: str | None = None
    detail: str = ""
    number: int | None = None
    candidates: tuple[dict, ...] = ()


#: The most moves a refusal suggests.
MAX_SUGGESTED = 3


class CommandReader:
    """Reads lines against one decision's legal moves (their commands worked out once, in every
    language): :func:`read_command` for one line."""

    def __init__(self, kit: GameKit, legal_moves: list[dict], names: dict[int, str]):
        self.kit = kit
        self.moves = list(legal_moves)
        #: normalized command → the indexes of the moves it is the command of (any language).
        self.index: dict[str, set[int]] = {}
        #: (normalized command, index) of the free-text moves.
        self.free: list[tuple[str, int]] = []
        #: each move's command in each language, as normalized words
        self.spellings: list[list[list[str]]] = [[] for _move in self.moves]
        for language in languages():
            for i, text in enumerate(_commands(kit, self.moves, names, language)):
                key = normalize(text)
                self.index.setdefault(key, set()).add(i)
                self.spellings[i].append(key.split())
                if free_text_field(kit, self.moves[i]) is not None:
                    self.free.append((key, i))
        self.words = {normalize(spelling): word for word, spellings in TABLE_WORDS.items()
                      for spelling in spellings}

    def _move(self, i: int, text: str | None = None) -> dict:
        move = dict(self.moves[i])
        field = free_text_field(self.kit, move)
        if field is not None:
            move[field] = text or ""
        return move

    def read(self, text: str) -> ReadResult:
        number = _NUMBER.match(text)
        if number:
            n, rest = int(number.group(1)), number.group(2)
            if not 1 <= n <= len(self.moves):
                return ReadResult("out_of_range", number=n,
                                  detail=f"{n} is not between 1 and {len(self.moves)}")
            if rest is None:
                return ReadResult("move", move=self._move(n - 1), number=n)
            if free_text_field(self.kit, self.moves[n - 1]) is not None:
                # The text, after the move's own command if it was copied too ("1. say hi").
                after = [_after(rest, prefix) for prefix, i in self.free if i == n - 1]
                said = next((text for text in after if text is not None), rest.strip())
                return ReadResult("move", move=self._move(n - 1, said), number=n)
            if n - 1 in self.index.get(normalize(rest), ()):  # a listed line copied whole
                return ReadResult("move", move=self._move(n - 1), number=n)
        key = normalize(text)
        if key in self.words:
            return ReadResult("word", word=self.words[key])
        found = sorted(self.index.get(key, ()))
        if len(found) == 1:
            return ReadResult("move", move=self._move(found[0]))
        if len(found) > 1:
            return ReadResult("ambiguous", candidates=tuple(self._move(i) for i in found),
                              detail=f"the command of {len(found)} moves")
        typed: dict[int, str] = {}
        for prefix, i in self.free:
            rest = _after(text, prefix)
            if rest is not None:
                typed[i] = rest
        if len(typed) == 1:
            ((i, rest),) = typed.items()
            return ReadResult("move", move=self._move(i, rest))
        if len(typed) > 1:
            return ReadResult("ambiguous", candidates=tuple(self._move(i) for i in typed),
                              detail=f"the command of {len(typed)} moves")
        first = key.split(" ", 1)[0] if key else ""
        near = sorted({i for command, found_at in self.index.items() if first
                       and command.split(" ", 1)[0] == first for i in found_at})
        return ReadResult("unknown", candidates=tuple(self._move(i) for i in near),
                          detail=f"no command {key!r}" if key else "an empty line")

    def _misses(self, i: int, words: list[str]) -> int | None:
        """How many of ``words`` are, at their place, the word of none of move ``i``'s
        commands of that length in any language (``None``: no command of that length)."""
        same = [spelling for spelling in self.spellings[i] if len(spelling) == len(words)]
        if not same:
            return None
        return sum(all(spelling[at] != word for spelling in same)
                   for at, word in enumerate(words))

    def suggest(self, text: str) -> list[int]:
        """The moves (their indexes) a line that is no command most likely meant: those it
        writes word for word in a mix of the site's languages (``annoncer thief``: English's
        ``announce thief`` and French's ``annoncer voleur``), else, for a line of two words or
        more, those it misses by one word only (``exchange bob yes``); none when nothing is
        that near, or when more than :data:`MAX_SUGGESTED` are."""
        words = normalize(text).split()
        if not words:
            return []
        misses = {i: self._misses(i, words) for i in range(len(self.moves))}
        for allowed in (0, 1) if len(words) > 1 else (0,):
            found = [i for i, missed in misses.items() if missed == allowed]
            if found:
                return found if len(found) <= MAX_SUGGESTED else []
        return []


def _after(text: str, prefix: str) -> str | None:
    """The text typed after a command that reads as ``prefix`` once normalized (as typed but
    for the separators before it), or ``None`` when ``text`` does not begin with that
    command."""
    if not prefix:
        return None
    best = None
    for end in range(1, min(len(text), 4 * len(prefix) + 16) + 1):
        head = normalize(text[:end])
        if head == prefix:
            best = end
        elif not prefix.startswith(head):
            break
    if best is None or (best < len(text) and text[best - 1].isalnum() and text[best].isalnum()):
        return None
    return text[best:].lstrip(_TEXT_SEPARATORS).strip()


def read_command(kit: GameKit, text: str, legal_moves: list[dict],
                 names: dict[int, str]) -> ReadResult:
    """One line a player typed, read against the legal moves of their decision (in the order
    :func:`command_list` numbered them): see the module's docstring and :class:`ReadResult`."""
    return CommandReader(kit, legal_moves, names).read(text)


def command_problems(kit: GameKit, legal_moves: list[dict], names: dict[int, str]) -> list[str]:
    """What keeps a decision's commands from being read back, in words (none: all is well):
    an empty command, a command that is a number or a table word, two moves with one command
    (in one language, or across languages, as a line is read in all of them)."""
    found = []
    owners: dict[str, set[int]] = {}
    table = {normalize(s) for spellings in TABLE_WORDS.values() for s in spellings}
    for language in languages():
        texts = _commands(kit, legal_moves, names, language)
        for i, text in enumerate(texts):
            key = normalize(text)
            if not key:
                found.append(f"{language}: move {legal_moves[i]} has no command")
            elif key.isdigit() or key in table:
                found.append(f"{language}: the command {text!r} reads as a number or table word")
            owners.setdefault(key, set()).add(i)
    for key, moves in owners.items():
        if len(moves) > 1:
            found.append(f"{key!r} is the command of {[legal_moves[i] for i in sorted(moves)]}")
    return found


def table_board(game: Any, payload: dict[str, Any], recent: list[dict] | None = None) -> Board:
    """The :class:`games.core.kit.Board` of a viewer's game read
    (``games.core.selectors.game_payload``),
    as the table page builds it, for :meth:`games.core.kit.GameKit.status_lines`: the names by seat,
    the seats (absent, on vacation, their time bank, the viewer's, awaited), the viewer's recent
    events."""
    state, you = payload["state"] or {}, payload["you"]
    players = {p["player"]: p for p in payload.get("players", [])}
    names = {seat["seat"]: seat["player"] for seat in state.get("seats", [])}
    awaited = {item["seat"] for item in state.get("awaiting", [])}
    deadlines = {item["seat"]: item.get("deadline") for item in state.get("awaiting", [])}
    now = timezone.now()
    seats = []
    for seat in state.get("seats", []):
        info = players.get(seat["player"], {})
        seats.append({**seat, "absent": info.get("absent"), "vacation": info.get("vacation"),
                      "bank": seat_bank(info.get("clock"), deadlines.get(seat["seat"]), now),
                      "is_you": you is not None and seat["seat"] == you.get("seat"),
                      "awaited": seat["seat"] in awaited})
    return Board(game=game, state=state, you=you, names=names, seats=seats,
                 recent=list(recent or []))
