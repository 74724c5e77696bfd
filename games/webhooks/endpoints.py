"""Webhooks: a user's endpoints, and the posting of their outbox.

**Endpoints.** A user registers up to :data:`~games.models.WEBHOOK_MAX_ENDPOINTS` HTTPS URLs
(checked as :func:`games.webhooks.http.check` says: scheme, credentials, port, length, and every
address of the host public); each gets a secret, shown once (and again when it is rotated), that
signs every post to it. The user's ``has_webhooks`` flag says whether one of their endpoints is
active: the write path reads it with the seats and looks for endpoints only when it is on
(:mod:`games.webhooks.outbox`). Every change of an endpoint's ``active`` (made, turned on or off,
deleted, turned off by failures) locks the user's row first, then sets the flag again from the
rows, so concurrent changes cannot leave it wrong.

**Deliveries.** The outbox rows (:class:`~games.models.WebhookDelivery`), written in the
transaction of their cause, are posted by :func:`deliver` (the task sent after that commit, with
their ids) or by :func:`deliver_due` (the sweep: those whose task was lost, and the retries).
Rows are taken one at a time, each just before its post: with ``FOR UPDATE SKIP LOCKED``, only
while it is due, its endpoint read then (turned off, deleted, given a new URL or secret a moment
before: the post follows), and its next attempt's time set (the backoff, :data:`BACKOFF`) and
committed *before* the post. A post takes :data:`games.webhooks.http.TIMEOUT` seconds at most, the
host's resolution included, far less than the shortest backoff: two workers never post a row at
once, a second run of a task finds it not due, and a worker that dies during the post leaves it
to be retried at that time. The post itself (:func:`games.webhooks.http.send`) checks the URL again,
resolving the host now and connecting to the very address it checked. Then, in one
transaction: delivered, or failed (retried later) or abandoned (no attempt left, after
:data:`MAX_ATTEMPTS`); the endpoint's failures in a row counted, and since when it fails (a
success resets both). Once it has failed ``WEBHOOK_DISABLE_AFTER`` attempts in a row *and* for
``WEBHOOK_DISABLE_AFTER_HOURS`` (a short outage, with many events waiting, turns nothing off:
their retries come after it), the endpoint is turned off, its open rows abandoned, the owner's
flag set again and the owner told by mail (``outbox.webhook_disabled``).

Errors recorded on rows and endpoints are in their owner's language: only they read them.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.core import events
from games.core.errors import Conflict, Invalid, NotFound
from games.models import WEBHOOK_MAX_ENDPOINTS, WebhookDelivery, WebhookEndpoint
from games.webhooks import http as webhooks
from games.webhooks import outbox as webhook_outbox

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
OPEN = (Status.PENDING, Status.FAILED)

#: Attempts of one delivery before it is abandoned.
MAX_ATTEMPTS = 8
#: The wait after each failed attempt (after the first, the second...); the last attempt has
#: none: it is abandoned.
BACKOFF = (dt.timedelta(minutes=1), dt.timedelta(minutes=5), dt.timedelta(minutes=30),
           dt.timedelta(hours=2), dt.timedelta(hours=6), dt.timedelta(hours=12),
           dt.timedelta(hours=24))
#: The last attempt's row is due again after this long if its worker died during the post (it
#: is then abandoned).
LAST_ATTEMPT_LEASE = dt.timedelta(minutes=15)
#: Deliveries taken at once by one worker.
BATCH = 20
DESCRIPTION_MAX_LENGTH = 200


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def backoff(attempts: int) -> dt.timedelta:
    """The wait after the failed attempt number ``attempts`` (1 for the first)."""
    return BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1]


# --------------------------------------------------------------------------------------------
# Endpoints


def endpoints_of(user) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(user_id=user.pk).order_by("created_at", "pk")


def endpoint_of(user, endpoint_id: int) -> WebhookEndpoint:
    """One of the user's endpoints; :class:`NotFound` for anyone else's."""
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id, user_id=user.pk).first()
    if endpoint is None:
        raise NotFound(_("No such webhook endpoint."))
    return endpoint


def deliveries_of(user, endpoint_id: int) -> QuerySet[WebhookDelivery]:
    """An endpoint's deliveries, the newest first."""
    endpoint = endpoint_of(user, endpoint_id)
    return endpoint.deliveries.order_by("-created_at", "-pk")


