"""Web Push and the installable site, on the pages' side: the service worker (``/sw.js``, scope
``/``: it shows the pushes and opens the table when one is tapped, and caches nothing), the web
app manifest (``/manifest.webmanifest``), a device's subscription (posted by
``static/js/push.js`` from the profile or the table's offer), and the table's offer answered
"not now". The devices' list, their removal and the kinds pushed are the profile's
(:mod:`games.web.profile`)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.core.errors import ApplicationError
from games.webpush import service, subscriptions

#: The site's colours (static/css/site.css): the manifest's and the phone's bars.
THEME_COLOR = "#6b1f5c"
BACKGROUND_COLOR = "#fbf8f3"


@require_GET
def service_worker(request):
    """The service worker, at the site's root so that its scope is the whole site. Never
    cached by the browser's HTTP cache (a new version is taken at the next visit)."""
    body = render_to_string("push/sw.js", {
        "icon": static("icons/icon-192.png"), "badge": static("icons/badge-96.png")})
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def manifest(request):
    """The web app manifest: "add to home screen" gives the site a window of its own."""
    body = {
        "name": _("Mascarade Online"), "short_name": _("Mascarade"),
        "description": _("Mascarade and its cousins, played slowly, on the web and by mail."),
        "lang": request.LANGUAGE_CODE, "start_url": "/", "scope": "/", "id": "/",
        "display": "standalone", "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png",
             "purpose": "any"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "any"},
            {"src": static("icons/maskable-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "maskable"},
            {"src": static("favicon.svg"), "sizes": "any", "type": "image/svg+xml",
             "purpose": "any"},
        ],
    }
    response = HttpResponse(json.dumps(body, ensure_ascii=False),
                            content_type="application/manifest+json; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _back(request, default: str = "profile"):
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()},
                                                  require_https=request.is_secure()):
        return redirect(target)
    return redirect(default)


@login_required
@require_POST
def subscribe(request):
    """This device's push subscription (``subscription``: the JSON of the browser's
    ``PushSubscription``), for the logged-in user: 201 ``{"detail"}``, or 400 ``{"code",
    "detail"}`` saying what is wrong (nothing changed)."""
    raw = request.POST.get("subscription", "")
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        data = None
    try:
        subscriptions.subscribe(request.user, data, request.headers.get("User-Agent", ""))
    except ApplicationError as exc:
        if _wants_json(request):
            return JsonResponse({"code": exc.code, "detail": exc.text()}, status=400)
        messages.error(request, exc.text())
        return _back(request)
    done = _("Notifications are on for this device.")
    if _wants_json(request):
        return JsonResponse({"detail": done}, status=201)
    messages.success(request, done)
    return _back(request)


@login_required
@require_POST
def not_now(request):
    """The table's offer answered "not now": not offered again (the profile still offers it)."""
    subscriptions.answer_offer(request.user)
    if _wants_json(request):
        return JsonResponse({"detail": _("You can turn notifications on from your profile.")})
    return _back(request, "home")


def offer(request, is_member: bool) -> dict | None:
    """The table's one-tap offer for its player (``None``: not offered: push is off, or they
    answered it already)."""
    user = request.user
    if not (service.enabled() and is_member and user.is_authenticated
            and not user.push_offer_answered):
        return None
    return {"key": service.public_key(), "next": request.get_full_path()}
