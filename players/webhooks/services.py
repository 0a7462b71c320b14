"""Webhooks: an owner registers URLs that receive the club's events (docs/reference/webhooks.md).

The services here check the owner's role and the input, and write; sending is
``players/webhooks/delivery.py``'s, in background tasks. ``events_emit`` is what
the services that close, reopen and replay periods or change players call inside their
transaction: after the commit it queues ONE task, which builds the bodies and fans them
out to the club's webhooks (and the members' rating emails), so the caller's transaction
does no per-webhook or per-member work.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from players.emails import rating_emails_due, rating_emails_wanted
from players.errors import ConflictError, invalid_field
from players.models import (
    PING_EVENT,
    WEBHOOK_EVENTS,
    Club,
    Role,
    Webhook,
    WebhookDelivery,
)
from players.selectors import User, require_role
from players.webhooks.addresses import addresses_checked, url_parts
from players.webhooks.send import secret_new

#: How many players' ids a players.changed event lists.
PLAYERS_LISTED = 100


def _events_cleaned(events: Any) -> list[str]:
    if not isinstance(events, list | tuple) or not events:
        raise invalid_field(
            "events", f"Give a list of one or more of: {', '.join(WEBHOOK_EVENTS)}."
        )
    unknown = [e for e in events if e not in WEBHOOK_EVENTS]
    if unknown:
        raise invalid_field(
            "events", f"{unknown[0]!r} is not an event; use {', '.join(WEBHOOK_EVENTS)}."
        )
    return [e for e in WEBHOOK_EVENTS if e in events]


def _active_cleaned(active: Any) -> bool:
    if not isinstance(active, bool):
        raise invalid_field("active", "true or false.")
    return active


def webhook_create(
    *, club: Club, by: User, url: str, events: Sequence[str], active: bool = True
) -> Webhook:
    """A new webhook of ``club`` (owner). Its ``secret`` is on the returned object: show it
    once. The URL must resolve to public addresses (unless WEBHOOKS_ALLOW_PRIVATE)."""
    require_role(by, club, Role.OWNER)
    url_parts(url)
    cleaned_events = _events_cleaned(events)
    addresses_checked(url)
    with transaction.atomic(durable=True):
        return Webhook.objects.create(
            club=club,
            url=url.strip(),
            events=cleaned_events,
            active=_active_cleaned(active),
            secret=secret_new(),
            created_by_id=by.pk,
        )


def webhook_update(*, webhook: Webhook, by: User, **changes: Any) -> Webhook:
    """Change a webhook's ``url``, ``events`` or ``active`` (owner), or switch its old
    signature header off (``legacy_signature``: off only; a new webhook never sends it).
    Switching it on again forgets its failures (it starts a new three days)."""
    require_role(by, webhook.club, Role.OWNER)
    unknown = set(changes) - {"url", "events", "active", "legacy_signature"}
    if unknown:
        raise invalid_field(sorted(unknown)[0], "This field cannot be changed.")
    if "url" in changes:
        addresses_checked(changes["url"])
        webhook.url = changes["url"].strip()
    if "events" in changes:
        webhook.events = _events_cleaned(changes["events"])
    if "active" in changes:
        active = _active_cleaned(changes["active"])
        if active and not webhook.active:
            webhook.failing_since = None
            webhook.disabled_reason = ""
        webhook.active = active
    if "legacy_signature" in changes:
        wanted = changes["legacy_signature"]
        if not isinstance(wanted, bool) or wanted not in (False, webhook.legacy_signature):
            raise invalid_field(
                "legacy_signature",
                "Only false: the old header (no timestamp, so replayable) can be switched "
                "off, not on.",
            )
        webhook.legacy_signature = changes["legacy_signature"]
    with transaction.atomic(durable=True):
        webhook.save()
    return webhook


def webhook_delete(*, webhook: Webhook, by: User) -> None:
    """Delete a webhook and its delivery log (owner)."""
    require_role(by, webhook.club, Role.OWNER)
    with transaction.atomic(durable=True):
        webhook.delete()


def webhook_ping(*, webhook: Webhook, by: User) -> WebhookDelivery:
    """Send the ``ping`` event to the webhook now (owner), whatever it subscribes to and
    even when it is switched off: a way to test a receiver."""
    from players.webhooks.delivery import event_body, queue_deliveries

    require_role(by, webhook.club, Role.OWNER)
    body = event_body(
        event=PING_EVENT,
        club=webhook.club,
        data={"webhook": webhook.pk, "events": webhook.events, "active": webhook.active},
        links={"webhook": f"/api/v1/clubs/{webhook.club.slug}/webhooks/{webhook.pk}/"},
    )
    with transaction.atomic(durable=True):
        delivery = WebhookDelivery.objects.create(
            webhook=webhook, event=PING_EVENT, event_id=body["id"], body=_json(body)
        )
        queue_deliveries([delivery.pk])
    return delivery


def delivery_redeliver(*, delivery: WebhookDelivery, by: User) -> WebhookDelivery:
    """Send a delivery's event again (owner): a new delivery with the same body (the
    event's ``id`` too, so a receiver that kept it sees a repeat) and a new delivery id."""
    require_role(by, delivery.webhook.club, Role.OWNER)
    from players.webhooks.delivery import queue_deliveries

    if delivery.status == WebhookDelivery.Status.PENDING:
        raise ConflictError(
            "This delivery is still being tried; wait until it succeeds or fails.",
            fields={"status": [delivery.status]},
        )
    with transaction.atomic(durable=True):
        again = WebhookDelivery.objects.create(
            webhook=delivery.webhook,
            event=delivery.event,
            event_id=delivery.event_id,
            body=delivery.body,
            redelivery_of=delivery,
        )
        queue_deliveries([again.pk])
    return again


