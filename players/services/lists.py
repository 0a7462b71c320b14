"""A club's rating lists: their rules, and the month the next list applies to."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from players.errors import invalid_field
from players.models import (
    K_MAX,
    K_MIN,
    LIST_PRESETS,
    RATING_MAX,
    RATING_MIN,
    KPolicy,
    RatingList,
    RatingPeriod,
    Role,
    add_months,
    month_start,
)
from players.names import NameOrder
from players.selectors import User, require_role

# A list's rules, as rating_list_update accepts them (the admin's form shows the same).
LIST_RULES = (
    "expected_method",
    "apply_400_rule",
    "k_policy",
    "fixed_k",
    "floor",
    "first_rating_policy",
    "starting_rating",
    "adjust_march_2024",
)
# What a list shows rather than how it rates: changing it keeps the list's preset.
LIST_DISPLAY = ("name_order",)


def next_period_month(*, rating_list: RatingList) -> datetime.date:
    """The month the next list applies to: after the latest closed (or reopened) period,
    else the current month."""
    latest = (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .exclude(status=RatingPeriod.Status.OPEN)
        .order_by("-month")
        .values_list("month", flat=True)
        .first()
    )
    if latest is None:
        return month_start(timezone.now().date())
    return add_months(latest, 1)


def rating_list_update(
    *, rating_list: RatingList, by: User, preset: str | None = None, **rules: Any
) -> RatingList:
    """Change a list's rules (owner only), from a preset and/or field by field.

    Closed periods keep what they published; the new rules apply from the next close.
    """
    require_role(by, rating_list.club, Role.OWNER)
    display = {field: rules.pop(field) for field in LIST_DISPLAY if field in rules}
    unknown = set(rules) - set(LIST_RULES)
    if unknown:
        raise invalid_field(sorted(unknown)[0], "Not a list rule.")
    values: dict[str, Any] = {}
    if preset is not None:
        if preset not in LIST_PRESETS:
            raise invalid_field("preset", f"Unknown preset; use one of {', '.join(LIST_PRESETS)}.")
        values.update({k: v for k, v in LIST_PRESETS[preset].items() if k != "kind"})
    values.update(rules)
    if display.get("name_order", NameOrder.GIVEN_FIRST) not in set(NameOrder):
        raise invalid_field("name_order", f"Use one of {', '.join(NameOrder)}.")
    values.update(display)
    with transaction.atomic(durable=True):
        locked = RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
        for field, value in values.items():
            setattr(locked, field, value)
        if preset is not None or rules:  # the display alone keeps the preset
            locked.preset = preset if preset is not None and not rules else ""
        _validate_list(locked)
        locked.save()
    return locked


def _validate_list(rating_list: RatingList) -> None:
    if rating_list.k_policy == KPolicy.FIXED and rating_list.fixed_k is None:
        raise invalid_field("fixed_k", "A fixed K policy needs a K.")
    if rating_list.fixed_k is not None and not K_MIN <= rating_list.fixed_k <= K_MAX:
        raise invalid_field("fixed_k", f"K must be from {K_MIN} to {K_MAX}.")
    if rating_list.first_rating_policy == "fixed" and rating_list.starting_rating is None:
        raise invalid_field(
            "starting_rating", "A fixed first-rating policy needs a starting rating."
        )
    for field in ("floor", "starting_rating"):
        value = getattr(rating_list, field)
        if value is not None and not RATING_MIN <= value <= RATING_MAX:
            raise invalid_field(field, f"Must be from {RATING_MIN} to {RATING_MAX}.")