def checked_url(url: Any) -> str:
    """The URL as it will be posted to, once checked now (its host resolved): :class:`Invalid`
    (``fields.url``) says what is wrong."""
    try:
        webhooks.check(url)
    except webhooks.Refused as exc:
        raise Invalid({"url": [str(exc)]}, str(exc)) from exc
    return url


def _description(description: Any) -> str:
    description = (description or "").strip()
    if len(description) > DESCRIPTION_MAX_LENGTH:
        message = _("The description is too long (%(most)d characters at most).") % {
            "most": DESCRIPTION_MAX_LENGTH}
        raise Invalid({"description": [message]}, message)
    return description


def _lock_user(user_id: int) -> None:
    User.objects.select_for_update().filter(pk=user_id).first()


def _set_flag(user, user_id: int | None = None) -> bool:
    """The user's ``has_webhooks`` set from their endpoints (their row locked)."""
    user_id = user.pk if user is not None else user_id
    flag = WebhookEndpoint.objects.filter(user_id=user_id, active=True).exists()
    User.objects.filter(pk=user_id).update(has_webhooks=flag)
    if user is not None:
        user.has_webhooks = flag
    return flag


def create(user, url: Any, description: Any = "") -> WebhookEndpoint:
    """A new active endpoint with a new secret (its only showing is the caller's answer)."""
    description = _description(description)
    url = checked_url(url)
    with transaction.atomic():
        _lock_user(user.pk)
        if WebhookEndpoint.objects.filter(user_id=user.pk).count() >= WEBHOOK_MAX_ENDPOINTS:
            message = ngettext(
                "You have %(count)d webhook endpoint already, the most allowed: delete one "
                "first.",
                "You have %(count)d webhook endpoints already, the most allowed: delete one "
                "first.", WEBHOOK_MAX_ENDPOINTS) % {"count": WEBHOOK_MAX_ENDPOINTS}
            raise Invalid({"url": [message]}, message)
        endpoint = WebhookEndpoint.objects.create(user_id=user.pk, url=url,
                                                  description=description,
                                                  secret=new_secret())
        _set_flag(user)
    return endpoint


def update(user, endpoint_id: int, *, url: Any = None, description: Any = None,
           active: bool | None = None) -> WebhookEndpoint:
    """Change an endpoint's URL (checked again), description, or ``active``: turning it on
    again clears its failures; turning it off abandons its deliveries not yet made."""
    if description is not None:
        description = _description(description)
    if url is not None:
        url = checked_url(url)
    elif active:
        current = endpoint_of(user, endpoint_id)
        if not current.active:  # turned on again: its host may resolve elsewhere now
            checked_url(current.url)
    with transaction.atomic():
        _lock_user(user.pk)
        endpoint = WebhookEndpoint.objects.select_for_update().filter(
            pk=endpoint_id, user_id=user.pk).first()
        if endpoint is None:
            raise NotFound(_("No such webhook endpoint."))
        fields = []
        if url is not None:
            endpoint.url = url
            fields.append("url")
        if description is not None:
            endpoint.description = description
            fields.append("description")
        if active is not None and active != endpoint.active:
            endpoint.active = active
            fields.append("active")
            if active:
                endpoint.failures_in_row, endpoint.failing_since = 0, None
                endpoint.disabled_at, endpoint.disabled_reason = None, ""
            else:
                endpoint.disabled_at = timezone.now()
                endpoint.disabled_reason = _("Turned off by its owner.")
                _abandon(endpoint, endpoint.disabled_reason)
            fields += ["failures_in_row", "failing_since", "disabled_at", "disabled_reason"]
        if fields:
            endpoint.save(update_fields=fields)
            _set_flag(user)
    return endpoint


def delete(user, endpoint_id: int) -> None:
    """Delete an endpoint and its deliveries."""
    with transaction.atomic():
        _lock_user(user.pk)
        deleted, _rows = WebhookEndpoint.objects.filter(pk=endpoint_id,
                                                        user_id=user.pk).delete()
        if not deleted:
            raise NotFound(_("No such webhook endpoint."))
        _set_flag(user)


def rotate_secret(user, endpoint_id: int) -> WebhookEndpoint:
    """A new secret for an endpoint (the old one signs nothing any more, retries included)."""
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(
            pk=endpoint_id, user_id=user.pk).first()
        if endpoint is None:
            raise NotFound(_("No such webhook endpoint."))
        endpoint.secret = new_secret()
        endpoint.save(update_fields=["secret"])
    return endpoint


