"""The one-click unsubscribe page of the emails' links (the signed token is the credential)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from games.notify import unsubscribe as links


@csrf_exempt  # the signed token is the credential; mail clients post it without a session
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """One-click unsubscribe: GET asks for confirmation, POST (a person's, or a mail client's
    RFC 8058 one-click request) switches the user's email notifications off (the chat
    digest's link: the digest only)."""
    user, scope = links.unsubscribe_target(token)
    if user is None:
        return render(request, "games/unsubscribe.html", {"invalid": True}, status=400)
    # The chat digest's link switches off the digest only; the others every email.
    switch = "notify_chat_digest" if scope == links.CHAT_DIGEST else "notify_email"
    done = False
    if request.method == "POST":
        if getattr(user, switch):
            setattr(user, switch, False)
            user.save(update_fields=[switch])
        done = True
    return render(request, "games/unsubscribe.html", {
        "target": user, "done": done, "digest_only": switch == "notify_chat_digest"})
