"""The pages' one-time messages with the storages made on first use
(``mascarade_site.messages.LazyFallbackStorage``, perf's ``lazy_messages``) as with Django's own
``FallbackStorage``: a message shown once on the next page, a long one kept in the session when
the cookie cannot hold it; a request that uses none makes no storage and sets no cookie."""

from __future__ import annotations

import pytest
from django.contrib import messages
from django.http import HttpResponse
from django.test import Client
from django.urls import path

from tests.api.factories import UserFactory

pytestmark = pytest.mark.django_db


def add(request, size):
    messages.success(request, "m" * size)
    messages.info(request, "second")
    return HttpResponse("added")


def show(request):
    return HttpResponse("|".join(str(message) for message in messages.get_messages(request)))


def nothing(request):
    return HttpResponse("nothing")


urlpatterns = [path("add/<int:size>/", add), path("show/", show), path("nothing/", nothing)]


def _story(settings, off: frozenset[str]) -> list:
    settings.PERF_OFF = off
    settings.ROOT_URLCONF = __name__
    client = Client()
    client.force_login(UserFactory())
    seen = []
    for size in (10, 5000):  # (5,000 bytes: more than the cookie holds; kept in the session)
        answer = client.get("/nothing/")
        seen.append(("nothing", sorted(answer.cookies)))
        client.get(f"/add/{size}/")
        seen.append(("cookie", len(client.cookies["messages"].value) > 0))
        seen.append(("shown", client.get("/show/").content.decode()))
        seen.append(("again", client.get("/show/").content.decode()))
    return seen


def test_messages_are_stored_and_shown_as_by_django_s_storage(settings):
    lazy = _story(settings, frozenset())
    assert lazy == _story(settings, frozenset({"lazy_messages"}))
    assert lazy[0] == ("nothing", [])
    assert lazy[2] == ("shown", "m" * 10 + "|second") and lazy[3] == ("again", "")
    assert lazy[6] == ("shown", "m" * 5000 + "|second") and lazy[7] == ("again", "")


def test_a_request_without_a_message_makes_no_storage(settings, rf):
    from django.contrib.messages.storage import default_storage
    from django.contrib.sessions.middleware import SessionMiddleware

    settings.PERF_OFF = frozenset()
    request = rf.get("/")
    SessionMiddleware(lambda request: None).process_request(request)
    storage = default_storage(request)
    assert "storages" not in storage.__dict__
    assert storage.update(HttpResponse()) is None
    assert "storages" not in storage.__dict__
    settings.PERF_OFF = frozenset({"lazy_messages"})
    assert "storages" in default_storage(request).__dict__
