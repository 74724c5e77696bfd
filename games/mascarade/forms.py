"""Mascarade's create form: players, scenario (with the custom scenario builder), challenges,
deadlines, what happens to an absent player, the history's memory; its checks are the rules' own
(``normalize_options``), worded here."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.core.kit import (
    SHORT_TIMEOUTS,
    TIMEOUTS,
    GameOptionsForm,
    absent_policy_field,
    option_refusal,
    speed_choice,
    speed_fields,
)
from games.engine.base import InvalidOptions

from . import display
from .rules.data import MASKS, SCENARIOS


class MascaradeOptionsForm(GameOptionsForm):
    field_order = ["players", "scenario", "masks", "center", "challenge_mode", "speed",
                   "bank_initial", "bank_increment", "move_timeout", "challenge_timeout",
                   "absent_policy", "log_masks", "private", "bots"]

    players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int, initial=5,
                                     choices=[(n, n) for n in range(4, 13)])
    scenario = forms.ChoiceField(label=gettext_lazy("Scenario"), initial="A",
                                 choices=[("A", gettext_lazy("A (first games)")),
                                          ("B", gettext_lazy("B (more powers)")),
                                          ("custom", gettext_lazy("Custom: choose the masks"))])
    masks = forms.MultipleChoiceField(
        label=gettext_lazy("Masks of a custom scenario"), required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(m.id, m.id) for m in MASKS.values()])
    center = forms.TypedChoiceField(
        label=gettext_lazy("Center cards (custom, 6 players or more)"), required=False,
        coerce=int, empty_value=None,
        choices=[("", gettext_lazy("as usual for the player count")), (0, 0), (1, 1), (2, 2)])
    challenge_mode = forms.ChoiceField(
        label=gettext_lazy("Challenges"), initial="sequential",
        choices=[("sequential", gettext_lazy("one player after another (clockwise)")),
                 ("simultaneous", gettext_lazy("everyone at once"))])
    move_timeout = forms.TypedChoiceField(label=gettext_lazy("Time for a turn"), coerce=int,
                                          choices=TIMEOUTS, initial=86_400)
    challenge_timeout = forms.TypedChoiceField(label=gettext_lazy("Time to claim or pass"),
                                               coerce=int, choices=SHORT_TIMEOUTS,
                                               initial=12 * 3600)
    speed, bank_initial, bank_increment = speed_fields()
    absent_policy = absent_policy_field()
    log_masks = forms.BooleanField(label=gettext_lazy("The history keeps revealed masks"),
                                   required=False, initial=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["masks"].choices = [
            (m.id, f"{display.mask(m.id)}{' ★' if m.star else ''}"
                   f"{' ×2' if m.copies > 1 else ''} — {display.POWERS[m.id]}")
            for m in MASKS.values()]

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        options = {key: data[key] for key in ("players", "scenario", "challenge_mode",
                                              "absent_policy", "log_masks") if key in data}
        options.update(speed_choice(data))
        if data.get("scenario") == "custom":
            masks = []
            for mask_id in data.get("masks") or []:
                masks += [mask_id] * MASKS[mask_id].copies
            options["masks"] = masks
            if data.get("center") is not None:
                options["center"] = data["center"]
        return options


SCENARIO_MESSAGES = {
    "custom_needs_judge": gettext_lazy("A scenario must include the Judge."),
    "custom_too_few_stars": gettext_lazy("At least a third of the masks (rounded up) must "
                                         "carry a star ★."),
    "custom_peasant_pair": gettext_lazy("The Peasants come as a pair or not at all."),
    "custom_duplicate_mask": gettext_lazy("No mask other than the Peasant may appear twice."),
    "center_not_choosable": gettext_lazy("Only games of 6 players or more choose their center "
                                         "cards."),
}


def option_errors(exc: InvalidOptions, options: dict[str, Any]) -> list[tuple[str, str]]:
    """The custom scenario's broken rules (§3), from the rules' own check, in words."""
    problems = exc.extra.get("errors") or [(exc.code, exc.message)]
    out = []
    for code, _message in problems:
        if code == "custom_mask_count":
            players, center = options["players"], options.get("center")
            wanted = players + (center if center is not None else
                                (2 if players == 4 else 1 if players == 5 else 0))
            text = _("Choose exactly %(n)d masks (the Peasants count as two); "
                     "%(k)d chosen.") % {"n": wanted, "k": len(options.get("masks", []))}
        elif code == "custom_min_players":
            names = sorted({str(display.mask(m)) for m in options.get("masks", [])
                            if m in MASKS and MASKS[m].min_players > options["players"]})
            text = _("These masks need more players: %(masks)s.") % {"masks": ", ".join(names)}
        else:
            text = (str(SCENARIO_MESSAGES[code]) if code in SCENARIO_MESSAGES
                    else option_refusal(code))
        out.append(("masks" if exc.field in (None, "masks") else exc.field, text))
    return out


def scenario_table() -> list[dict]:
    """The masks of each named scenario, for each player count: a mask once, with "×2" when
    it comes twice (the Peasants), as the custom builder's boxes say it."""
    out = []
    for players in range(4, 13):
        row = {"players": players}
        for scenario in ("A", "B"):
            counts = Counter(SCENARIOS.get(scenario, {}).get(players, ()))
            row[scenario] = [f"{display.mask(m)}{f' ×{n}' if n > 1 else ''}"
                             for m, n in counts.items()]
        out.append(row)
    return out
