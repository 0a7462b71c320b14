"""Sending webhook events: the fan-out task, each delivery's tries, the backoff.

``events_fan_out`` (queued once per committed change by ``events_emit``) builds each
event's body once, writes one WebhookDelivery per subscribed webhook of the club and
queues a ``webhook_deliver`` task for each; for a close or a replay it then sends the
members' rating emails (``players/emails/services.py``). A try POSTs the stored
body, signed with the webhook's secret, to the addresses the URL resolves to at that
moment (checked again: DNS rebinding), within one wall-clock deadline, follows no redirect
and keeps at most 1 KB of the answer (``players/webhooks/send.py``). A failed try
(an error, the deadline passed, any status but 2xx) is tried again later through the
queue's ``run_after`` (WEBHOOKS_RETRY_SECONDS), never by sleeping in a worker.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django_tasks import task, task_backends

from players.emails.services import rating_emails_due, rating_emails_send
from players.models import (
    Club,
    Membership,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    Webhook,
    WebhookDelivery,
)
from players.webhooks.events import event_content
from players.webhooks.send import Outcome, post_once

logger = logging.getLogger(__name__)


def body_json(body: Mapping[str, Any]) -> str:
    """The exact text sent (and signed): compact JSON, the same bytes on every try."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def event_body(
    *,
    event: str,
    club: Club,
    data: Mapping[str, Any],
    links: Mapping[str, str],
    rating_list: str | None = None,
    period: str | None = None,
    event_id: str | None = None,
    created: str | None = None,
) -> dict[str, Any]:
    """An event's JSON body; links are made absolute on SITE_URL."""
    return {
        "id": event_id or str(uuid.uuid4()),
        "event": event,
        "created": created or timezone.now().isoformat(),
        "club": club.slug,
        "list": rating_list,
        "period": period,
        "data": dict(data),
        "links": {name: settings.SITE_URL + path for name, path in links.items()},
    }


def queue_deliveries(ids: Iterable[uuid.UUID]) -> None:
    """Queue a first try of each delivery once the caller's transaction commits."""
    pending = [str(pk) for pk in ids]
    if pending:
        transaction.on_commit(lambda: [webhook_deliver.enqueue(pk) for pk in pending])


@task(queue_name="deliveries")
def events_fan_out(params: dict[str, Any]) -> None:
    """The one task a committed close, reopen, replay or player change queued. A club with
    no webhook and a list with no linked member cost two queries."""
    hooks = list(Webhook.objects.filter(club_id=params["club_id"], active=True))
    if hooks:
        _deliveries_create(params, hooks)
    if rating_emails_due(run_id=params["run_id"], events=params["events"]):
        rating_emails_send(run_id=params["run_id"], list_id=params["list_id"])


def _deliveries_create(params: dict[str, Any], hooks: list[Webhook]) -> None:
    club = Club.objects.filter(pk=params["club_id"]).first()
    if club is None:
        return
    rating_list = (
        RatingList.objects.filter(pk=params["list_id"]).first() if params["list_id"] else None
    )
    period = (
        RatingPeriod.objects.filter(pk=params["period_id"]).first() if params["period_id"] else None
    )
    run = RatingRun.objects.filter(pk=params["run_id"]).first() if params["run_id"] else None
    created: list[uuid.UUID] = []
    with transaction.atomic():
        for event, event_id in zip(params["events"], params["event_ids"], strict=True):
            targets = [hook for hook in hooks if event in hook.events]
            if not targets:
                continue
            content = event_content(
                event,
                club=club,
                rating_list=rating_list,
                period=period,
                run=run,
                data=params["data"],
            )
            body = body_json(
                event_body(
                    event=event,
                    club=club,
                    data=content.data,
                    links=content.links,
                    rating_list=rating_list.slug if rating_list is not None else None,
                    period=content.period,
                    event_id=event_id,
                    created=params["created"],
                )
            )
            created += [
                WebhookDelivery.objects.create(
                    webhook=hook, event=event, event_id=event_id, body=body
                ).pk
                for hook in targets
            ]
        queue_deliveries(created)


@task(queue_name="deliveries")
def webhook_deliver(delivery_id: str) -> None:
    """One try of a delivery (the first, or a retry the backoff queued)."""
    delivery_try(delivery_id=delivery_id)


