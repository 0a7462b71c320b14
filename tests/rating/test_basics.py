"""parse_result, round_half_away, rating classes, the floor and dp (table 8.1.1)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from players.rating import apply_floor, dp_from_percentage, parse_result, round_half_away


@pytest.mark.parametrize(
    ("value", "score"),
    [
        ("1", Fraction(1)),
        ("0.5", Fraction(1, 2)),
        ("0", Fraction(0)),
        ("1/2", Fraction(1, 2)),
        ("½", Fraction(1, 2)),
        ("=", Fraction(1, 2)),
        ("win", Fraction(1)),
        ("draw", Fraction(1, 2)),
        ("loss", Fraction(0)),
        ("  WIN ", Fraction(1)),
        ("Draw", Fraction(1, 2)),
        ("\tLoss\n", Fraction(0)),
        (1, Fraction(1)),
        (0, Fraction(0)),
        (0.5, Fraction(1, 2)),
        (1.0, Fraction(1)),
        (Fraction(1, 2), Fraction(1, 2)),
        (Decimal("0.5"), Fraction(1, 2)),
    ],
)
def test_parse_result_accepts(value: object, score: Fraction) -> None:
    parsed = parse_result(value)
    assert parsed == score
    assert isinstance(parsed, Fraction)


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        None,
        "",
        " ",
        "2",
        "-1",
        "0.25",
        "1-0",
        "won",
        "w",
        "½½",
        2,
        -1,
        0.25,
        float("nan"),
        float("inf"),
        Fraction(1, 3),
        Decimal("NaN"),
        [1],
        b"1",
    ],
)
def test_parse_result_rejects(value: object) -> None:
    with pytest.raises(ValueError, match="result"):
        parse_result(value)


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (Fraction(5, 2), 3),
        (Fraction(-5, 2), -3),
        (Fraction(249, 100), 2),
        (Fraction(-249, 100), -2),
        (Fraction(99, 5), 20),
        (Fraction(0), 0),
        (12.5, 13),
        (-12.5, -13),
        (12.4999999995, 13),  # within 1e-9 of the half: counts as the half
        (-12.4999999995, -13),
        (12.499999, 12),
        (-12.499999, -12),
        (0.49, 0),
        (-0.49, 0),
        (Decimal("2.5"), 3),
        (Decimal("-2.5"), -3),
        (Decimal("2.49"), 2),
        (7, 7),
    ],
)
def test_round_half_away(value: Fraction | float | Decimal, rounded: int) -> None:
    assert round_half_away(value) == rounded


@pytest.mark.parametrize("value", [float("nan"), float("inf"), Decimal("Infinity")])
def test_round_half_away_refuses_non_finite(value: float | Decimal) -> None:
    with pytest.raises(ValueError, match="finite"):
        round_half_away(value)


def test_float_sum_lands_on_the_half() -> None:
    # 0.1 added ten times is not exactly 1.0 in binary; scaled, the half must still round away.
    total = sum([0.1] * 10) * 12.5
    assert total != 12.5
    assert round_half_away(total) == 13


@pytest.mark.parametrize(
    ("rating", "floor", "published"),
    [
        (1400, 1400, 1400),
        (1399, 1400, None),
        (1000, None, 1000),
        (-5, None, -5),
        (2000, 1000, 2000),
    ],
)
def test_apply_floor(rating: int, floor: int | None, published: int | None) -> None:
    assert apply_floor(rating, floor) == published


# FIDE 8.1.1, p = 1.00, .99, ... .50.
DP = [
    800, 677, 589, 538, 501, 470, 444, 422, 401, 383, 366, 351, 336, 322, 309, 296, 284, 273,
    262, 251, 240, 230, 220, 211, 202, 193, 184, 175, 166, 158, 149, 141, 133, 125, 117, 110,
    102, 95, 87, 80, 72, 65, 57, 50, 43, 36, 29, 21, 14, 7, 0,
]  # fmt: skip


@pytest.mark.parametrize(("index", "dp"), list(enumerate(DP)))
def test_dp_table_both_halves(index: int, dp: int) -> None:
    percent = 100 - index
    assert dp_from_percentage(Fraction(percent, 100)) == dp
    assert dp_from_percentage(Fraction(100 - percent, 100)) == -dp


@pytest.mark.parametrize(
    ("p", "dp"),
    [
        (Fraction(4, 7), 50),  # .5714 -> 57%
        (Fraction(565, 1000), 50),  # 56.5% rounds up to 57%
        (Fraction(5649, 10000), 43),  # 56.49% rounds to 56%
        (Fraction(425, 1000), -50),  # 42.5% rounds up to 43% -> -dp(.57)
        (Fraction(995, 1000), 800),  # 99.5% rounds to 100%
        (Fraction(5, 1000), -677),  # 0.5% rounds to 1%
    ],
)
def test_dp_rounds_percent_half_up(p: Fraction, dp: int) -> None:
    assert dp_from_percentage(p) == dp


@pytest.mark.parametrize("p", [Fraction(-1, 100), Fraction(101, 100)])
def test_dp_refuses_impossible_percentages(p: Fraction) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        dp_from_percentage(p)
