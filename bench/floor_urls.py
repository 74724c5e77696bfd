"""The URLs of ``bench/api_cpu.py --floors`` (its process only: it sets ``ROOT_URLCONF`` to this
module): the site's own, after two endpoints that answer a ``POST`` as ``/moves/`` does but do
no work of their own, so that what a move costs beyond the frameworks shows.

- ``/api/v1/games/<id>/floor-drf/``: what DRF runs around ``POST /moves/``'s service, with the
  site's settings: the token's authentication (its statement), the permission, both throttles
  (one Redis round trip where ``REDIS_URL`` is set), the body parsed, a small JSON answer
  rendered (201).
- ``/api/v1/games/<id>/floor-django/``: Django alone: the WSGI handler, the middleware stack
  and the URL resolution, a fixed answer of the same size (no authentication, no database).

Both live under ``/api/v1/`` so that the middleware treats them as it treats the API.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from mascarade_site.urls import handler404, handler500  # noqa: F401 (the site's, as its own)
from mascarade_site.urls import urlpatterns as site_urlpatterns

ANSWER = b'{"seq":1}'


class DRFFloor(APIView):
    permission_classes = [IsAuthenticated]

    def post(self, request, id):
        return Response({"seq": len(request.data)}, status=201)


@csrf_exempt
def django_floor(request, id):
    return HttpResponse(ANSWER, content_type="application/json", status=201)


urlpatterns = [
    path("api/v1/games/<str:id>/floor-drf/", DRFFloor.as_view()),
    path("api/v1/games/<str:id>/floor-django/", django_floor),
    *site_urlpatterns,
]