def delivery_try(*, delivery_id: str) -> WebhookDelivery | None:
    """POST the delivery's body once and record how it went; queue the next try after a
    failure, or mark it failed after the last. None if it was not pending (done already,
    or its webhook is gone)."""
    delivery = (
        WebhookDelivery.objects.select_related("webhook", "webhook__club")
        .filter(pk=delivery_id)
        .first()
    )
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return None
    hook = delivery.webhook
    # Compare-and-set on the count of tries: a task handed out twice tries once.
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery.pk, status=WebhookDelivery.Status.PENDING, tries=delivery.tries
    ).update(tries=F("tries") + 1, last_try=now, next_try=None)
    if not claimed:
        return None
    delivery.tries += 1
    if delivery.tries > 1 and not hook.active:
        # A retry after the webhook was switched off (by its owner or by failing).
        _finish(delivery, Outcome(None, None, "The webhook is switched off."))
        return delivery
    outcome = post_once(hook, delivery)
    _finish(delivery, outcome)
    _record_health(hook, ok=outcome.ok)
    return delivery


def _finish(delivery: WebhookDelivery, outcome: Outcome) -> None:
    ok = outcome.ok
    error = outcome.error or ("" if ok else f"The receiver answered {outcome.code}.")
    delays = list(settings.WEBHOOKS_RETRY_SECONDS)
    retry = not ok and delivery.tries <= len(delays) and delivery.webhook.active
    backend = task_backends[webhook_deliver.backend]
    next_try = None
    if retry:
        next_try = timezone.now() + timedelta(seconds=delays[delivery.tries - 1])
    if ok:
        status = WebhookDelivery.Status.SUCCEEDED
    elif retry:
        status = WebhookDelivery.Status.PENDING
    else:
        status = WebhookDelivery.Status.FAILED
    fields: dict[str, Any] = {
        "status": status,
        "response_code": outcome.code,
        "duration_ms": outcome.ms,
        "response_body": outcome.answer,
        "next_try": next_try,
        # Of the last try: a success clears what an earlier try left.
        "last_error": error[:500],
    }
    WebhookDelivery.objects.filter(pk=delivery.pk).update(**fields)
    for name, value in fields.items():
        setattr(delivery, name, value)
    if next_try is not None:
        if backend.supports_defer:
            webhook_deliver.using(run_after=next_try).enqueue(str(delivery.pk))
        else:
            # The immediate backend (no worker) cannot wait: the retry is left to
            # whoever runs a queue; the log says when it was due.
            logger.info("Delivery %s: retry due at %s is not queued", delivery.pk, next_try)


def _record_health(hook: Webhook, *, ok: bool) -> None:
    """A success forgets the webhook's failures; failures for WEBHOOKS_DISABLE_AFTER_DAYS
    in a row switch it off, and its club's owners are told by email."""
    if ok:
        if hook.failing_since is not None:
            Webhook.objects.filter(pk=hook.pk).update(failing_since=None)
        return
    now = timezone.now()
    if hook.failing_since is None:
        Webhook.objects.filter(pk=hook.pk, failing_since__isnull=True).update(failing_since=now)
        return
    days = float(settings.WEBHOOKS_DISABLE_AFTER_DAYS)
    if now - hook.failing_since < timedelta(days=days) or not hook.active:
        return
    reason = (
        f"Every delivery failed for {days:g} days (since {hook.failing_since:%Y-%m-%d %H:%M} UTC)."
    )
    switched = Webhook.objects.filter(pk=hook.pk, active=True).update(
        active=False, disabled_reason=reason
    )
    if switched:
        hook.active = False
        _tell_owners(hook, reason)


def _tell_owners(hook: Webhook, reason: str) -> None:
    owners = list(
        Membership.objects.filter(club_id=hook.club_id, role=Role.OWNER)
        .exclude(user__email="")
        .values_list("user__email", flat=True)
    )
    if not owners:
        return
    send_mail(
        subject=f"Webhook switched off: {hook.url}",
        message=(
            f"The webhook of {hook.club.name} that sends to\n{hook.url}\nis switched off.\n\n"
            f"{reason}\n\nFix the receiver, then switch it on again (PATCH "
            f'{{"active": true}} at {settings.SITE_URL}/api/v1/clubs/{hook.club.slug}/webhooks/'
            f"{hook.pk}/ or in the admin); its deliveries log says what went wrong.\n"
        ),
        from_email=None,
        recipient_list=owners,
        fail_silently=True,
    )
