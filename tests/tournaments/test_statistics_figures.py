"""The pure figures of a list's statistics (tournaments/statistics.py) from a histogram,
against the same figures worked out from the ratings one by one."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from players.rating.classes import rating_class
from tournaments.statistics import buckets_of, classes_of, median_of

ratings = st.lists(st.integers(min_value=600, max_value=2900), max_size=60)


def histogram(values: list[int]) -> list[tuple[int, int]]:
    return sorted(Counter(values).items(), reverse=True)


@given(ratings)
def test_the_figures_equal_those_of_the_ratings_one_by_one(values: list[int]) -> None:
    found = histogram(values)
    assert median_of(found) == (statistics.median_low(values) if values else None)
    bars = buckets_of(found)
    assert sum(bar.players for bar in bars) == len(values)
    assert {bar.lowest: bar.players for bar in bars if bar.players} == dict(
        Counter(v // 100 * 100 for v in values)
    )
    assert all(b.lowest - a.lowest == 100 for a, b in itertools.pairwise(bars))
    classes = classes_of(found)
    assert {c.band: c.players for c in classes if c.players} == dict(
        Counter(rating_class(v) for v in values)
    )
    assert sum(c.players for c in classes) == len(values)


def test_classes_run_from_the_highest_held_to_the_lowest_held() -> None:
    classes = classes_of(histogram([1450, 1460, 2050]))
    assert [(c.band, c.players) for c in classes] == [
        ("2000-2199", 1),
        ("1800-1999", 0),
        ("1600-1799", 0),
        ("1400-1599", 2),
    ]
