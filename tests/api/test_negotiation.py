"""Content negotiation: JSON whatever the client accepts (never 406), and DRF's own choice
wherever DRF has one."""

from __future__ import annotations

import pytest
from django.http import Http404
from drf_orjson_renderer.renderers import ORJSONRenderer
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from games.api.negotiation import JSONFallbackNegotiation

ACCEPTS = [None, "", "*/*", "application/json", "application/json; indent=4", "text/html",
           "application/*", "image/png", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"]


RENDERERS = [(ORJSONRenderer,), (ORJSONRenderer, BrowsableAPIRenderer),
             (BrowsableAPIRenderer, ORJSONRenderer)]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api", "?page=2"])
@pytest.mark.parametrize("classes", RENDERERS)
def test_drfs_choice_where_drf_has_one_else_the_first(accept, query, classes):
    """The renderer DRF chooses among those offered; where DRF has none (406), the first."""
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get("/api/v1/games/" + query, **headers))
    renderers = [cls() for cls in classes]
    try:
        ours = JSONFallbackNegotiation().select_renderer(request, renderers)
    except Http404:  # (a format that no renderer offered has: DRF's 404)
        with pytest.raises(Http404):
            DefaultContentNegotiation().select_renderer(request, renderers)
        return
    try:
        theirs = DefaultContentNegotiation().select_renderer(request, renderers)
    except NotAcceptable:
        theirs = (renderers[0], renderers[0].media_type)
    assert ours[0] is theirs[0] and ours[1] == theirs[1]


@pytest.mark.django_db
@pytest.mark.parametrize("accept", ACCEPTS)
def test_every_accept_gets_json(accept):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    answer = APIClient().get("/api/v1/games/", **headers)
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/json")
    assert "results" in answer.json()
