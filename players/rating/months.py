"""Months as the tracker counts them: a period is named by its month, ``YYYY-MM``, and held as
the first day of that month."""

from __future__ import annotations

import datetime


def month_label(month: datetime.date) -> str:
    return month.strftime("%Y-%m")


def month_start(day: datetime.date) -> datetime.date:
    return day.replace(day=1)


def add_months(month: datetime.date, count: int) -> datetime.date:
    """The first day of the month ``count`` months after ``month``'s."""
    index = month.year * 12 + month.month - 1 + count
    return datetime.date(index // 12, index % 12 + 1, 1)
