"""The devices that asked for Web Push notifications, and each push made to one of them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: The longest push endpoint taken (the services' are a few hundred characters).
ENDPOINT_MAX_LENGTH = 1000
#: The most devices one user may subscribe.
MAX_DEVICES = 10


class PushSubscription(models.Model):
    """One browser on one device (its push service's ``endpoint``, with the keys its payloads
    are encrypted to: RFC 8291's ``p256dh`` and ``auth``, base64url as the browser gives
    them). Deleted when its owner removes it, or when its push service answers 404 or 410."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="push_subscriptions")
    endpoint = models.CharField(max_length=ENDPOINT_MAX_LENGTH)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    # What the profile calls it ("Firefox on Android"), from the browser's User-Agent.
    label = models.CharField(_("device"), max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The last push its service took (null: none yet).
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["user_id", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["endpoint"],
                                               name="push_subscription_unique_endpoint")]
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.label or self.endpoint[:40]}"


class PushDelivery(models.Model):
    """One outbox message (:class:`games.models.Notification`) pushed to one device: written in
    the transaction of the message's cause, once per (device, message), posted by a worker,
    retried with backoff like the mails."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("sending")
        SENT = "sent", _("sent")
        SKIPPED = "skipped", _("skipped")
        FAILED = "failed", _("failed")

    # No index of its own: push_delivery_once (subscription, notification) serves it.
    subscription = models.ForeignKey(PushSubscription, on_delete=models.CASCADE,
                                     related_name="deliveries", db_index=False)
    notification = models.ForeignKey("games.Notification", on_delete=models.CASCADE,
                                     related_name="pushes")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["subscription", "notification"],
                                               name="push_delivery_once")]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="push_delivery_due")]
        verbose_name = _("push delivery")
        verbose_name_plural = _("push deliveries")

    def __str__(self) -> str:
        return f"{self.notification_id} to {self.subscription_id} ({self.status})"
