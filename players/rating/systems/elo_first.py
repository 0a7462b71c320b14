"""Which of FIDE's first-rating formulas a first rating takes (8.2: 2014's, or 2024's from
March 2024), by the period's rules or by the days its pooled events began."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from players.rating.fide_rules import rule_set_for
from players.rating.first_rating import first_rating, first_rating_2014
from players.rating.period import ListSettings
from players.rating.types import FirstRating

FirstRatingRule = Callable[..., FirstRating]


def first_rating_rule(settings: ListSettings) -> FirstRatingRule:
    """FIDE's first-rating formula in force this month: 2014's before March 2024."""
    dated = settings.rule_set
    if dated is not None and not dated.first_rating_2024:
        return first_rating_2014
    return first_rating


def first_rating_rule_of(settings: ListSettings, began: Sequence[datetime.date]) -> FirstRatingRule:
    """FIDE's first-rating formula for a first rating from events begun on ``began``.

    A rule change applies to tournaments that start on or after its date (FIDE's rules by
    date; shared/reference/fide-rules.md section 10): when every event of the pool began
    under one rule set, that set's formula (a tournament begun in February 2024 and ended
    in March keeps 2014's); when they span rule sets, the period's."""
    if settings.fide_rules is None or not began:
        return first_rating_rule(settings)
    formulas = {rule_set_for(settings.fide_rules, day).first_rating_2024 for day in began}
    if len(formulas) == 1:
        return first_rating if formulas.pop() else first_rating_2014
    return first_rating_rule(settings)


def pool_event_began(event: Mapping[str, Any]) -> datetime.date:
    """An event pooled in an earlier period: the first day of that period's month (its
    tournament's start is not kept in the pool)."""
    year, month = str(event["month"]).split("-")
    return datetime.date(int(year), int(month), 1)
