"""Pages of the games app outside the API."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from . import notifications


@csrf_exempt  # the signed token is the credential; mail clients post it without a session
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """One-click unsubscribe: GET asks for confirmation, POST (a person's, or a mail client's
    RFC 8058 one-click request) switches the user's email notifications off."""
    user = notifications.user_from_token(token)
    if user is None:
        return render(request, "games/unsubscribe.html", {"invalid": True}, status=400)
    done = False
    if request.method == "POST":
        if user.notify_email:
            user.notify_email = False
            user.save(update_fields=["notify_email"])
        done = True
    return render(request, "games/unsubscribe.html", {"target": user, "done": done})
