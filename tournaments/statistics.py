"""A list's statistics (the statistics page and its API; the player page's median): the
list in force's rating distribution and rating classes, activity by month, the year's
biggest climbers and the most played pairings, as plain values.

Everything here is what closes published: the ratings of closed periods and the games
those periods hold. A game entered in an open month changes none of it, so the page and
the answer are kept under the club's published generation. A fixed number of queries
whatever the size of the list (selectors: players/selectors/statistics.py and
tournaments/selectors.py).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import QuerySet

from players.models import RatingList, RatingPeriod, add_months
from players.rating.classes import CLASSES
from players.selectors import (
    closed_periods,
    player_names,
    players_rated_on_games,
    published_rows,
    rating_histogram,
    rating_histograms,
    ratings_at_start,
)
from players.selectors.statistics import Histogram
from tournaments.selectors import games_per_period, pairings

#: The distribution's bars: 100 points each (1500-1599, ...).
BUCKET_POINTS = 100
#: Activity: the newest closed months of the list, at most this many.
ACTIVITY_MONTHS = 24
#: The year's climbers: the twelve months ending with the list in force.
YEAR_MONTHS = 12
CLIMBERS = 10
PAIRINGS = 10


@dataclass(frozen=True)
class Bucket:
    lowest: int
    players: int

    @property
    def highest(self) -> int:
        return self.lowest + BUCKET_POINTS - 1

    @property
    def label(self) -> str:
        return f"{self.lowest}-{self.highest}"


@dataclass(frozen=True)
class ClassCount:
    """A rating class of the rules engine (players/rating/classes.py) and its players."""

    band: str
    lowest: int
    highest: int | None
    players: int


@dataclass(frozen=True)
class MonthActivity:
    month: datetime.date
    games: int
    players: int

    @property
    def label(self) -> str:
        return f"{self.month:%Y-%m}"


@dataclass(frozen=True)
class Climber:
    player_id: int
    name: str
    start: int
    rating: int

    @property
    def gain(self) -> int:
        return self.rating - self.start


@dataclass(frozen=True)
class Pairing:
    """Two players and their games (the lower player id first, as the database groups)."""

    player_id: int
    player_name: str
    opponent_id: int
    opponent_name: str
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> Fraction:
        return self.wins + Fraction(self.draws, 2)

    @property
    def opponent_score(self) -> Fraction:
        return self.losses + Fraction(self.draws, 2)


@dataclass(frozen=True)
class ListStatistics:
    rating_list: RatingList
    #: The list in force (the newest closed period); None: nothing published yet.
    period: RatingPeriod | None
    players: int = 0
    median: int | None = None
    buckets: tuple[Bucket, ...] = ()
    classes: tuple[ClassCount, ...] = ()
    activity: tuple[MonthActivity, ...] = ()
    #: The first month of the climbers' year.
    since: datetime.date | None = None
    climbers: tuple[Climber, ...] = ()
    pairings: tuple[Pairing, ...] = ()

    @property
    def bars_from(self) -> int | None:
        """The distribution's lowest rating drawn (its first bar's)."""
        return self.buckets[0].lowest if self.buckets else None

    @property
    def bars_to(self) -> int | None:
        """The distribution's highest rating drawn (its last bar's)."""
        return self.buckets[-1].highest if self.buckets else None

    @property
    def first_month(self) -> str:
        return self.activity[0].label if self.activity else ""

    @property
    def last_month(self) -> str:
        return self.activity[-1].label if self.activity else ""


# -- figures from a histogram (pure) ---------------------------------------------------------


def median_of(histogram: Histogram) -> int | None:
    """The middle rating of a (rating, players) histogram; of two middles the lower (a
    rating someone holds). None for an empty list."""
    total = sum(players for _, players in histogram)
    if not total:
        return None
    # The ((total + 1) // 2)-th rating from the bottom.
    wanted, seen = (total + 1) // 2, 0
    for rating, players in sorted(histogram):
        seen += players
        if seen >= wanted:
            return rating
    raise AssertionError("unreachable: the counts add up to total")


def buckets_of(histogram: Histogram) -> tuple[Bucket, ...]:
    """The distribution in BUCKET_POINTS-wide bars, lowest first, from the lowest rating's
    bar to the highest's (empty bars between them kept: a gap is a figure too)."""
    if not histogram:
        return ()
    counts: dict[int, int] = {}
    for rating, players in histogram:
        lowest = rating - rating % BUCKET_POINTS
        counts[lowest] = counts.get(lowest, 0) + players
    first, last = min(counts), max(counts)
    return tuple(
        Bucket(lowest, counts.get(lowest, 0))
        for lowest in range(first, last + BUCKET_POINTS, BUCKET_POINTS)
    )


