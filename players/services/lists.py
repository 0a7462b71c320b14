"""A club's rating lists: their rules, and the month the next list applies to."""

from __future__ import annotations

import datetime
import re
from typing import Any

from django.db import transaction
from django.utils import timezone

from players.errors import invalid_field
from players.models import (
    K_MAX,
    K_MIN,
    RATING_MAX,
    RATING_MIN,
    KPolicy,
    RatingList,
    RatingPeriod,
    Role,
    add_months,
    list_presets,
    month_start,
)
from players.names import NameOrder
from players.selectors import User, require_role
from players.services.clubs import club_published_changed

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
    "fide_rules",
    "glicko_tau",
    "glicko_rd_start",
    "glicko_rd_min",
    "glicko_rd_max",
)
# What a list shows rather than how it rates: changing it keeps the list's preset.
LIST_DISPLAY = ("name_order",)
# Glicko-2's settings as the API and the admin name them (the paper's words) -> the fields.
GLICKO_SETTINGS: dict[str, str] = {
    "tau": "glicko_tau",
    "rd_start": "glicko_rd_start",
    "rd_min": "glicko_rd_min",
    "rd_max": "glicko_rd_max",
}
SLUG = re.compile(r"[a-z0-9][-a-z0-9_]{0,31}")
# Highest RD a list may set: a player is no less sure than a coin toss long before this.
RD_LIMIT = 1000.0


def club_lists_locked(*, club_id: int) -> list[RatingList]:
    """The club's lists, locked as a close locks its list (``select_for_update(no_key=
    True)``), in id order: what a player's removal takes first, so that it waits for a
    close running on any of them and a close starting after it no longer finds the player
    (a close's rows name their players without a database key: RatingChange.player)."""
    return list(
        RatingList.objects.select_for_update(no_key=True).filter(club_id=club_id).order_by("id")
    )


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
        presets = list_presets()
        if preset not in presets:
            raise invalid_field("preset", f"Unknown preset; use one of {', '.join(presets)}.")
        values.update({k: v for k, v in presets[preset].items() if k != "kind"})
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
        validate_list(locked)
        locked.save()
        club_published_changed(club_id=locked.club_id)
    return locked


def validate_list(rating_list: RatingList) -> None:
    if rating_list.k_policy == KPolicy.FIXED and rating_list.fixed_k is None:
        raise invalid_field("fixed_k", "A fixed K policy needs a K.")
    if rating_list.fixed_k is not None and not K_MIN <= rating_list.fixed_k <= K_MAX:
        raise invalid_field("fixed_k", f"K must be from {K_MIN} to {K_MAX}.")
    if rating_list.first_rating_policy == "fixed" and rating_list.starting_rating is None:
        raise invalid_field(
            "starting_rating", "A fixed first-rating policy needs a starting rating."
        )
    if not rating_list.glicko_tau > 0:
        raise invalid_field("tau", "tau must be above 0 (the paper suggests 0.3 to 1.2).")
    rd_min, rd_start, rd_max = (
        rating_list.glicko_rd_min,
        rating_list.glicko_rd_start,
        rating_list.glicko_rd_max,
    )
    if not 0 <= rd_min <= rd_start:
        raise invalid_field("rd_min", "The lowest RD must be from 0 to the starting RD.")
    if not rd_start <= rd_max <= RD_LIMIT:
        raise invalid_field(
            "rd_max", f"The highest RD must be from the starting RD to {RD_LIMIT:g}."
        )
    for field in ("floor", "starting_rating"):
        value = getattr(rating_list, field)
        if value is not None and not RATING_MIN <= value <= RATING_MAX:
            raise invalid_field(field, f"Must be from {RATING_MIN} to {RATING_MAX}.")
