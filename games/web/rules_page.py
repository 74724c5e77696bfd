"""The rules page: every game's rules, one section each (the kits' own). (Not ``rules``: a
package of games/ with a ``rules`` module is a game, to the import contracts.)"""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.core import catalog


@require_GET
def rules(request):
    """Every game's rules, one section each (the kits' own)."""
    return render(request, "games/rules.html", {
        "sections": [{"kit": kit, "context": kit.rules_context()} for kit in catalog.kits()]})
