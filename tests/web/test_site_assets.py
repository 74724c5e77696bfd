"""The site's own small assets: the favicon (an SVG drawn for the site, linked from every page,
and /favicon.ico for the browsers that ask for it anyway)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def body(answer) -> bytes:
    return b"".join(answer.streaming_content) if answer.streaming else answer.content


def test_every_page_links_the_favicon_and_it_is_served():
    client = Client()
    page = client.get("/").content.decode()
    icons = re.findall(r'<link rel="icon"[^>]*href="([^"]+)"', page)
    assert icons and icons[0].endswith("favicon.svg"), icons
    answer = client.get(icons[0])
    assert answer.status_code == 200 and answer["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in body(answer)


def test_favicon_ico_answers_with_the_icon():
    answer = Client().get("/favicon.ico", follow=True)
    assert answer.status_code == 200 and answer["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in body(answer)
