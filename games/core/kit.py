"""What a game gives the site besides its rules: its presentation, the *kit*.

A game's package (``games/<game>/``) holds its pure rules (``rules/``) and a :class:`GameKit`
beside them, which ``games.core.catalog`` maps to the game's id. The site owns the envelope (players
and seats, awaited decisions and deadlines, ``seq``, legal moves, the lobby, the page shell,
mails, the bots' scheduling, the API); the kit says everything about the game itself:

- its name, a paragraph for the home page, how many players;
- the create form's fields (a :class:`GameOptionsForm`, whose checks are the rules' own
  ``normalize_options``), with an optional live check (htmx) and help beside the form;
- the table: a board template (and an optional aside) rendered from the viewer's projection
  only, with :meth:`GameKit.board_context` adding words to it; the legal moves as buttons
  (:meth:`GameKit.move_label`, grouped by :meth:`GameKit.move_group`); the history in sentences
  (:meth:`GameKit.sentence`);
- the words of each decision, for the banners and the mails (:meth:`GameKit.decision_words`,
  :meth:`GameKit.decision_mail`);
- its rules page section; its bots; the JSON Schemas of its options, moves, state and ``you``
  for the OpenAPI schema (``docs/api/<game>.md`` says the same in words);
- the lines its rules put in the table chat (:meth:`GameKit.chat_lines`, e.g. a card's text
  read out to everyone), and the label each such line is shown with
  (:meth:`GameKit.chat_source_label`);
- play by email: each legal move as a short command a player types in a mail
  (:meth:`GameKit.command_words`, in the active language; :attr:`GameKit.free_text_moves` for a
  move whose field is the player's own text), and the table as plain-text lines for a mail
  (:meth:`GameKit.status_lines`). ``games.mail.commands`` numbers, lists and reads them for every
  game alike.

Everything a kit renders comes from the viewer's projection (``games.core.selectors``): a sentence
can
never say more than the projection did.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games.engine.base import EngineError, Game, InvalidOptions
from games.engine.bots import Bot
from games.engine.options import speed_of
from games.models import NAME_MAX_LENGTH

# --------------------------------------------------------------------------------------------
# Words every game shares


def seat_name(value: Any, names: dict[int, str]) -> str:
    """A seat in words: the name of who sits there, else "seat n"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return names.get(value, _("seat %(n)s") % {"n": value})
    return str(value)


def acting_player(event: dict, names: dict[int, str]) -> str:
    """The acting player of an event: its (already named) ``player``, else its seat's name."""
    player = event.get("player")
    return player if isinstance(player, str) else seat_name(event.get("seat"), names)


def cards_in_words(cards: list, order: Any, title: Callable[[Any], str]) -> str:
    """Cards in words, in the rules' ``order``, repeated ones counted ("2 × Alibi, Toby")."""
    counts = {card: cards.count(card) for card in order if card in cards}
    return ", ".join(f"{n} × {title(card)}" if n > 1 else title(card)
                     for card, n in counts.items())


def command_text(text: Any) -> str:
    """A mail command as it is written: lower case, words separated by single spaces."""
    return " ".join(str(text).lower().split())


def waiting_line(board: Board, decision_words: Callable[[str], str]) -> str:
    """Who the game waits for and for what ("Waiting for: bob (a turn)."), from the viewer's
    ``state["awaiting"]`` (the viewer named "you"); empty when nobody is awaited."""
    mine = (board.you or {}).get("seat")
    items = []
    for item in board.state.get("awaiting") or []:
        who = _("you") if mine is not None and item.get("seat") == mine else (
            seat_name(item.get("seat"), board.names))
        items.append(f"{who} ({decision_words(item.get('decision', ''))})")
    if not items:
        return ""
    return _("Waiting for: %(list)s.") % {"list": ", ".join(items)}


def viewers_decision(item: dict[str, Any], board: Board) -> bool:
    """Whether an awaited decision (one of ``board.state["awaiting"]``) is the viewer's."""
    mine = (board.you or {}).get("seat")
    return mine is not None and item.get("seat") == mine