def _json(body: Mapping[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def events_emit(
    *,
    club_id: int,
    events: Iterable[str],
    list_id: int | None = None,
    period_id: int | None = None,
    run_id: int | None = None,
    data: Mapping[str, Any] | None = None,
) -> None:
    """After the caller's transaction commits, queue one task that sends ``events`` to the
    club's webhooks and, for a close or a replay (``run_id``), the members' rating emails.
    Nothing happens if the transaction rolls back, nor when the club has no switched-on
    webhook for the events and the list no member to email. ``data``: plain JSON values
    the event bodies carry besides what the task reads itself (ids, not objects)."""
    from players.webhooks.delivery import events_fan_out

    names = list(events)
    emails = (
        list_id is not None
        and rating_emails_due(run_id=run_id, events=names)
        and rating_emails_wanted(list_id=list_id)
    )
    if not emails and not _subscribed(club_id, names):
        # No rating emails to send and no switched-on webhook of the club wants these
        # events: no task at all (every player edit, and the close of every club that has
        # neither, would otherwise queue one for nothing: a thousand on the first of the
        # month, each a task for the deliveries lane's worker).
        return
    params: dict[str, Any] = {
        "club_id": club_id,
        "events": names,
        "list_id": list_id,
        "period_id": period_id,
        "run_id": run_id,
        "data": dict(data or {}),
        "created": timezone.now().isoformat(),
        "event_ids": [str(uuid.uuid4()) for _ in names],
    }
    transaction.on_commit(lambda: events_fan_out.enqueue(params))


def _subscribed(club_id: int, names: Sequence[str]) -> bool:
    """Whether a switched-on webhook of the club takes one of ``names``: one small indexed
    read in the caller's transaction."""
    wanted = set(names)
    subscribed = Webhook.objects.filter(club_id=club_id, active=True).values_list(
        "events", flat=True
    )
    return any(wanted.intersection(events) for events in subscribed)


def players_changed(*, club_id: int, action: str, players: Iterable[int], **data: Any) -> None:
    """The ``players.changed`` event, after the commit: ``action`` (created, updated,
    deleted, merged) and the players' ids, the first ``PLAYERS_LISTED`` of them (an
    import's thousands are a count and a link)."""
    ids = list(players)
    listed = ids[:PLAYERS_LISTED]
    events_emit(
        club_id=club_id,
        events=("players.changed",),
        data={
            "action": action,
            "players": listed,
            "count": len(ids),
            "truncated": len(ids) > len(listed),
            **data,
        },
    )
