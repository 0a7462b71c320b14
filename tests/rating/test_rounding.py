"""round_ratio_half_away, the integer core of round_half_away (FIDE 8.3.4: a half away from
zero), checked against the standard library's decimal rounding and a Fraction floor."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import round_half_away
from players.rating.rounding import HALF_TOLERANCE, round_half_away_places, round_ratio_half_away


@pytest.mark.parametrize(
    ("numerator", "denominator", "rounded"),
    [
        (1980, 100, 20),  # seed 002: 19.80 -> +20
        (250, 100, 3),  # 2.50: away from zero (Python's round() gives 2, half to even)
        (-250, 100, -3),
        (350, 100, 4),  # 3.50 -> 4 both ways; 2.50 above is the one that tells them apart
        (249, 100, 2),
        (-249, 100, -2),
        (50, 100, 1),
        (-50, 100, -1),
        (49, 100, 0),
        (-49, 100, 0),
        (0, 100, 0),
        (-1250, 100, -13),  # seed 000: -12.5 -> -13
        (5, 2, 3),
        (7, 3, 2),
        (-8, 3, -3),
    ],
)
def test_examples(numerator: int, denominator: int, rounded: int) -> None:
    assert round_ratio_half_away(numerator, denominator) == rounded
    assert round_half_away(Fraction(numerator, denominator)) == rounded
    assert round_half_away(Decimal(numerator) / Decimal(denominator)) == rounded


@pytest.mark.parametrize("denominator", [0, -100])
def test_refuses_a_denominator_that_is_not_positive(denominator: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        round_ratio_half_away(250, denominator)


def _decimal_half_up(hundredths: int) -> int:
    # The standard library's rounding: ROUND_HALF_UP rounds a half away from zero.
    return int((Decimal(hundredths) / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def test_every_hundredth_up_to_a_thousand_points() -> None:
    # The close rounds K x (score - expected) in hundredths: every value from -1000.00 to
    # +1000.00, against the standard library.
    for hundredths in range(-100_000, 100_001):
        assert round_ratio_half_away(hundredths, 100) == _decimal_half_up(hundredths)


def test_arrays_round_every_hundredth_as_ints_do() -> None:
    # The close's array finish rounds every player's change at once, through the same
    # function: element by element it must give the standard library's rounding.
    hundredths = np.arange(-100_000, 100_001, dtype=np.int64)
    rounded = round_ratio_half_away(hundredths, 100)
    assert rounded.dtype == np.int64
    assert rounded.tolist() == [_decimal_half_up(h) for h in range(-100_000, 100_001)]
    # 2.50 -> 3, -2.50 -> -3, 19.80 -> 20, -12.50 -> -13 (as in the examples above).
    assert round_ratio_half_away(np.array([250, -250, 1980, -1250]), 100).tolist() == [
        3,
        -3,
        20,
        -13,
    ]


@settings(deadline=None)
@given(
    numerator=st.integers(min_value=-(10**30), max_value=10**30),
    denominator=st.integers(min_value=1, max_value=10**12),
)
def test_any_ratio_equals_the_fraction_floor(numerator: int, denominator: int) -> None:
    # |x| + 1/2, floored, signed back: the rule written with Fractions.
    exact = Fraction(numerator, denominator)
    magnitude = math.floor(abs(exact) + Fraction(1, 2))
    expected = magnitude if exact >= 0 else -magnitude
    assert round_ratio_half_away(numerator, denominator) == expected
    assert round_half_away(exact) == expected


def test_a_float_exactly_at_the_tolerance_counts_as_the_half() -> None:
    # Formula sums land a hair under a half (seed 000: -12.5 computed as -12.4999999...);
    # the tolerance's own edge is still a half, and the sign follows the value.
    assert round_half_away(0.5 - HALF_TOLERANCE) == 1
    assert round_half_away(-(0.5 - HALF_TOLERANCE)) == -1
    assert round_half_away(0.5 - 2 * HALF_TOLERANCE) == 0


@pytest.mark.parametrize(
    ("value", "places", "rounded"),
    [
        # The half is the one a person reads: 151.515 is 151.51499999... in binary, which
        # round(x, 2) rounds down; the published RD rounds it up.
        (151.515, 2, 151.52),
        (2.675, 2, 2.68),
        (-0.125, 2, -0.13),
        (151.514999, 2, 151.51),
        (0.0599955, 6, 0.059996),
        (0.0599954, 6, 0.059995),
        (350.0, 2, 350.0),
    ],
)
def test_places_round_the_decimal_a_half_away_from_zero(
    value: float, places: int, rounded: float
) -> None:
    assert round_half_away_places(value, places) == rounded


@settings(deadline=None)
@given(st.integers(min_value=-(10**9), max_value=10**9), st.integers(min_value=0, max_value=6))
def test_places_agree_with_decimal_half_up(number: int, places: int) -> None:
    # Decimal's ROUND_HALF_UP is a half away from zero, on the decimal written.
    value = number / 10 ** (places + 1)
    expected = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    assert round_half_away_places(value, places) == float(expected)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_places_refuse_what_is_not_a_number(value: float) -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        round_half_away_places(value, 2)
