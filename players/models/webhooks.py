"""Webhooks (a club's URLs that receive its events as signed JSON POSTs), each delivery of
an event to one of them, and the members' choice of rating emails.

The secret stays in the row as given (it signs every body: a hash of it could not), and
is shown once, when the webhook is created. It is Standard Webhooks' form, ``whsec_`` and
the base64 of the key; webhooks registered before that form (migration 0034) keep their
old key, the bytes of their old secret, re-presented in it. A delivery keeps the exact body it sends, so
every try of it carries the same bytes and the same signature.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from players.models.clubs import Club

#: Every event a webhook may subscribe to, in the order the docs list them.
WEBHOOK_EVENTS = (
    "period.closed",
    "period.reopened",
    "period.replayed",
    "list.published",
    "players.changed",
)
#: The event of ``POST .../webhooks/{id}/ping/``: sent whatever the webhook subscribes to.
PING_EVENT = "ping"


class Webhook(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField("URL", max_length=500)
    events = models.JSONField("events", default=list)
    active = models.BooleanField("active", default=True)
    secret = models.CharField("secret", max_length=80, editable=False)
    created = models.DateTimeField("created", auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    #: Since when every try has failed (None: the last one succeeded); after
    #: WEBHOOKS_DISABLE_AFTER_DAYS of that the webhook is switched off.
    failing_since = models.DateTimeField("failing since", null=True, blank=True)
    disabled_reason = models.CharField("switched off because", max_length=200, blank=True)
    #: Also send the old X-Ratings-Signature-256 header (the body's HMAC, no timestamp):
    #: on for webhooks registered before the Standard Webhooks headers, until their owner
    #: switches it off; never on for a new one.
    legacy_signature = models.BooleanField("old signature header too", default=False)

    class Meta:
        ordering = ["club", "id"]
        verbose_name = "webhook"
        verbose_name_plural = "webhooks"

    def __str__(self) -> str:
        return f"{self.club} -> {self.url}"


class WebhookDelivery(models.Model):
    """One event sent to one webhook: every try of it, and how the last one went."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    # The X-Ratings-Delivery header: the same on every try of this delivery (the
    # webhook-id header is the event's id, kept by a redelivery too).
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField("event", max_length=40)
    #: The event's own id (the body's "id"): one event sent to several webhooks, or sent
    #: again (redeliver), keeps it; receivers deduplicate by it.
    event_id = models.UUIDField("event id")
    body = models.TextField("body")
    status = models.CharField(
        "status", max_length=16, choices=Status.choices, default=Status.PENDING
    )
    tries = models.PositiveSmallIntegerField("tries", default=0)
    response_code = models.PositiveSmallIntegerField("response code", null=True, blank=True)
    duration_ms = models.PositiveIntegerField("duration (ms)", null=True, blank=True)
    last_error = models.CharField("last error", max_length=500, blank=True)
    #: The start of the last answer's body, never more than 1 KB.
    response_body = models.CharField("response body", max_length=1024, blank=True)
    created = models.DateTimeField("created", auto_now_add=True)
    last_try = models.DateTimeField("last try", null=True, blank=True)
    next_try = models.DateTimeField("next try", null=True, blank=True)
    redelivery_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="redeliveries"
    )

    class Meta:
        ordering = ["-created"]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(fields=["webhook", "-created"], name="webhookdelivery_hook_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "succeeded", "failed"]),
                name="webhookdelivery_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.webhook_id}: {self.status}"


class RatingEmails(models.TextChoices):
    EVERY_CLOSE = "every", "Every close"
    CHANGED = "changed", "Only when my rating changed"
    NEVER = "never", "Never"


class NotificationPreference(models.Model):
    """A member's choice of rating emails; no row means the default, every close."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    rating_emails = models.CharField(
        "rating emails",
        max_length=16,
        choices=RatingEmails.choices,
        default=RatingEmails.EVERY_CLOSE,
    )
    updated = models.DateTimeField("updated", auto_now=True)

    class Meta:
        verbose_name = "notification preference"
        verbose_name_plural = "notification preferences"
        constraints = [
            models.CheckConstraint(
                condition=Q(rating_emails__in=["every", "changed", "never"]),
                name="notificationpreference_choice_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.rating_emails}"