def ping(user, endpoint_id: int) -> WebhookDelivery:
    """Queue a ``ping`` delivery to an active endpoint (posted at once, after the commit)."""
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(
            pk=endpoint_id, user_id=user.pk).first()
        if endpoint is None:
            raise NotFound(_("No such webhook endpoint."))
        if not endpoint.active:
            raise Conflict(_("This webhook endpoint is turned off: turn it on first "
                             "(PATCH with {\"active\": true})."), code="webhook_inactive")
        return webhook_outbox.ping(endpoint)


def _abandon(endpoint: WebhookEndpoint, why: str) -> int:
    return WebhookDelivery.objects.filter(endpoint_id=endpoint.pk, status__in=OPEN).update(
        status=Status.ABANDONED, next_attempt_at=None, last_error=why)


# --------------------------------------------------------------------------------------------
# Deliveries


def _claim(ids: list[str] | None, now: dt.datetime) -> tuple[bool, WebhookDelivery | None]:
    """Take the most overdue due row (of ``ids`` if given), with its endpoint as it is now: its
    attempt counted and its next attempt's time set, committed before it is posted. ``(False,
    None)``: none is due; ``(True, None)``: the one taken was abandoned instead (its endpoint
    turned off, or out of attempts: its last post interrupted)."""
    with transaction.atomic():
        qs = (WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
              .select_related("endpoint", "endpoint__user")
              .filter(status__in=OPEN, next_attempt_at__lte=now))
        if ids is not None:
            qs = qs.filter(pk__in=ids)
        row = qs.order_by("next_attempt_at").first()
        if row is None:
            return False, None
        owner = row.endpoint.user
        why = None
        if not row.endpoint.active or not owner.is_active or owner.banned:
            with translation.override(owner.language or settings.LANGUAGE_CODE):
                why = _("Its endpoint is turned off.")
        elif row.attempts >= MAX_ATTEMPTS:
            with translation.override(owner.language or settings.LANGUAGE_CODE):
                why = _("Its last attempt was interrupted; none is left.")
        if why is not None:
            WebhookDelivery.objects.filter(pk=row.pk).update(
                status=Status.ABANDONED, next_attempt_at=None, last_error=why)
            return True, None
        row.attempts += 1
        row.next_attempt_at = now + (backoff(row.attempts) if row.attempts < MAX_ATTEMPTS
                                     else LAST_ATTEMPT_LEASE)
        WebhookDelivery.objects.filter(pk=row.pk).update(attempts=row.attempts,
                                                         next_attempt_at=row.next_attempt_at)
    return True, row


def _post(row: WebhookDelivery) -> webhooks.Result:
    endpoint = row.endpoint
    body = row.body.encode()
    headers = webhooks.headers(str(row.pk), row.event_type, endpoint.secret, body)
    with translation.override(endpoint.user.language or settings.LANGUAGE_CODE):
        try:
            return webhooks.send(endpoint.url, body, headers)
        except Exception as exc:  # a bug of ours, not the endpoint's: recorded, retried
            logger.exception("webhook delivery %s failed unexpectedly", row.pk)
            return webhooks.Result(False, error=f"{type(exc).__name__}: {exc}"[:500])


def _record(row: WebhookDelivery, result: webhooks.Result, now: dt.datetime) -> str:
    """An attempt's outcome at ``now``, in one transaction: the row's and its endpoint's. Rows
    are locked in the order every change of an endpoint takes them: the owner's, the
    endpoint's, then its deliveries'."""
    endpoint = row.endpoint
    with transaction.atomic():
        if result.ok:
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
                failures_in_row=0, failing_since=None, last_success_at=now)
            WebhookDelivery.objects.filter(pk=row.pk).update(
                status=Status.DELIVERED, next_attempt_at=None, delivered_at=now,
                last_status_code=result.status, last_error="")
            return Status.DELIVERED
        final = row.attempts >= MAX_ATTEMPTS
        status = Status.ABANDONED if final else Status.FAILED
        changes: dict[str, Any] = {"status": status, "last_status_code": result.status,
                                   "last_error": result.error[:2000]}
        if final:
            changes["next_attempt_at"] = None
        _lock_user(endpoint.user_id)
        locked = (WebhookEndpoint.objects.select_for_update(of=("self",))
                  .select_related("user").filter(pk=endpoint.pk).first())
        if locked is None:  # deleted meanwhile (and the row with it)
            return status
        WebhookDelivery.objects.filter(pk=row.pk, status__in=OPEN).update(**changes)
        locked.failures_in_row += 1
        locked.failing_since = locked.failing_since or now
        locked.last_failure_at, locked.last_error = now, result.error[:2000]
        locked.save(update_fields=["failures_in_row", "failing_since", "last_failure_at",
                                   "last_error"])
        if (locked.active and locked.failures_in_row >= settings.WEBHOOK_DISABLE_AFTER
                and now - locked.failing_since
                >= dt.timedelta(hours=settings.WEBHOOK_DISABLE_AFTER_HOURS)):
            _disable(locked, now)
    return status


