"""The audit trail's bookkeeping: through what a change came (admin, API, web page,
import, command) and who made it, for django-simple-history's rows.

Each audited model (players, games, tournaments, clubs, memberships, invitations, rating
lists) has ``history = HistoricalRecords(bases=[AuditFields])``: every save and delete
through the ORM adds a row with the values after the change, who, when and ``via``. The
close's bulk writes (RatingChange, PlayerRating, KFactorChange) are not audited models:
they are the close's own record, kept by the RatingRun.

A request sets ``via`` and the user (ratings_site's middleware); an import sets "import"
and the importing user; a job run by a worker (no request around it) is "job", by the
user who started it; anything else (a management command, the shell) is "command".
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import models
from django.dispatch import receiver
from simple_history.signals import pre_create_historical_record


class Via(models.TextChoices):
    ADMIN = "admin", "Admin"
    API = "api", "API"
    WEB = "web", "Web page"
    IMPORT = "import", "Import"
    COMMAND = "command", "Command"
    JOB = "job", "Job (in a worker)"


_via: contextvars.ContextVar[str] = contextvars.ContextVar("audit_via", default=Via.COMMAND)
_user_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("audit_user_id", default=None)


class AuditFields(models.Model):
    """Added to every history row (simple-history's ``bases``)."""

    via = models.CharField("through", max_length=8, choices=Via.choices, default=Via.COMMAND)

    class Meta:
        abstract = True


@contextmanager
def audit_context(*, via: Via | str, user_id: int | None = None) -> Iterator[None]:
    """History rows written inside come ``via`` this channel, by ``user_id`` when the
    request's user is not known (an import, a command acting for a user)."""
    via_token = _via.set(Via(via))
    user_token = _user_id.set(user_id) if user_id is not None else None
    try:
        yield
    finally:
        _via.reset(via_token)
        if user_token is not None:
            _user_id.reset(user_token)


def audit_via() -> str:
    return _via.get()


def audit_context_set() -> bool:
    """Whether a request, an import or a command told the trail through what changes
    come (the context variable was set in this context)."""
    return _via in contextvars.copy_context()


def audit_user_id() -> int | None:
    return _user_id.get()


@receiver(pre_create_historical_record)
def _stamp(sender: Any, history_instance: Any, **kwargs: Any) -> None:
    # Bookkeeping of the library's own row, not a rule: the channel, and the acting user
    # when no request told the library who it is.
    history_instance.via = _via.get()
    if history_instance.history_user_id is None and _user_id.get() is not None:
        history_instance.history_user_id = _user_id.get()
