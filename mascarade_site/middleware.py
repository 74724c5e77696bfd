"""Site-wide middleware: request bodies larger than the limits are refused before anyone reads
them (:class:`BodySizeLimitMiddleware`).

Django refuses a form body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when ``request.POST`` or
``request.body`` is read, and DRF's parsers read ``request.stream`` with no limit at all: an
anonymous 100 MB JSON body was parsed. Here the ``Content-Length`` is checked first: over
``API_MAX_BODY_BYTES`` under ``/api/``, over ``MAIL_WEBHOOK_MAX_BODY_BYTES`` for a provider's
inbound mail under ``/anymail/``, over ``PAGE_MAX_BODY_BYTES`` elsewhere, the answer
is 413 (the contract's JSON error on the API) and the body is never read. A body without a
length (``Transfer-Encoding: chunked``) is not read by Django's WSGI request at all, and the
API's parser reads at most its limit (``games/api/parsers.py``).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _


class BodySizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        api = request.path.startswith("/api/")
        if api:
            limit = settings.API_MAX_BODY_BYTES
        elif request.path.startswith("/anymail/"):
            limit = settings.MAIL_WEBHOOK_MAX_BODY_BYTES
        else:
            limit = settings.PAGE_MAX_BODY_BYTES
        if length > limit:
            if api:
                return JsonResponse({"code": "too_large",
                                     "detail": f"The body is larger than {limit} bytes."},
                                    status=413)
            return HttpResponse(_("This request is too large."), status=413,
                                content_type="text/plain; charset=utf-8")
        return self.get_response(request)
