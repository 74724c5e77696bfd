"""Shadow House Mascarade's create form: how many players, the flash variant, the deadlines and
what happens to an absent player; its checks are the rules' own (``normalize_options``). The
staff-only ``deal`` and ``first_seat`` are the API's."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from games.core.kit import (
    SHORT_TIMEOUTS,
    TIMEOUTS,
    GameOptionsForm,
    absent_policy_field,
    speed_choice,
    speed_fields,
)


class ShadowHouseOptionsForm(GameOptionsForm):
    field_order = ["players", "flash", "speed", "bank_initial", "bank_increment", "move_timeout",
                   "challenge_timeout", "absent_policy", "private", "bots"]

    players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int, initial=5,
                                     choices=[(n, n) for n in range(3, 9)])
    flash = forms.BooleanField(
        label=gettext_lazy("Flash investigation: one round, no points (the culprit side or "
                           "everyone else wins)"), required=False)
    move_timeout = forms.TypedChoiceField(
        label=gettext_lazy("Time for a turn (and the Witness's and Divining hat's choices)"),
        coerce=int, choices=TIMEOUTS, initial=86_400)
    challenge_timeout = forms.TypedChoiceField(
        label=gettext_lazy("Time to answer another's card (give, discard, the Panic's pool)"),
        coerce=int, choices=SHORT_TIMEOUTS, initial=12 * 3600)
    speed, bank_initial, bank_increment = speed_fields()
    absent_policy = absent_policy_field()

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        options = {key: data[key] for key in ("players", "absent_policy")
                   if data.get(key) not in (None, "")}
        options.update(speed_choice(data))
        options["flash"] = bool(data.get("flash"))
        return options
