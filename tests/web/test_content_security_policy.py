"""Every answer carries a Content-Security-Policy that allows scripts from the site itself only
(no inline script, no eval); the pages hold no inline script; the API's documentation page works
with nothing from another host."""

from __future__ import annotations

import re

import pytest
from csp.decorators import csp_exempt, csp_update
from csp.exceptions import CSPNonceError
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path as route

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


#: The site's policy (``CONTENT_SECURITY_POLICY``), each directive with its sources in order
#: (django-csp writes the directives in no fixed order: they are compared as a set).
SITE_POLICY = {
    "default-src": ["'self'"], "script-src": ["'self'"], "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"], "font-src": ["'self'", "data:"], "connect-src": ["'self'"],
    "object-src": ["'none'"], "base-uri": ["'self'"], "form-action": ["'self'"],
    "frame-ancestors": ["'none'"]}


def directives(header: str | None) -> list[tuple[str, tuple[str, ...]]] | None:
    """A policy header's directives, sorted: ``"; "`` between directives, one space between
    words, nothing else (a directive written twice stays twice, a stray space makes a word)."""
    if header is None:
        return None
    return sorted((name, tuple(sources)) for name, *sources in (
        part.split(" ") for part in header.split("; ")))


def expected(policy: dict[str, list[str]]) -> list[tuple[str, tuple[str, ...]]]:
    return sorted((name, tuple(sources)) for name, sources in policy.items())


#: The requests that reached the views below, by path (to ask for their nonce afterwards).
requests_seen: dict = {}


@csp_update({"img-src": "https://example.org"})
def updated(request):
    requests_seen[request.path] = request
    return HttpResponse("updated")


@csp_exempt()
def exempt(request):
    return HttpResponse("exempt")


def with_nonce(request):
    requests_seen[request.path] = request
    return HttpResponse(str(request.csp_nonce))


#: The URL configuration of the views above (only while :func:`_answers` asks them).
urlpatterns = [route("updated/", updated), route("exempt/", exempt),
               route("nonce/", with_nonce)]


def _headers(answer) -> dict[str, str | None]:
    return {name: answer.get(name) for name in ("Content-Security-Policy",
                                                "Content-Security-Policy-Report-Only")}


def _answers() -> list[dict]:
    """The policy headers of a few answers, through the site's middleware: a page, the API, a
    page's 404, the API's 404, then views whose response django-csp's decorators change or
    exempt, and a view that asks for a nonce (the policy names none, so it is not in it)."""
    out = [_headers(Client().get(path)) for path in ("/", "/api/v1/games/", "/nowhere/",
                                                     "/api/v1/nowhere/")]
    with override_settings(ROOT_URLCONF=__name__):
        out += [_headers(Client().get(path)) for path in ("/updated/", "/exempt/", "/nonce/")]
    return out


def test_every_kind_of_answer_carries_its_policy():
    """The site's policy on pages, the API and their 404s; a decorator's change or exemption
    is followed; a nonce asked for changes nothing (the policy names none), and a nonce first
    asked for after the header was written is an error."""
    requests_seen.clear()
    answers = _answers()
    site = expected(SITE_POLICY)
    assert [directives(headers["Content-Security-Policy"]) for headers in answers] == [
        site, site, site, site,
        expected({**SITE_POLICY, "img-src": ["'self'", "data:", "https://example.org"]}),
        None, site]
    assert all(headers["Content-Security-Policy-Report-Only"] is None for headers in answers)
    with pytest.raises(CSPNonceError):
        str(requests_seen["/updated/"].csp_nonce)


def test_a_report_only_policy_follows_the_settings(settings):
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"default-src": ["'none'"], "report-uri": "/csp-report/"},
        "EXCLUDE_URL_PREFIXES": ["/api/"]}
    answers = _answers()
    assert answers[0]["Content-Security-Policy-Report-Only"] == (
        "default-src 'none'; report-uri /csp-report/")
    assert answers[1]["Content-Security-Policy-Report-Only"] is None  # (excluded: /api/)
    assert directives(answers[0]["Content-Security-Policy"]) == expected(SITE_POLICY)
    assert directives(answers[1]["Content-Security-Policy"]) == expected(SITE_POLICY)
