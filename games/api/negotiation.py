"""Content negotiation that never answers 406: the API speaks JSON whatever the client accepts."""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

#: ``Accept`` values that DRF's negotiation answers with the first renderer and its own media
#: type: these skip the parsing of the header (every request of a typical client).
_PLAIN_ACCEPTS = frozenset({"", "*/*", "application/json"})


class JSONFallbackNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if (not format_suffix and request.META.get("HTTP_ACCEPT", "") in _PLAIN_ACCEPTS
                and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
                and renderers[0].media_type == "application/json"):
            return renderers[0], renderers[0].media_type
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
