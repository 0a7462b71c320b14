"""Webhooks: the URLs an owner registers for the club's events, and how the events go out
to them (docs/reference/webhooks.md).

:mod:`.services` registers, changes and removes webhooks and emits a club's events inside
the writer's transaction; :mod:`.delivery` fans one event out after the commit, in a
background task, to the club's webhooks and the members' rating e-mails; :mod:`.events`
builds an event's body; :mod:`.send` posts it once, signed; :mod:`.addresses` refuses
addresses a webhook may not reach; :mod:`.selectors` reads a club's webhooks and their
deliveries. The tables are the app's own (``players.models.webhooks``). Callers import
from here.
"""

from __future__ import annotations

from players.webhooks.selectors import (
    club_webhooks,
    delivery_get,
    webhook_deliveries,
    webhook_get,
)
from players.webhooks.services import (
    delivery_redeliver,
    events_emit,
    players_changed,
    webhook_create,
    webhook_delete,
    webhook_ping,
    webhook_update,
)

__all__ = [
    "club_webhooks",
    "delivery_get",
    "delivery_redeliver",
    "events_emit",
    "players_changed",
    "webhook_create",
    "webhook_delete",
    "webhook_deliveries",
    "webhook_get",
    "webhook_ping",
    "webhook_update",
]
