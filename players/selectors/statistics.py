"""What a list's statistics read of its published rows (the statistics page, its API and
the player page's median): each closed period's ratings as a histogram, the players a
period rated on games, and each player's rating when a stretch of months began.

Set-based: a histogram is one grouped query for any number of periods (and kept in the
cache), the starts of the climbers one query over a year's rows.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.core.cache import cache
from django.db.models import Count

from players.models import RatingPeriod
from players.selectors.published import current_rows, published_rows

# A day: a histogram is small (one pair per distinct rating), and its key retires it.
HISTOGRAM_SECONDS = 24 * 3600

Histogram = list[tuple[int, int]]


def histogram_key(period: RatingPeriod) -> str:
    """Where the period's histogram is kept. A closed period's rows change only when a
    close or a replay writes them, and each stamps ``closed_at`` anew: the key names it,
    so a replayed list never reads the histogram of the rows it replaced."""
    stamp = period.closed_at.isoformat() if period.closed_at else "open"
    return f"rank-histogram:{period.pk}:{stamp}"


def rating_histograms(*, periods: Iterable[RatingPeriod]) -> dict[int, Histogram]:
    """Period id -> its published ratings as (rating, players) pairs, best first: counted
    by the database on the current rows' (period, rating_after) index, not read row by
    row, in one query for every period the cache does not hold.

    Counting 200,000 rows took most of a list page's time, and every page, sort, filter
    and language of a period reads the same histogram (the list page's ranks, the
    statistics page, the player page's median), so each is kept in the cache."""
    by_id = {period.pk: period for period in periods}
    keys = {period_id: histogram_key(period) for period_id, period in by_id.items()}
    found = cache.get_many(list(keys.values()))
    histograms: dict[int, Histogram] = {
        period_id: found[key] for period_id, key in keys.items() if key in found
    }
    missing = [period_id for period_id in by_id if period_id not in histograms]
    if missing:
        counted: dict[int, Histogram] = {period_id: [] for period_id in missing}
        rows = (
            published_rows(period_id__in=missing)
            .order_by()
            .values_list("period_id", "rating_after")
            .annotate(n=Count("id"))
        )
        for period_id, rating, players in rows:
            counted[period_id].append((rating, players))
        for histogram in counted.values():
            histogram.sort(reverse=True)
        cache.set_many({keys[period_id]: h for period_id, h in counted.items()}, HISTOGRAM_SECONDS)
        histograms.update(counted)
    return histograms


def rating_histogram(*, period: RatingPeriod) -> Histogram:
    """The period's published ratings as (rating, players) pairs, best first."""
    return rating_histograms(periods=[period])[period.pk]


def players_rated_on_games(*, period_ids: Iterable[int]) -> dict[int, int]:
    """Period id -> the players its close rated on games (a current row with games): one
    grouped query; a period without any is left out."""
    return dict(
        current_rows(period_id__in=list(period_ids), games__gt=0)
        .order_by()
        .values_list("period_id")
        .annotate(n=Count("id"))
        .values_list("period_id", "n")
    )


def ratings_at_start(*, period: RatingPeriod, since: datetime.date) -> dict[int, int]:
    """Player id -> their rating before their first current row on the period's list from
    ``since`` (a month) to the period that had one: the rating in force when ``since``
    began, or the rating they entered the list with (a first rating, a seeded one) if that
    came later. One query over those months' rows, read as plain values.

    Not a subquery per player: on PostgreSQL a correlated subquery over a 5,000-player
    list was costed high enough for the JIT to compile it (0.4 s of a 0.5 s query)."""
    rows = (
        current_rows(
            rating_list_id=period.rating_list_id,
            period__month__gte=since,
            period__month__lte=period.month,
            rating_before__isnull=False,
        )
        .order_by("-period__month")
        .values_list("player_id", "rating_before")
    )
    # Newest first: each player's earliest row is written last.
    return {player_id: rating for player_id, rating in rows if rating is not None}