def classes_of(histogram: Histogram) -> tuple[ClassCount, ...]:
    """The players in each of the engine's rating classes (its bands: 200 points wide
    from 1000 to 2199, 100 wide from 2200 to 2499, then 2500-2699 and 2700+; under 1000
    one), highest first, every class from the highest held to the lowest held."""
    counts = [
        sum(p for rating, p in histogram if band.lowest <= rating <= (band.highest or rating))
        for band in CLASSES
    ]
    held = [index for index, count in enumerate(counts) if count]
    if not held:
        return ()
    return tuple(
        ClassCount(band.band, band.lowest, band.highest, counts[index])
        for index, band in enumerate(CLASSES)
        if held[0] <= index <= held[-1]
    )


# -- the list's statistics -------------------------------------------------------------------


def list_statistics(*, rating_list: RatingList) -> ListStatistics:
    """The statistics of the list in force: about ten queries whatever its size, the
    histogram's from the cache when the list page or another visit read it."""
    periods = closed_periods(rating_list=rating_list)
    latest = periods.first()
    if latest is None:
        return ListStatistics(rating_list, None)
    histogram = rating_histogram(period=latest)
    since = add_months(latest.month, 1 - YEAR_MONTHS)
    return ListStatistics(
        rating_list,
        latest,
        players=sum(players for _, players in histogram),
        median=median_of(histogram),
        buckets=buckets_of(histogram),
        classes=classes_of(histogram),
        activity=_activity(periods),
        since=since,
        climbers=_climbers(latest, since),
        pairings=_pairings(periods),
    )


def _activity(periods: QuerySet[RatingPeriod]) -> tuple[MonthActivity, ...]:
    """Games and players by month: the newest ACTIVITY_MONTHS closed months, oldest first."""
    months = list(periods[:ACTIVITY_MONTHS])
    ids = [period.pk for period in months]
    games = games_per_period(period_ids=ids)
    players = players_rated_on_games(period_ids=ids)
    return tuple(
        MonthActivity(period.month, games.get(period.pk, 0), players.get(period.pk, 0))
        for period in reversed(months)
    )


def _climbers(latest: RatingPeriod, since: datetime.date) -> tuple[Climber, ...]:
    """The CLIMBERS players on the list in force who gained most since ``since`` (who
    gained at all), by gain, then rating, then name, then id. Three queries: the list's
    ratings, the starts, the names of the ten."""
    starts = ratings_at_start(period=latest, since=since)
    now = published_rows(period=latest).values_list("player_id", "rating_after")
    gains = [
        (rating - starts[player_id], rating, player_id)
        for player_id, rating in now
        if rating is not None and player_id in starts and rating > starts[player_id]
    ]
    # Of equal gains and ratings the name decides: the best of them are named first.
    cut = sorted(gains, reverse=True)
    if len(cut) > CLIMBERS:
        last = cut[CLIMBERS - 1][:2]
        cut = [c for c in cut if c[:2] >= last]
    names = player_names(ids=[player_id for _, _, player_id in cut])
    ordered = sorted(cut, key=lambda c: (-c[0], -c[1], names.get(c[2], ""), c[2]))
    return tuple(
        Climber(player_id, names.get(player_id, ""), rating - gain, rating)
        for gain, rating, player_id in ordered[:CLIMBERS]
    )


def _pairings(periods: QuerySet[RatingPeriod]) -> tuple[Pairing, ...]:
    """The PAIRINGS pairs who met most often in the list's closed months."""
    rows = list(pairings(periods=periods)[:PAIRINGS])
    names = player_names(ids={row["low"] for row in rows} | {row["high"] for row in rows})
    return tuple(
        Pairing(
            row["low"],
            names.get(row["low"], ""),
            row["high"],
            names.get(row["high"], ""),
            row["games"],
            row["low_wins"],
            row["draws"],
            row["high_wins"],
        )
        for row in rows
    )


def period_medians(*, periods: Iterable[RatingPeriod]) -> dict[int, int]:
    """Period id -> the median of the ratings it published (the player page's comparison
    line): the histograms from the cache, one query for those it lacks."""
    found = rating_histograms(periods=periods)
    return {pk: median for pk, h in found.items() if (median := median_of(h)) is not None}
