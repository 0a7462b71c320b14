"""Members' rating e-mails: what each member chose to receive after a close or replay,
and the one-click unsubscribe (:mod:`.services`). The webhooks' fan-out task sends them
(``players.webhooks.delivery``). Callers import from here.
"""

from __future__ import annotations

from players.emails.services import (
    rating_emails_due,
    rating_emails_of,
    rating_emails_send,
    rating_emails_set,
    rating_emails_wanted,
    unsubscribe,
    unsubscribe_user,
)

__all__ = [
    "rating_emails_due",
    "rating_emails_of",
    "rating_emails_send",
    "rating_emails_set",
    "rating_emails_wanted",
    "unsubscribe",
    "unsubscribe_user",
]
