"""FIDE's one-off adjustment of 1 March 2024: round(0.4 x (2000 - R)) below 2000."""

from __future__ import annotations

import pytest

from players.rating import march_2024_adjustment


@pytest.mark.parametrize(
    ("rating", "added"),
    [
        (1000, 400),  # the old floor: 1000 -> 1400, the new one
        (1400, 240),
        (1500, 200),
        (1843, 63),  # 62.8
        (1997, 1),  # 1.2
        (1998, 1),  # 0.8
        (1999, 0),  # 0.4
        (2000, 0),
        (2450, 0),
    ],
)
def test_adjustment(rating: int, added: int) -> None:
    assert march_2024_adjustment(rating) == added


def test_adjustment_keeps_the_order_of_ratings() -> None:
    # Compressing the scale must never swap two players.
    adjusted = [r + march_2024_adjustment(r) for r in range(1000, 2100)]
    assert adjusted == sorted(adjusted)
    assert adjusted[-1] == 2099
