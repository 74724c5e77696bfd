"""Every answer carries a Content-Security-Policy that allows scripts from the site itself only
(no inline script, no eval); the pages hold no inline script; the API's documentation page works
with nothing from another host."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = pytest.mark.django_db


def policy(answer) -> dict[str, list[str]]:
    header = answer["Content-Security-Policy"]
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def inline_scripts(html: str) -> list[str]:
    """``<script>`` elements with a body that runs (not ``src=``, not JSON data)."""
    found = []
    for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S):
        if "src=" in attrs or 'type="application/json"' in attrs:
            continue
        if body.strip():
            found.append(body.strip()[:80])
    return found


def test_pages_carry_the_policy_and_no_inline_script():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    admin = UserFactory(is_staff=True, is_superuser=True)
    logged_in = Client()
    logged_in.force_login(users[0])
    staff = Client()
    staff.force_login(admin)
    for client, path in [(Client(), "/"), (Client(), "/games/"), (Client(), "/rules/"),
                         (Client(), "/accounts/login/"), (Client(), "/accounts/signup/"),
                         (logged_in, "/games/new/"), (logged_in, f"/games/{game.pk}/"),
                         (logged_in, "/accounts/profile/"), (staff, "/admin/"),
                         (staff, "/admin/games/game/"), (Client(), "/api/docs/"),
                         (Client(), "/api/v1/games/")]:
        answer = client.get(path)
        assert answer.status_code == 200, path
        rules = policy(answer)
        assert rules["script-src"] == ["'self'"], path
        assert rules["default-src"] == ["'self'"] and rules["object-src"] == ["'none'"]
        assert rules["frame-ancestors"] == ["'none'"]
        if answer["Content-Type"].startswith("text/html"):
            html = answer.content.decode()
            assert inline_scripts(html) == [], path
            assert "//cdn." not in html and "jsdelivr" not in html, path


def test_the_api_documentation_page_loads_its_scripts_from_the_site():
    from django.conf import settings
    from django.contrib.staticfiles import finders

    page = Client().get("/api/docs/").content.decode()
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert scripts and all(src.startswith("/") for src in scripts), scripts
    for src in scripts:
        static = "/" + settings.STATIC_URL.strip("/") + "/"
        if src.startswith(static):  # (collected for production; found by the finders here)
            assert finders.find(src.removeprefix(static).split("?")[0]), src
        else:  # the set-up script, served by the view itself
            answer = Client().get(src)
            assert answer.status_code == 200 and "javascript" in answer["Content-Type"], src


def test_the_api_documentation_page_needs_no_other_host():
    """/api/docs/ works offline: everything it names (scripts, styles, icon, its set-up script)
    is served here, nothing points to another host (Swagger UI's online validator badge is off),
    and the page's own policy allows it without 'unsafe-inline' scripts."""
    client = Client()
    answer = client.get("/api/docs/")
    page = answer.content.decode()
    rules = policy(answer)
    assert rules["script-src"] == ["'self'"] and inline_scripts(page) == []
    links = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert links
    for link in links:
        assert link.startswith("/") and not link.startswith("//"), link
        asset = client.get(link)
        assert asset.status_code == 200, link
        if link.startswith("/api/docs/"):  # the set-up script: no other host named in it
            script = asset.content.decode()
            assert re.findall(r"https?://[^\s\"']+", script) == [], link
            assert '"validatorUrl": null' in script, link


def _headers(answer) -> dict[str, str | None]:
    return {name: answer.get(name) for name in ("Content-Security-Policy",
                                                "Content-Security-Policy-Report-Only")}


def _answers(settings, off: frozenset[str]) -> list[dict]:
    """The policy headers of a few answers (a page, the API, a 404, a view whose response
    django-csp's decorators change or exempt, a view that asks for a nonce: the policy names
    none, so it is not in it), with the tricks in ``off`` switched off."""
    from csp.decorators import csp_exempt, csp_update
    from django.http import HttpResponse
    from django.test import RequestFactory

    from mascarade_site.middleware import CSPMiddleware

    settings.PERF_OFF = off
    out = [_headers(Client().get(path)) for path in ("/", "/api/v1/games/", "/nowhere/",
                                                     "/api/v1/nowhere/")]
    factory = RequestFactory()

    @csp_update({"img-src": "https://example.org"})
    def updated(request):
        return HttpResponse("updated")

    @csp_exempt()
    def exempt(request):
        return HttpResponse("exempt")

    def with_nonce(request):
        return HttpResponse(str(request.csp_nonce))

    for view in (updated, exempt, with_nonce):
        request = factory.get("/somewhere/")
        answer = CSPMiddleware(view)(request)
        out.append(_headers(answer))
    return out


def test_the_policy_built_once_is_the_one_django_csp_builds(settings):
    """``csp_once`` (the header built once per process) writes what django-csp writes for
    each answer; the answers that change the policy (a decorator, a nonce) get theirs; a
    change of the settings is followed; a nonce asked for after the header is an error."""
    from csp.exceptions import CSPNonceError

    once = _answers(settings, frozenset())
    assert once == _answers(settings, frozenset({"csp_once"}))
    assert "img-src 'self' data: https://example.org" in once[4]["Content-Security-Policy"]
    assert once[5]["Content-Security-Policy"] is None
    assert all(headers["Content-Security-Policy-Report-Only"] is None for headers in once)
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"default-src": ["'none'"], "report-uri": "/csp-report/"},
        "EXCLUDE_URL_PREFIXES": ["/api/"]}
    once = _answers(settings, frozenset())
    assert once == _answers(settings, frozenset({"csp_once"}))
    assert once[0]["Content-Security-Policy-Report-Only"] == (
        "default-src 'none'; report-uri /csp-report/")
    assert once[1]["Content-Security-Policy-Report-Only"] is None  # (excluded: /api/)
    assert once[1]["Content-Security-Policy"] is not None

    settings.PERF_OFF = frozenset()
    from django.http import HttpResponse
    from django.test import RequestFactory

    from mascarade_site.middleware import CSPMiddleware

    request = RequestFactory().get("/")
    CSPMiddleware(lambda request: HttpResponse("x"))(request)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)
