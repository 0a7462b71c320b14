"""What closed periods published, each named once: a period's current rows (what its
close or replay wrote; a replay's retired rows left out), a published row (a current row
with a rating after it: the player is on the list), a list's closed periods (the newest is
the list in force) and the K changes in force.

Every reader that means one of these asks for it here, so that "published" cannot come
to mean two things. Each returns a queryset for the caller to narrow, join and order:
no query is run until the caller reads it.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from players.models import KFactorChange, RatingChange, RatingPeriod


def current_rows(*conditions: Q, **lookups: Any) -> QuerySet[RatingChange]:
    """The rating changes in force (``current``) matching ``conditions`` and ``lookups``:
    one per player and closed period, rated or not."""
    return RatingChange.objects.filter(*conditions, current=True, **lookups)


def published_rows(*conditions: Q, **lookups: Any) -> QuerySet[RatingChange]:
    """The published rows matching ``conditions`` and ``lookups``: the current rows of
    players the period left with a rating (the rows a published list shows)."""
    return current_rows(*conditions, rating_after__isnull=False, **lookups)


def closed_periods(*, rating_list: Any) -> QuerySet[RatingPeriod]:
    """The closed periods of ``rating_list`` (a list, its id or an ``OuterRef``), newest
    first: the first is the list in force, the one published last."""
    return RatingPeriod.objects.filter(
        rating_list=rating_list, status=RatingPeriod.Status.CLOSED
    ).order_by("-month")


def k_changes_in_force(**lookups: Any) -> QuerySet[KFactorChange]:
    """The K changes matching ``lookups`` that a replay has not retired."""
    return KFactorChange.objects.filter(current=True, **lookups)
