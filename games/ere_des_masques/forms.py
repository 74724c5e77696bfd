"""L'Ère des Masques's create form: the deadlines and what happens to an absent player; its
checks are the rules' own (``normalize_options``). The staff-only ``deal`` and ``first_seat``
are the API's."""

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


class EreOptionsForm(GameOptionsForm):
    field_order = ["speed", "bank_initial", "bank_increment", "move_timeout", "challenge_timeout",
                   "absent_policy", "private", "bots"]

    move_timeout = forms.TypedChoiceField(label=gettext_lazy("Time for a turn"), coerce=int,
                                          choices=TIMEOUTS, initial=86_400)
    challenge_timeout = forms.TypedChoiceField(
        label=gettext_lazy("Time to let a card pass or counter it"), coerce=int,
        choices=SHORT_TIMEOUTS, initial=12 * 3600)
    speed, bank_initial, bank_increment = speed_fields()
    absent_policy = absent_policy_field()

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"players": 2, **speed_choice(data),
                **{key: data[key] for key in ("absent_policy",) if data.get(key) not in (None, "")}}
