"""The HTML mails read well on a phone: a viewport, one column no wider than 600 px, body text of
16 px, buttons a thumb can hit (44 px), the table and the moves wrapping instead of widening
the mail, dark text on a light background; the plain text beside it stays."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from games.models import Notification
from games.notify import messages
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

pytestmark = pytest.mark.django_db


def style_of(html: str, tag: str) -> str:
    found = re.search(rf"<{tag}\b[^>]*style=\"([^\"]*)\"", html)
    assert found, tag
    return found.group(1)


def px(style: str, prop: str) -> int:
    found = re.search(rf"(?:^|;)\s*{prop}:\s*(\d+)px", style)
    assert found, (prop, style)
    return int(found.group(1))


def check_layout(html: str) -> None:
    assert re.search(r'<meta name="viewport" content="width=device-width, initial-scale=1', html)
    body = style_of(html, "body")
    assert px(body, "max-width") <= 600 and px(body, "font-size") >= 16
    assert "color: #1d1b26" in body and "background: #ffffff" in body
    # No fixed width over 600 px anywhere (a table or an image would widen the mail).
    for width in re.findall(r"(?<![-\w])width(?::\s*|=\")(\d+)", html):
        assert int(width) <= 600, width
    for size in re.findall(r"font-size:\s*([\d.]+)(px|rem|em)", html):
        assert size[1] == "px" and float(size[0]) >= 14, size
    buttons = re.findall(r'<a [^>]*style="([^"]*display: inline-block[^"]*)"', html)
    assert buttons
    for button in buttons:
        assert px(button, "min-height") >= 44, button


def test_a_decision_mail_reads_well_on_a_phone():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    note = Notification.objects.filter(game=game, kind="your_turn").first()
    message = messages.build_email(note)
    assert message.body.strip()  # the plain-text alternative
    html, kind = message.alternatives[0]
    assert kind == "text/html"
    check_layout(html)
    pre = style_of(html, "pre")
    assert "white-space: pre-wrap" in pre and "overflow-wrap: anywhere" in pre
    assert "overflow-wrap: anywhere" in style_of(html, "ol")


def test_the_chat_digest_reads_well_on_a_phone():
    user = UserFactory()
    html = render_to_string("email/chat_digest.html", {
        "user": user, "subject": "New messages", "unsubscribe_url": "https://x.example/u/",
        "sections": [{"title": "Game 1", "count": 1, "more": 0, "url": "https://x.example/g/",
                      "lines": [{"who": "ada", "when": "today", "text": "x" * 300}]}]})
    check_layout(html)
    assert "overflow-wrap: anywhere" in style_of(html, "ul")
