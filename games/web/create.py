"""Creating a game: the form of the chosen game's kit, and its live check (htmx)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.core import catalog, services
from games.core.errors import ApplicationError, text_of
from games.core.kit import GameKit
from games.engine import EngineError


def _kit_asked(request) -> GameKit:
    """The game a page is about (``?game=``, or the form's ``game``): the default one when it
    names none, or one this site does not serve."""
    asked = request.POST.get("game") or request.GET.get("game")
    return catalog.find_kit(asked) or catalog.get_kit(catalog.default_id())


def _create_context(kit: GameKit, form) -> dict[str, Any]:
    return {**kit.create_context(), "kit": kit, "kits": catalog.kits(), "form": form,
            "fields": [(field, kit.field_templates.get(field.name)) for field in form]}


@login_required
@require_http_methods(["GET", "POST"])
def create(request):
    kit = _kit_asked(request)
    form = kit.form(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            outcome = services.create_game(request.user, kit.id, form.options(),
                                           private=data["private"], bots=data["bots"],
                                           name=data.get("name"),
                                           min_reliability=data.get("min_reliability"))
        except (ApplicationError, EngineError) as exc:
            form.add_error(None, text_of(exc, kit))
        else:
            messages.success(request, _("Your game is created."))
            return redirect("game", outcome.body["id"])
    return render(request, "games/create.html", _create_context(kit, form))


@require_POST
def create_check(request):
    """The create form's live check (htmx), for a game whose kit has one (Mascarade's custom
    scenario builder): the rules the chosen options break, in words."""
    kit = _kit_asked(request)
    if kit.check_template is None:
        raise Http404(_("This game's form has no live check."))
    form = kit.form(request.POST)
    form.is_valid()
    errors = [str(e) for name in kit.field_templates for e in form.errors.get(name, [])] + [
        str(e) for e in form.non_field_errors()]
    return render(request, kit.check_template, {"errors": errors, "form": form})