def _disable(endpoint: WebhookEndpoint, now: dt.datetime) -> None:
    """Too many failures in a row: the endpoint turned off, its open rows abandoned, its owner's
    flag set again and the owner told (their row is locked by the caller)."""
    owner = endpoint.user
    with translation.override(owner.language or settings.LANGUAGE_CODE):
        endpoint.disabled_reason = ngettext(
            "%(count)d failed attempt in a row; the last one: %(error)s",
            "%(count)d failed attempts in a row; the last one: %(error)s",
            endpoint.failures_in_row) % {"count": endpoint.failures_in_row,
                                         "error": endpoint.last_error}
        abandoned = _("Its endpoint was turned off after too many failed attempts.")
    endpoint.active, endpoint.disabled_at = False, now
    endpoint.save(update_fields=["active", "disabled_at", "disabled_reason"])
    _abandon(endpoint, abandoned)
    _set_flag(None, endpoint.user_id)
    events.publish(events.WebhookDisabled(endpoint=endpoint))
    logger.warning("webhook endpoint %s of user %s turned off: %s", endpoint.pk,
                   endpoint.user_id, endpoint.disabled_reason)


def deliver(ids: list[str] | None = None, *, now: dt.datetime | None = None,
            limit: int = BATCH) -> dict[str, str]:
    """Post the due deliveries among ``ids`` (or the ``limit`` most overdue ones), one after the
    other; what became of each one posted. Safe to run twice or late: a row is posted only while
    due, and is not due again before its next attempt's time."""
    return _deliver(ids, now, limit)[0]


def _deliver(ids: list[str] | None, now: dt.datetime | None,
             limit: int) -> tuple[dict[str, str], int]:
    """:func:`deliver`'s outcome, and how many rows it took (posted or abandoned)."""
    if ids is not None:
        ids = [str(pk) for pk in ids]
        limit = max(limit, len(ids))
    outcome: dict[str, str] = {}
    taken = 0
    while taken < limit:
        found, row = _claim(ids, now or timezone.now())
        if not found:
            break
        taken += 1
        if row is not None:
            result = _post(row)
            outcome[str(row.pk)] = _record(row, result, now or timezone.now())
    return outcome, taken


def deliver_due(now: dt.datetime | None = None, budget: float | None = None) -> int:
    """The sweep's part: due deliveries (retries, and those whose task was lost), batch after
    batch for at most ``budget`` seconds (twice the sweep's period). Returns how many were
    delivered."""
    budget = settings.SWEEP_SECONDS * 2 if budget is None else budget
    end = time.monotonic() + budget
    delivered = 0
    while time.monotonic() < end:
        outcome, taken = _deliver(None, now, BATCH)
        delivered += sum(1 for status in outcome.values() if status == Status.DELIVERED)
        if taken < BATCH:
            break
    return delivered


def forget_old(now: dt.datetime | None = None, batch: int = 1000) -> int:
    """Delete the deliveries made or abandoned more than ``WEBHOOK_KEEP_DAYS`` ago, ``batch``
    at a time (none open is touched); how many."""
    before = (now or timezone.now()) - dt.timedelta(days=settings.WEBHOOK_KEEP_DAYS)
    forgotten = 0
    while True:
        ids = list(WebhookDelivery.objects.filter(
            status__in=(Status.DELIVERED, Status.ABANDONED), created_at__lt=before,
        ).values_list("pk", flat=True)[:batch])
        if not ids:
            return forgotten
        forgotten += WebhookDelivery.objects.filter(
            pk__in=ids, status__in=(Status.DELIVERED, Status.ABANDONED)).delete()[0]
