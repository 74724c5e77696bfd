"""Content negotiation that never answers 406: the API speaks JSON whatever the client accepts
(DRF's choice of a renderer; where no renderer matches the ``Accept`` header, the first, JSON)."""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class JSONFallbackNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
