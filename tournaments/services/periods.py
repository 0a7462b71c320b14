"""Opening and reopening periods."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone

from players.errors import ConflictError, invalid_field
from players.models import (
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    date_out_of_bounds,
    latest_date,
    month_label,
    month_start,
)
from players.selectors import User, require_role
from players.services import club_published_changed
from players.webhooks import events_emit


def period_open(*, rating_list: RatingList, month: datetime.date, by: User) -> RatingPeriod:
    """Open an empty period (arbiter or above); a period also opens by itself when its
    first game is recorded."""
    require_role(by, rating_list.club, Role.ARBITER)
    month = month_start(month)
    if why := date_out_of_bounds(min(month, month_start(latest_date()))):
        raise invalid_field("period", why)
    if month > latest_date():
        raise invalid_field("period", f"{month_label(month)} has not begun.")
    with transaction.atomic(durable=True):
        RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
        if RatingPeriod.objects.filter(rating_list=rating_list, month=month).exists():
            raise ConflictError(
                f"Period {month_label(month)} exists already.",
                fields={"period": ["Exists already."]},
            )
        later = (
            RatingPeriod.objects.filter(rating_list=rating_list, month__gt=month)
            .exclude(status=RatingPeriod.Status.OPEN)
            .exists()
        )
        if later:
            raise ConflictError(
                f"A period after {month_label(month)} is closed already.",
                fields={"period": ["A later period is closed."]},
            )
        club_published_changed(club_id=rating_list.club_id)
        return RatingPeriod.objects.create(rating_list=rating_list, month=month)


def period_reopen(*, period: RatingPeriod, by: User) -> RatingRun:
    """Reopen a closed period (rating officer): it and every later closed period of the
    list need a replay. What they published stays current until the replay."""
    rating_list = RatingList.objects.select_related("club").get(pk=period.rating_list_id)
    require_role(by, rating_list.club, Role.OFFICER)
    with transaction.atomic(durable=True):
        RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
        locked = RatingPeriod.objects.select_for_update(no_key=True).get(pk=period.pk)
        if locked.status != RatingPeriod.Status.CLOSED:
            state = "open" if locked.status == RatingPeriod.Status.OPEN else "reopened already"
            raise ConflictError(
                f"Period {locked.label} is {state}.", fields={"period": [f"Is {state}."]}
            )
        affected = list(
            RatingPeriod.objects.select_for_update(no_key=True)
            .filter(
                rating_list=rating_list,
                month__gte=locked.month,
                status=RatingPeriod.Status.CLOSED,
            )
            .order_by("month")
        )
        labels = [p.label for p in affected]
        RatingPeriod.objects.filter(pk__in=[p.pk for p in affected]).update(
            status=RatingPeriod.Status.NEEDS_REPLAY
        )
        now = timezone.now()
        period.status = RatingPeriod.Status.NEEDS_REPLAY
        club_published_changed(club_id=rating_list.club_id)
        run = RatingRun.objects.create(
            rating_list=rating_list,
            kind=RatingRun.Kind.REOPEN,
            by_id=by.pk,
            started=now,
            finished=now,
            periods=labels,
            report=f"Reopened {locked.label}; needing replay: {', '.join(labels)}.",
            summary={"needs_replay": labels},
        )
        events_emit(
            club_id=rating_list.club_id,
            events=("period.reopened",),
            list_id=rating_list.pk,
            period_id=locked.pk,
            run_id=run.pk,
        )
        return run
