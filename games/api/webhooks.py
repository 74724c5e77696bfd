"""Webhooks in API v1: the viewer's endpoints under ``/me/webhooks/`` (list, register, read,
change, delete, a new secret, a ping) and each one's recent deliveries. The work is
:mod:`games.webhooks.endpoints`'; what is posted and how to check its signature: docs/api-guide.md,
"Webhooks", and docs/api/README.md."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.chat import StrictCharField
from games.api.pagination import Pagination
from games.api.serializers import StrictBooleanField
from games.api.throttling import AnonThrottle, UserThrottle, WebhookThrottle
from games.api.views import error, paginated, validated
from games.core import selectors
from games.models import (
    WEBHOOK_MAX_ENDPOINTS,
    WEBHOOK_URL_MAX_LENGTH,
    WebhookDelivery,
    WebhookEndpoint,
)
from games.webhooks import endpoints as webhooks

WEBHOOK_ID = OpenApiParameter("id", {"type": "integer", "minimum": 0}, OpenApiParameter.PATH)

URL_HELP = (f"An https:// URL (at most {WEBHOOK_URL_MAX_LENGTH} characters, no user name or "
            f"password, port 443 or 1024 and up) whose host resolves to public addresses only.")


class WebhookIn(serializers.Serializer):
    url = StrictCharField(max_length=WEBHOOK_URL_MAX_LENGTH, trim_whitespace=False,
                          help_text=URL_HELP)
    description = StrictCharField(required=False, allow_blank=True,
                                  max_length=webhooks.DESCRIPTION_MAX_LENGTH, default="",
                                  help_text="For you: what the endpoint is.")


class WebhookPatchIn(serializers.Serializer):
    url = StrictCharField(required=False, max_length=WEBHOOK_URL_MAX_LENGTH,
                          trim_whitespace=False, help_text=URL_HELP)
    description = StrictCharField(required=False, allow_blank=True,
                                  max_length=webhooks.DESCRIPTION_MAX_LENGTH)
    active = StrictBooleanField(
        required=False, help_text="`true` turns it on again (its failures forgotten, its URL "
                                  "checked again); `false` turns it off (what was waiting to "
                                  "be posted is dropped).")


class WebhookOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    active = serializers.BooleanField()
    failures_in_row = serializers.IntegerField(
        help_text="Failed attempts in a row; the endpoint is turned off (and you are told by "
                  "mail) when they reach the site's limit (10 by default) and it has failed "
                  "for the site's time (24 hours by default).")
    failing_since = serializers.DateTimeField(
        allow_null=True, help_text="The first of those failures in a row (`null`: none).")
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    last_success_at = serializers.DateTimeField(allow_null=True)
    last_failure_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)


class WebhookWithSecretOut(WebhookOut):
    secret = serializers.CharField(
        help_text="Signs every post (`Mascarade-Signature`): shown only in this answer; keep "
                  "it. A new one: `POST .../rotate-secret/`.")


class WebhookDeliveryOut(serializers.Serializer):
    id = serializers.UUIDField(help_text="The body's `id` and the `Mascarade-Delivery` header.")
    type = serializers.ChoiceField(choices=WebhookDelivery.Type.choices)
    status = serializers.ChoiceField(
        choices=WebhookDelivery.Status.choices,
        help_text="`pending` (not tried yet), `delivered`, `failed` (tried again at "
                  "`next_attempt_at`), `abandoned` (no attempt left, or the endpoint was "
                  "turned off)")
    attempts = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)


def endpoint_out(endpoint: WebhookEndpoint, *, secret: bool = False) -> dict:
    out = {
        "id": endpoint.pk, "url": endpoint.url, "description": endpoint.description,
        "active": endpoint.active, "failures_in_row": endpoint.failures_in_row,
        "failing_since": selectors.iso(endpoint.failing_since),
        "disabled_at": selectors.iso(endpoint.disabled_at),
        "disabled_reason": endpoint.disabled_reason,
        "created_at": selectors.iso(endpoint.created_at),
        "last_success_at": selectors.iso(endpoint.last_success_at),
        "last_failure_at": selectors.iso(endpoint.last_failure_at),
        "last_error": endpoint.last_error,
    }
    if secret:
        out["secret"] = endpoint.secret
    return out


def delivery_out(row: WebhookDelivery) -> dict:
    return {
        "id": str(row.pk), "type": row.event_type, "status": row.status,
        "attempts": row.attempts, "created_at": selectors.iso(row.created_at),
        "next_attempt_at": selectors.iso(row.next_attempt_at),
        "delivered_at": selectors.iso(row.delivered_at),
        "last_status_code": row.last_status_code, "last_error": row.last_error,
    }


NOT_FOUND = error("`not_found`: no such endpoint of yours")


class WebhooksView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle, WebhookThrottle]

    @extend_schema(operation_id="me_webhooks_list",
                   responses={200: paginated("PaginatedWebhookList", WebhookOut),
                              401: error("`not_authenticated`")},
                   summary="Your webhook endpoints (never their secrets)")
    def get(self, request):
        paginator = Pagination()
        page = paginator.paginate_queryset(webhooks.endpoints_of(request.user), request,
                                           view=self)
        return paginator.get_paginated_response([endpoint_out(e) for e in page])

    @extend_schema(
        operation_id="me_webhooks_create", request=WebhookIn,
        responses={201: WebhookWithSecretOut,
                   400: error(f"`invalid` (`fields.url`): not https, credentials, a port "
                              f"below 1024 but 443, too long, a host that does not resolve or "
                              f"resolves to a private, loopback, link-local or reserved "
                              f"address; or {WEBHOOK_MAX_ENDPOINTS} endpoints already"),
                   401: error("`not_authenticated`")},
        summary="Register an endpoint: its secret is in this answer only")
    def post(self, request):
        data = validated(WebhookIn, request.data)
        endpoint = webhooks.create(request.user, data["url"], data.get("description", ""))
        return Response(endpoint_out(endpoint, secret=True), status=201)


class WebhookView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle, WebhookThrottle]

    @extend_schema(operation_id="me_webhooks_retrieve", parameters=[WEBHOOK_ID],
                   responses={200: WebhookOut, 404: NOT_FOUND},
                   summary="One of your webhook endpoints")
    def get(self, request, id):
        return Response(endpoint_out(webhooks.endpoint_of(request.user, id)))

    @extend_schema(
        operation_id="me_webhooks_update", parameters=[WEBHOOK_ID], request=WebhookPatchIn,
        responses={200: WebhookOut,
                   400: error("`invalid`: a URL refused (as for registering one), also the "
                              "current one when turning it on again"),
                   404: NOT_FOUND},
        summary="Change an endpoint's URL or description, or turn it on (`{\"active\": "
                "true}`) or off")
    def patch(self, request, id):
        data = validated(WebhookPatchIn, request.data)
        endpoint = webhooks.update(request.user, id, url=data.get("url"),
                                   description=data.get("description"),
                                   active=data.get("active"))
        return Response(endpoint_out(endpoint))

    @extend_schema(operation_id="me_webhooks_delete", parameters=[WEBHOOK_ID], request=None,
                   responses={204: OpenApiResponse(description="deleted, with its deliveries"),
                              404: NOT_FOUND},
                   summary="Delete one of your webhook endpoints")
    def delete(self, request, id):
        webhooks.delete(request.user, id)
        return Response(status=204)


class WebhookRotateSecretView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle, WebhookThrottle]

    @extend_schema(operation_id="me_webhooks_rotate_secret", parameters=[WEBHOOK_ID],
                   request=None, responses={200: WebhookWithSecretOut, 404: NOT_FOUND},
                   summary="A new secret for an endpoint (the old one signs nothing more): "
                           "in this answer only")
    def post(self, request, id):
        return Response(endpoint_out(webhooks.rotate_secret(request.user, id), secret=True))


class WebhookPingView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [UserThrottle, AnonThrottle, WebhookThrottle]

    @extend_schema(operation_id="me_webhooks_ping", parameters=[WEBHOOK_ID], request=None,
                   responses={202: WebhookDeliveryOut, 404: NOT_FOUND,
                              409: error("`webhook_inactive`: the endpoint is turned off")},
                   summary="Post a `ping` event to an endpoint now (see its deliveries for "
                           "the outcome)")
    def post(self, request, id):
        return Response(delivery_out(webhooks.ping(request.user, id)), status=202)


class WebhookDeliveriesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_webhooks_deliveries", parameters=[WEBHOOK_ID],
                   responses={200: paginated("PaginatedWebhookDeliveryList",
                                             WebhookDeliveryOut),
                              404: NOT_FOUND},
                   summary="An endpoint's deliveries, the newest first")
    def get(self, request, id):
        rows = webhooks.deliveries_of(request.user, id)
        paginator = Pagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response([delivery_out(row) for row in page])
