"""Performance ratings: FIDE TPR (C.07 10), exact (search) and linear (algorithm of 400)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from players.rating import performance_exact, performance_fide, performance_linear


@pytest.mark.parametrize(
    ("opponents", "score", "tpr"),
    [
        ([2000, 2100, 2200], Fraction(3, 2), 2100),  # 50% -> dp 0
        ([2000, 2001], Fraction(1), 2001),  # average 2000.5 rounds up
        ([2000, 2100, 2200], Fraction(2), 2100 + 125),  # 66.67% -> 67% -> 125
        ([1500] * 8, Fraction(8), 1500 + 800),  # 100%
        ([1500] * 8, Fraction(0), 1500 - 800),  # 0%
        ([1800] * 8, Fraction(9, 2), 1800 + 43),  # 56.25% -> 56%
        ([1800] * 8, Fraction(7, 2), 1800 - 43),  # 43.75% -> 44% -> -dp(.56)
        ([1800] * 200, Fraction(113), 1800 + 50),  # 56.5% rounds up to 57%
    ],
)
def test_performance_fide(opponents: list[int], score: Fraction, tpr: int) -> None:
    assert performance_fide(opponents, score) == tpr


def test_no_games_gives_none() -> None:
    assert performance_fide([], Fraction(0)) is None
    assert performance_exact([], Fraction(0)) is None
    assert performance_linear([], Fraction(0)) is None


@pytest.mark.parametrize("score", [Fraction(-1, 2), Fraction(4)])
def test_impossible_scores_are_refused(score: Fraction) -> None:
    for function in (performance_fide, performance_exact, performance_linear):
        with pytest.raises(ValueError, match="impossible"):
            function([1500, 1600, 1700], score)


def test_exact_one_game() -> None:
    # E = 0.75 -> R - 1500 = 400 log10(3).
    found = performance_exact([1500], Fraction(3, 4))
    assert found == pytest.approx(1500 + 400 * math.log10(3), abs=1e-6)


def test_exact_is_none_at_clean_sweep_and_zero() -> None:
    assert performance_exact([1500, 1600], Fraction(2)) is None
    assert performance_exact([1500, 1600], Fraction(0)) is None


def test_exact_far_outside_the_field() -> None:
    found = performance_exact([1000] * 100, Fraction(9999, 100))
    assert found is not None
    assert found > 2500


@given(
    opponents=st.lists(st.integers(min_value=1000, max_value=2800), min_size=1, max_size=12),
    data=st.data(),
)
def test_exact_meets_the_score(opponents: list[int], data: st.DataObject) -> None:
    halves = data.draw(st.integers(min_value=1, max_value=2 * len(opponents) - 1))
    score = Fraction(halves, 2)
    found = performance_exact(opponents, score)
    assert found is not None
    total = sum(1 / (1 + 10 ** ((o - found) / 400)) for o in opponents)
    assert total == pytest.approx(float(score), abs=1e-6)


@pytest.mark.parametrize(
    ("opponents", "score", "rating"),
    [
        ([1600, 1700, 1800], Fraction(3), 2100.0),
        ([1600, 1700, 1800], Fraction(0), 1300.0),
        ([1600, 1700, 1800], Fraction(3, 2), 1700.0),
        ([2000, 2100], Fraction(3, 2), 2250.0),
    ],
)
def test_performance_linear(opponents: list[int], score: Fraction, rating: float) -> None:
    assert performance_linear(opponents, score) == pytest.approx(rating)