def seat_line(seat: dict[str, Any], details: list[str]) -> str:
    """One seat of the table in a mail: its player's name ("(you)" for the viewer's), then the
    seat's details and the site's badges (bot, absent, on vacation, its time bank), separated
    by " · "."""
    name = str(seat.get("player", ""))
    if seat.get("is_you"):
        name += f" ({_('you')})"
    bank = seat.get("bank")
    badges = [_("bot") if seat.get("is_bot") else "", _("absent") if seat.get("absent") else "",
              _("on vacation") if seat.get("vacation") else "",
              (_("bank: %(left)s (running)") if bank["running"] else _("bank: %(left)s")) % {
                  "left": bank["words"]} if bank else ""]
    return _("%(player)s: %(details)s") % {
        "player": name, "details": " · ".join(part for part in [*details, *badges] if part)}


def table_sentence(event: dict, names: dict[int, str]) -> str:
    """A table event (``games.engine.table``: pause, absence, abort...) in words."""
    who = acting_player(event, names)
    action = event.get("action")
    by, reason = event.get("by"), event.get("reason") or ""
    paused = (_("The game is paused: every player asked for it.") if by == "players"
              else _("A moderator paused the game: %(reason)s") % {"reason": reason}
              if by == "moderator" and reason else _("The game is paused."))
    words = {
        "pause": paused,
        "resume": (_("A moderator resumed the game.") if by == "moderator"
                   else _("The game resumes.")),
        "absent": _("%(player)s is marked absent.") % {"player": who},
        "back": _("%(player)s is back.") % {"player": who},
        "replace": _("Someone else now plays for %(player)s.") % {"player": who},
        "extend": _("A deadline was extended."),
        "abort": _("The game was aborted: %(reason)s") % {"reason": event.get("reason", "")},
    }
    return words.get(action, str(action))


def actor_note(actor: Any, stand_in_for: str | None = None) -> str:
    """Who really played a move when its player did not choose it: the deadline's default (a
    timeout, or a moderator's "timeout now"), or a bot standing in for an absent player; empty
    for a move its player (or its own bot seat) chose."""
    if actor == "timeout":
        return _("played by the deadline's default")
    if actor == "moderator":
        return _("played by the deadline's default, at a moderator's request")
    if actor == "bot" and stand_in_for:
        return _("played by a bot standing in for %(player)s") % {"player": stand_in_for}
    return ""


