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
