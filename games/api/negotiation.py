"""Content negotiation that never answers 406: the API speaks JSON whatever the client accepts.

DRF parses the ``Accept`` header and matches it against the renderers on every request; its
answer depends on nothing else than that header, the format asked for (``?format=`` or a
suffix) and the renderers offered, and clients send the same few headers again and again. So the
choice is kept, by those three, for the next request that brings them (at most
:data:`CHOICES_KEPT` of them: a client sending ever new headers finds DRF's way past them).
``PERF_OFF=conneg_once``: DRF's way every time (``bench/api_instr.py`` compares).
"""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

from mascarade_site import perf

#: The most choices kept.
CHOICES_KEPT = 256
#: (format, Accept header, the renderers' classes) -> (the chosen one's place, media type)
_chosen: dict[tuple, tuple[int, str]] = {}


class JSONFallbackNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if not perf.on("conneg_once"):
            return self._select(request, renderers, format_suffix)
        key = (format_suffix or request.query_params.get(self.settings.URL_FORMAT_OVERRIDE),
               request.META.get("HTTP_ACCEPT", "*/*"), tuple(map(type, renderers)))
        found = _chosen.get(key)
        if found is None:
            renderer, media_type = self._select(request, renderers, format_suffix)
            found = (next(n for n, offered in enumerate(renderers) if offered is renderer),
                     media_type)
            if len(_chosen) < CHOICES_KEPT:
                _chosen[key] = found
        return renderers[found[0]], found[1]

    def _select(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