def history_lines(kit: GameKit, events: list[dict], names: dict[int, str],
                  stand_ins: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """The viewer's events (oldest first, each with its ``seq`` and ``actor``) as history lines
    ``{"seq", "text", "by", "first"}``, oldest first (the order of the page's history and of the
    mails): ``first`` marks a move's first line, the one that shows its number (the others
    follow from it: a "Turn: bob." that a move ends with is not a move of its own); ``by``
    says, on that line, who really played the move when its player did not
    (:func:`actor_note`); table events say it themselves. Lines of seq 0 (the game's opening,
    :meth:`GameKit.opening_events`) have no number."""
    lines = []
    noted: set[int] = set()
    seen: set[int] = set()
    for event, then in zip(events, kit.names_then(events, names), strict=True):
        table = event.get("type") == "table"
        text = table_sentence(event, then) if table else kit.sentence(event, then)
        seq = event.get("seq")
        by = ""
        if not table and seq not in noted:
            noted.add(seq)
            by = actor_note(event.get("actor"), (stand_ins or {}).get(seq))
        lines.append({"seq": seq, "text": text, "by": by, "first": bool(seq) and seq not in seen})
        seen.add(seq)
    return lines


def history_text(line: dict[str, Any]) -> str:
    """A history line as a mail writes it: "#5 text (by)" on a move's first line, the move's
    other lines indented under it."""
    text = f"{line['text']} ({line['by']})" if line["by"] else line["text"]
    return f"#{line['seq']} {text}" if line["first"] else f"   {text}"


# --------------------------------------------------------------------------------------------
# The create form


TIMEOUTS = [(3600, gettext_lazy("1 hour")), (4 * 3600, gettext_lazy("4 hours")),
            (12 * 3600, gettext_lazy("12 hours")), (86_400, gettext_lazy("1 day")),
            (2 * 86_400, gettext_lazy("2 days")), (3 * 86_400, gettext_lazy("3 days")),
            (7 * 86_400, gettext_lazy("7 days"))]
SHORT_TIMEOUTS = [(600, gettext_lazy("10 minutes")), (3600, gettext_lazy("1 hour")),
                  (4 * 3600, gettext_lazy("4 hours")), (12 * 3600, gettext_lazy("12 hours")),
                  (86_400, gettext_lazy("1 day"))]


def ranking_lines(scores: list[tuple[str, int]], unit, winners: Collection[int] = (),
                  why: str = "") -> list[str]:
    """A final ranking: the winners first, sharing rank 1 and saying why they won ("1. bob:
    14 coins · winner: 13 coins or more"), then the others by score, equal scores sharing a
    rank ("2. ann: 10 coins"). ``scores`` are ``(name, score)`` pairs, ``winners`` the indexes
    of the winners' pairs (the game's result: a winner need not have the best score, e.g. a
    Cheater's win), ``why`` a few words on how they won, ``unit`` words a score
    (``lambda n: ngettext(...)``). Without winners, everyone is ranked by score."""
    won = [scores[i] for i in sorted(set(winners))]
    others = sorted((pair for i, pair in enumerate(scores) if i not in set(winners)),
                    key=lambda item: -item[1])
    lines = []
    for name, score in sorted(won, key=lambda item: -item[1]):
        line = _("%(rank)d. %(player)s: %(score)s") % {
            "rank": 1, "player": name, "score": unit(score)}
        lines.append(line + " · " + (_("winner: %(why)s") % {"why": why} if why
                                     else _("winner")))
    rank = 0
    for index, (name, score) in enumerate(others):
        if index == 0 or score != others[index - 1][1]:
            rank = len(won) + index + 1
        lines.append(_("%(rank)d. %(player)s: %(score)s") % {
            "rank": rank, "player": name, "score": unit(score)})
    return lines


def duration_words(seconds: int) -> str:
    """A length of time in words, rounded to its largest unit ("3 days", "12 hours", "1
    hour", "10 minutes")."""
    named = dict(TIMEOUTS).get(seconds) or dict(SHORT_TIMEOUTS).get(seconds)
    if named is not None:
        return str(named)
    hours = seconds / 3600
    if hours >= 47.5:
        days = round(hours / 24)
        return ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
    if hours >= 1:
        return ngettext("%(n)d hour", "%(n)d hours", max(1, round(hours))) % {
            "n": max(1, round(hours))}
    return ngettext("%(n)d minute", "%(n)d minutes", max(1, seconds // 60)) % {
        "n": max(1, seconds // 60)}


SPEED_NAMES = {"fast": gettext_lazy("fast"), "normal": gettext_lazy("normal"),
               "slow": gettext_lazy("slow"), "bank": gettext_lazy("time bank"),
               "custom": gettext_lazy("custom")}


def speed_words(options: dict[str, Any]) -> str:
    """A game's speed for the lobby and the table: its name and the time for a turn ("fast:
    1 hour per turn"), or its time bank ("time bank: 3 days, +12 hours per decision")."""
    speed = speed_of(options)
    if speed == "bank":
        initial, increment = options.get("bank_initial"), options.get("bank_increment")
        if not (isinstance(initial, int) and isinstance(increment, int)):
            return str(SPEED_NAMES["bank"])
        return _("time bank: %(initial)s, +%(increment)s per decision") % {
            "initial": duration_words(initial), "increment": duration_words(increment)}
    seconds = options.get("move_timeout")
    if not isinstance(seconds, int) or seconds <= 0:
        return ""
    per_turn = _("%(time)s per turn") % {"time": duration_words(seconds)}
    if speed == "custom":
        return per_turn
    return _("%(speed)s: %(per_turn)s") % {"speed": SPEED_NAMES[speed], "per_turn": per_turn}


def seat_bank(clock: dict | None, deadline: str | None, now: dt.datetime) -> dict | None:
    """A seat's time bank as the table and the mails show it, ``{"words", "running"}``, from
    its ``clock`` in the players of the viewer's payload (``None`` in a game without a bank).
    While it runs, what is left is the time to its decision's ``deadline`` (ISO 8601; the
    deadline counts the player's vacations); stopped, its ``remaining``."""
    if not clock:
        return None
    running = clock.get("running_since") is not None
    left = clock.get("remaining") or 0
    if running and deadline:
        when = dt.datetime.fromisoformat(deadline.replace("Z", "+00:00"))
        left = max(0, int((when - now).total_seconds()))
    return {"words": bank_words(left), "running": running}


def time_left(deadline: dt.datetime, now: dt.datetime) -> str:
    """The time left before ``deadline``, in words ("5 min left", "9 h left", "3 days left"),
    as the table, the lobby and the push messages say it."""
    seconds = int((deadline - now).total_seconds())
    if seconds <= 0:
        return _("time is up")
    if seconds < 3600:
        return _("%(n)d min left") % {"n": max(1, seconds // 60)}
    if seconds < 86_400 * 2:
        return _("%(n)d h left") % {"n": seconds // 3600}
    return _("%(n)d days left") % {"n": seconds // 86_400}


def bank_words(seconds: int) -> str:
    """What a seat's time bank holds, in words ("2 d 4 h", "3 h 20 min", "45 min")."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return _("%(d)d d %(h)d h") % {"d": days, "h": hours}
    if hours:
        return _("%(h)d h %(m)02d min") % {"h": hours, "m": minutes}
    return _("%(m)d min") % {"m": minutes}


BANK_INITIALS = [(3600, gettext_lazy("1 hour")), (4 * 3600, gettext_lazy("4 hours")),
                 (86_400, gettext_lazy("1 day")), (3 * 86_400, gettext_lazy("3 days")),
                 (7 * 86_400, gettext_lazy("7 days")), (14 * 86_400, gettext_lazy("14 days"))]
BANK_INCREMENTS = [(600, gettext_lazy("10 minutes")), (3600, gettext_lazy("1 hour")),
                   (4 * 3600, gettext_lazy("4 hours")), (12 * 3600, gettext_lazy("12 hours")),
                   (86_400, gettext_lazy("1 day"))]


def speed_fields() -> tuple[forms.Field, forms.Field, forms.Field]:
    """The create form's choice of a speed (a site option every game takes:
    ``games.engine.options.speed_options``), and a time bank's initial time and increment; a
    form declares them as ``speed, bank_initial, bank_increment = speed_fields()`` beside its
    timers (used by the speed "custom"), and its ``options()`` takes :func:`speed_choice`."""
    return (
        forms.ChoiceField(
            label=gettext_lazy("Speed"), initial="normal", required=False,
            choices=[("fast", gettext_lazy("fast: 1 hour per turn")),
                     ("normal", gettext_lazy("normal: 1 day per turn")),
                     ("slow", gettext_lazy("slow: 3 days per turn")),
                     ("bank", gettext_lazy("a time bank for each player")),
                     ("custom", gettext_lazy("custom: the times below"))],
            help_text=gettext_lazy("Answering another's move (a challenge window) takes half "
                                   "the time of a turn. A time bank starts full; each "
                                   "decision adds its increment, never above the start; each "
                                   "player's decisions, taken at once or not, draw on their "
                                   "own bank.")),
        forms.TypedChoiceField(label=gettext_lazy("Time bank: time at the start (and at most)"),
                               coerce=int, choices=BANK_INITIALS, initial=3 * 86_400,
                               required=False),
        forms.TypedChoiceField(label=gettext_lazy("Time bank: time added per decision"),
                               coerce=int, choices=BANK_INCREMENTS, initial=12 * 3600,
                               required=False),
    )


def speed_choice(data: dict[str, Any]) -> dict[str, Any]:
    """The speed's options from a create form's cleaned data: the speed, with the timers of
    the speed "custom" or the bank of a time bank (the others' fields are left out). A form
    sent without a speed (by a script older than speeds) is "custom", its timers as given."""
    timers = ("move_timeout", "challenge_timeout")
    speed = data.get("speed") or ("custom" if any(data.get(key) for key in timers)
                                  else "normal")
    keys = {"custom": timers,
            "bank": ("bank_initial", "bank_increment")}.get(speed, ())
    return {"speed": speed, **{key: data[key] for key in keys
                               if data.get(key) not in (None, "")}}


def absent_policy_field() -> forms.ChoiceField:
    """The create form's choice of what happens to a player who misses deadlines (a site
    option every game takes: ``games.engine.options``)."""
    return forms.ChoiceField(
        label=gettext_lazy("When a player misses three deadlines in a row"), initial="bot",
        choices=[("bot", gettext_lazy("a bot plays for them until they come back")),
                 ("wait", gettext_lazy("the site keeps playing the defaults for them"))])


#: The rules' refusals of options that every game shares (``games.engine.options``), worded.
OPTION_REFUSALS = {
    "wrong_type": gettext_lazy("This value is not of the kind the rules expect."),
    "out_of_range": gettext_lazy("This value is outside what the rules allow."),
    "invalid_choice": gettext_lazy("Choose one of the values offered."),
    "unknown_option": gettext_lazy("This option does not exist for this game."),
}


def option_refusal(code: str) -> str:
    """A refusal of options by the rules, from its ``code``, in the active language (the rules'
    own messages are English): a code every game shares, or a general sentence."""
    return str(OPTION_REFUSALS.get(code, gettext_lazy("The rules do not allow these options.")))


class GameOptionsForm(forms.Form):
    """The create form of one game: its kit's subclass declares the game's fields and
    :meth:`options`; this base adds privacy and bots, and checks the options with the rules'
    own ``normalize_options`` (the kit words its refusals: :meth:`GameKit.option_errors`)."""

    #: Set by :meth:`GameKit.form`.
    kit: GameKit

    name = forms.CharField(
        label=gettext_lazy("Name of the game (optional)"), required=False,
        max_length=NAME_MAX_LENGTH,
        help_text=gettext_lazy("What the players will call it; left empty, your name and a "
                               "number (“tom #3”)."))
    private = forms.BooleanField(label=gettext_lazy("Private (joined with an invite link)"),
                                 required=False)
    bots = forms.TypedChoiceField(label=gettext_lazy("Bots to add now"), coerce=int, initial=0,
                                  choices=[(n, n) for n in range(0, 12)])
    min_reliability = forms.TypedChoiceField(
        label=gettext_lazy("Players who may join"), coerce=int, empty_value=None,
        required=False, initial="", choices=[("", gettext_lazy("anyone"))],
        help_text=gettext_lazy("A player's reliability is the share of their decisions taken "
                               "in time over 90 days; it shows beside their name at every "
                               "table."))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        most = self.kit.rules.max_players - 1
        self.fields["bots"].choices = [(n, n) for n in range(0, most + 1)]
        self.fields["min_reliability"].choices = [("", _("anyone")), *(
            (n, _("reliability %(n)d%% or more") % {"n": n})
            for n in (50, 60, 70, 75, 80, 85, 90, 95))]
        # The name first, whatever order the game's own form gives its fields.
        self.order_fields(["name", *(f for f in self.fields if f != "name")])

    def options(self) -> dict[str, Any]:
        """The game's options from the cleaned fields: every field but the name, privacy,
        bots and the minimum reliability, those left empty omitted (a kit's form overrides this
        where its fields are not
        options one for one)."""
        return {name: value for name, value in self.cleaned_data.items()
                if name not in ("name", "private", "bots", "min_reliability")
                and value not in (None, "")}

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        options = self.options()
        try:
            normalized = self.kit.rules.normalize_options(options)
        except InvalidOptions as exc:
            for name, message in self.kit.option_errors(exc, options):
                self.add_error(name if name in self.fields else None, message)
            return data
        players = self.kit.rules.player_count(normalized)
        if data.get("bots") is not None and data["bots"] > players - 1:
            self.add_error("bots", ngettext("At most %(n)d bot in a game of %(p)d.",
                                            "At most %(n)d bots in a game of %(p)d.",
                                            players - 1) % {
                "n": players - 1, "p": players})
        return data


# --------------------------------------------------------------------------------------------
# The kit


@dataclass
class Board:
    """What a kit's :meth:`GameKit.board_context` gets: the viewer's projection and the words
    the site already made of it."""

    #: The game row (``games.models.Game``): its options, status, seq.
    game: Any
    #: The viewer's ``state`` and ``you`` (players named, deadlines added), as the API gives them.
    state: dict[str, Any]
    you: dict[str, Any] | None
    #: Seat → the name of who sits there now.
    names: dict[int, str]
    #: The seats as the site shows them (``seat``, ``player``, ``is_bot``, ``absent``, ``is_you``,
    #: ``awaited``...), one per seat of ``state["seats"]``; the kit may add keys.
    seats: list[dict[str, Any]]
    #: The viewer's events of the latest moves, oldest first (each with its ``seq``).
    recent: list[dict[str, Any]] = field(default_factory=list)


class GameKit:
    """A game's presentation. A kit subclasses this and sets the attributes; every method has a
    plain default, so a kit overrides only what its game needs."""

    #: The game's id (the rules' ``id``) and rules (:class:`games.engine.base.Game`).
    id: str
    rules: Game
    #: Its name, a paragraph for the home page, who plays it ("4 to 12 players").
    name: Any
    blurb: Any = ""
    players_text: Any = ""
    #: Bots by kind, each a factory (the random bot is every game's: ``games.core.catalog``).
    bots: dict[str, Callable[[], Bot]] = {}
    #: The create form's class (a :class:`GameOptionsForm`).
    option_form: type[GameOptionsForm]
    #: Templates: the create page's help beside the form, the create form's live check (htmx;
    #: ``None``: no live check), the table's board and the part after the moves, the rules page's
    #: section.
    create_help_template: str | None = None
    check_template: str | None = None
    #: Fields of the create form rendered by a template of the kit's (a field's name → template;
    #: the template gets ``field`` and ``form``), the others as label and input.
    field_templates: dict[str, str] = {}
    #: Whether :meth:`opening_events` tells something (the history's first lines are read from
    #: the game's state right after its setup only then).
    tells_opening: bool = False
    #: The create page's own stylesheet, a static path under the package's ``static/`` (e.g.
    #: fields shown only for some choices); ``None``: the site's styles only.
    create_stylesheet: str | None = None
    board_template: str
    aside_template: str | None = None
    #: The table's own stylesheet, a static path (``"<game>/table.css"`` under the package's
    #: ``static/``), linked from the table's page; ``None``: the site's styles only.
    stylesheet: str | None = None
    #: The legal moves as forms (default: one form per :meth:`move_group`, a radio button per
    #: move); a kit's own template gets ``move_groups`` and ``legal_moves`` too.
    moves_template: str = "games/_moves.html"
    rules_template: str
    #: JSON Schemas (OpenAPI 3.0) of its options, one move, the ``state`` and ``you`` of a game
    #: read; ``docs/api/<game>.md`` says the same in words.
    options_schema: dict[str, Any] = {"type": "object"}
    move_schema: dict[str, Any] = {"type": "object"}
    state_schema: dict[str, Any] = {"type": "object"}
    you_schema: dict[str, Any] = {"type": "object"}
    #: The game's own parts of ``you`` before the game starts (no state yet), e.g. empty lists.
    you_before_start: dict[str, Any] = {}
    #: Who made the game (the footer's credits), in the viewer's language.
    credits: Any = ""

    def form(self, *args, **kwargs) -> GameOptionsForm:
        """The create form, bound to this kit."""
        form_class = type(self.option_form.__name__, (self.option_form,), {"kit": self})
        return form_class(*args, **kwargs)

    def option_errors(self, error: InvalidOptions, options: dict[str, Any]
                      ) -> list[tuple[str | None, str]]:
        """The rules' refusal of the form's options as ``(field, message)`` pairs in the
        viewer's language (default: :func:`option_refusal` of each problem's code, on the field
        the refusal names; the rules' own message is English)."""
        problems = error.extra.get("errors") or [(error.code, error.message)]
        return [(error.field, option_refusal(code)) for code, _message in problems]

    def error_words(self, error: EngineError) -> str | None:
        """A refusal of the rules (a move's) as a sentence in the viewer's language, from its
        ``code`` and ``extra`` (the engine's ``message`` is English); ``None`` for a code the
        kit does not word: the site then says it by the error's class
        (``games.core.errors.engine_words``). Default: ``None``."""
        return None

    def ending_lines(self, board: Board) -> list[str]:
        """Once the game is over: why it ended, then the final ranking, one line each (the
        table and the end-of-game mail show them). Default: the winners."""
        winners = [seat_name(w, board.names) for w in board.state.get("winners", [])]
        if not winners:
            return [_("The game is over without a winner.")]
        return [ngettext("The game is over. Winner: %(winners)s.",
                         "The game is over. Winners: %(winners)s.", len(winners))
                % {"winners": ", ".join(winners)}]

    def options_summary(self, options: dict[str, Any]) -> str:
        """The game's own options in a few words for the lobby ("scenario A", "flash
        investigation"); empty when there is nothing to say."""
        return ""

    def decision_words(self, decision: str) -> str:
        """An awaited decision in a few words ("a turn", "claim or pass")."""
        return str(decision)

    def decision_context(self, item: dict[str, Any], board: Board) -> str:
        """What an awaited decision is about, in a few words from the viewer's projection
        only, for the table's banner: "Bot 3 announced the Empress", "Your Spy looked at
        bob's card and yours". ``item`` is one of ``board.state["awaiting"]`` (its ``seat``,
        ``player``, ``decision``); :func:`viewers_decision` says whether it is the viewer's.
        Default: nothing (the decision's words say it all)."""
        return ""

    def decision_question(self, decision: str) -> str:
        """The viewer's own decision as a question put to them ("claim or pass?"). Default:
        :meth:`decision_words`."""
        return self.decision_words(decision)

    def decision_banner(self, item: dict[str, Any], board: Board) -> str:
        """The banner of one awaited decision, named with its context: the viewer's own as a
        question ("Bot 3 announced the Empress: claim or pass?"), another's as who is awaited
        for what ("Waiting for bob: claim or pass (Bot 3 announced the Empress)."), from
        :meth:`decision_context`, :meth:`decision_question` and :meth:`decision_words`."""
        decision = item.get("decision", "")
        context = self.decision_context(item, board)
        if viewers_decision(item, board):
            if context:
                return _("%(context)s: %(question)s") % {
                    "context": context, "question": self.decision_question(decision)}
            return _("Your move: %(what)s") % {"what": self.decision_question(decision)}
        who = seat_name(item.get("seat"), board.names)
        if context:
            return _("Waiting for %(who)s: %(what)s (%(context)s).") % {
                "who": who, "what": self.decision_words(decision), "context": context}
        return _("Waiting for %(who)s: %(what)s") % {
            "who": who, "what": self.decision_words(decision)}

    def decision_mail(self, decision: str) -> tuple[str, Any, Any]:
        """The mail a decision sends: its kind (``"your_turn"``, ``"challenge"`` or
        ``"power"``: the outbox folds decision mails of one game together, and a player may
        have none of some kinds), its subject (with ``%(game)s``) and its first line (which may
        use ``%(game)s`` too), both translated when the mail is written."""
        return ("your_turn", gettext_lazy("Your turn in %(game)s"),
                gettext_lazy("It is your turn in %(game)s."))

    def move_label(self, move: dict, names: dict[int, str]) -> str:
        """A legal move as a button's words."""
        return str(move.get("type"))

    def move_group(self, move: dict) -> str:
        """The heading a legal move is listed under (one form per heading)."""
        return _("Your move")

    def sentence(self, event: dict, names: dict[int, str]) -> str:
        """One event of the viewer's history (rules' events; table events are the site's)."""
        return str(event.get("type"))

    def names_then(self, events: list[dict], names: dict[int, str]) -> list[dict[int, str]]:
        """For each event (oldest first), who sat at each seat when it happened (default: the
        seats never change hands)."""
        return [names for _event in events]

    def board_context(self, board: Board) -> dict[str, Any]:
        """What the board template shows besides ``state``, ``you`` and ``seats``."""
        return {}

    def rules_context(self) -> dict[str, Any]:
        """What the rules page's section shows."""
        return {}

    def opening_events(self, state: dict[str, Any], you: dict[str, Any] | None) -> list[dict]:
        """What the game's setup did that no move's events tell, as events the kit's
        :meth:`sentence` words (the history's first lines, before move 1), read from ``state``
        and ``you``: the viewer's projection of the state right after the setup
        (``selectors.opening_events``), so only what that viewer may know. Asked only when
        :attr:`tells_opening`. Default: none."""
        return []

    def create_context(self) -> dict[str, Any]:
        """What the create page's help shows."""
        return {}

    def chat_lines(self, events: list[dict]) -> list[tuple[int, str, str]]:
        """Lines the rules post to the table chat for one applied move: ``(player, text,
        source)`` each, where ``player`` is the engine player index the line is written for
        (its author is that seat's user, or none for a bot), ``text`` what everyone at the
        table will read (at most ``games.models.CHAT_MAX_LENGTH`` characters) and ``source``
        a key of the kit's (a card's id) that :meth:`chat_source_label` names.

        The write path calls it with the move's true events (the rules' whole truth, before
        any projection: the player's move, a timeout's or a bot's), and appends the lines in
        the move's own transaction. Every viewer of the game, spectators included, reads them:
        a kit returns only what the rules make public. Default: none."""
        return []

    def chat_source_label(self, source: str) -> str:
        """The words a chat line of ``source`` is shown with ("Divining hat"), in the
        viewer's language (default: the key itself)."""
        return source

    #: Moves whose field is the player's own text, by move type: type → that field (Shadow
    #: House's ``{"say": "text"}``). A legal move of such a type carries the field empty; its
    #: command is :meth:`command_words` of it, followed by any text (``say i suspect bob``).
    free_text_moves: dict[str, str] = {}

    def command_words(self, move: dict, names: dict[int, str]) -> str:
        """A legal move as a short command a player types in a mail, in the active language
        (its words from the catalogue): lower case words separated by single spaces (a
        player's name, from ``names``, may be several words), e.g. ``exchange bob swap``.
        Every legal move of a decision must have its own command, in each language, and none
        may be a number nor one of the table words of ``games.mail.commands`` (help, status...).

        Default: the move's type, then its fields' values in order (a seat by its player's
        name, yes/no for a flag, ``none`` for a null)."""
        parts = [str(move.get("type", "")).replace("_", " ")]
        for key, value in move.items():
            if key != "type":
                parts.extend(_default_words(key, value, names))
        return command_text(" ".join(parts))

    def command_notes(self, legal_moves: list[dict]) -> list[str]:
        """What the words of these legal moves' mail commands mean, where the words alone may
        not say it (a mail prints them under its numbered commands), in the active language.
        Default: none."""
        return []

    def status_lines(self, board: Board) -> list[str]:
        """The table as plain-text lines for a mail, in the active language, from the viewer's
        projection only (the same :class:`Board` as :meth:`board_context`'s): the seats,
        whose turn it is, what the viewer alone knows. Default: none."""
        return []


#: Fields of a move that name a seat (the default command words name its player).
_SEAT_FIELDS = ("target", "targets", "seat", "to", "from")


def _default_words(key: str, value: Any, names: dict[int, str]) -> list[str]:
    if isinstance(value, list | tuple):
        return [word for item in value for word in _default_words(key, item, names)]
    if isinstance(value, bool):
        return [pgettext("command", "yes") if value else pgettext("command", "no")]
    if value is None:
        return [pgettext("command", "none")]
    if key in _SEAT_FIELDS and isinstance(value, int):
        return [seat_name(value, names)]
    return [str(value).replace("_", " ")]
