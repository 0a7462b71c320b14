"""A club's webhooks and their deliveries, as the owners' API reads them."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from players.models import Club, Webhook, WebhookDelivery


def club_webhooks(*, club: Club) -> QuerySet[Webhook]:
    return Webhook.objects.filter(club=club)


def webhook_get(*, club: Club, webhook_id: int) -> Webhook | None:
    """The club's webhook ``webhook_id`` with its club and author (None: not the club's)."""
    return (
        Webhook.objects.select_related("club", "created_by")
        .filter(club=club, pk=webhook_id)
        .first()
    )


def webhook_deliveries(*, webhook: Webhook) -> QuerySet[WebhookDelivery]:
    return WebhookDelivery.objects.filter(webhook=webhook)


def delivery_get(*, webhook: Webhook, delivery_id: Any) -> WebhookDelivery | None:
    """The webhook's delivery ``delivery_id`` with its webhook and club (None: not one of
    the webhook's)."""
    return (
        WebhookDelivery.objects.select_related("webhook", "webhook__club")
        .filter(webhook=webhook, pk=delivery_id)
        .first()
    )
