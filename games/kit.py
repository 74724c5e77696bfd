"""What a game gives the site besides its rules: its presentation, the *kit*.

A game's package (``games/<game>/``) holds its pure rules (``rules/``) and a :class:`GameKit`
beside them, which ``games.catalog`` maps to the game's id. The site owns the envelope (players
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
  for the OpenAPI schema (``docs/api/<game>.md`` says the same in words).

Everything a kit renders comes from the viewer's projection (``games.selectors``): a sentence can
never say more than the projection did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.base import Game, InvalidOptions
from games.engine.bots import Bot

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


def table_sentence(event: dict, names: dict[int, str]) -> str:
    """A table event (``games.engine.table``: pause, absence, abort...) in words."""
    who = acting_player(event, names)
    action = event.get("action")
    words = {
        "pause": _("The game is paused."), "resume": _("The game resumes."),
        "absent": _("%(player)s is marked absent.") % {"player": who},
        "back": _("%(player)s is back.") % {"player": who},
        "replace": _("Someone else now plays for %(player)s.") % {"player": who},
        "extend": _("A deadline was extended."),
        "abort": _("The game was aborted: %(reason)s") % {"reason": event.get("reason", "")},
    }
    return words.get(action, str(action))


# --------------------------------------------------------------------------------------------
# The create form


TIMEOUTS = [(3600, gettext_lazy("1 hour")), (4 * 3600, gettext_lazy("4 hours")),
            (12 * 3600, gettext_lazy("12 hours")), (86_400, gettext_lazy("1 day")),
            (2 * 86_400, gettext_lazy("2 days")), (3 * 86_400, gettext_lazy("3 days")),
            (7 * 86_400, gettext_lazy("7 days"))]
SHORT_TIMEOUTS = [(600, gettext_lazy("10 minutes")), (3600, gettext_lazy("1 hour")),
                  (4 * 3600, gettext_lazy("4 hours")), (12 * 3600, gettext_lazy("12 hours")),
                  (86_400, gettext_lazy("1 day"))]


class GameOptionsForm(forms.Form):
    """The create form of one game: its kit's subclass declares the game's fields and
    :meth:`options`; this base adds privacy and bots, and checks the options with the rules'
    own ``normalize_options`` (the kit words its refusals: :meth:`GameKit.option_errors`)."""

    #: Set by :meth:`GameKit.form`.
    kit: GameKit

    private = forms.BooleanField(label=gettext_lazy("Private (joined with an invite link)"),
                                 required=False)
    bots = forms.TypedChoiceField(label=gettext_lazy("Bots to add now"), coerce=int, initial=0,
                                  choices=[(n, n) for n in range(0, 12)])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        most = self.kit.rules.max_players - 1
        self.fields["bots"].choices = [(n, n) for n in range(0, most + 1)]

    def options(self) -> dict[str, Any]:
        """The game's options from the cleaned fields: every field but privacy and bots, those
        left empty omitted (a kit's form overrides this where its fields are not options one
        for one)."""
        return {name: value for name, value in self.cleaned_data.items()
                if name not in ("private", "bots") and value not in (None, "")}

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
            self.add_error("bots", _("At most %(n)d bots in a game of %(p)d.") % {
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
    #: Bots by kind, each a factory (the random bot is every game's: ``games.catalog``).
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
    board_template: str
    aside_template: str | None = None
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
        viewer's language (default: the rules' own message on the field it names)."""
        problems = error.extra.get("errors") or [(error.code, error.message)]
        return [(error.field, str(message)) for _code, message in problems]

    def decision_words(self, decision: str) -> str:
        """An awaited decision in a few words ("a turn", "claim or pass")."""
        return str(decision)

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

    def create_context(self) -> dict[str, Any]:
        """What the create page's help shows."""
        return {}
