"""FIDE table 8.1.2 checked at every bound edge, for both players, and its symmetry."""

from __future__ import annotations

from fractions import Fraction

import pytest

from players.rating import expected_from_table, table_pd_hundredths

# Upper bounds of |D| for the higher-rated player's PD = .50 ... .99, from fide-rules.md
# section 1 (FIDE 8.1.2); above 735 the higher-rated player has 1.00.
BOUNDS = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328,
    344, 357, 374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
]  # fmt: skip

EDGES = [
    pytest.param(bound, 50 + index, id=f"D={bound}->0.{50 + index}")
    for index, bound in enumerate(BOUNDS)
]


@pytest.mark.parametrize(("bound", "hundredths"), EDGES)
def test_bound_and_bound_plus_one(bound: int, hundredths: int) -> None:
    # At the bound the higher-rated player still has this PD; one point more gives the next.
    assert expected_from_table(bound) == Fraction(hundredths, 100)
    assert expected_from_table(bound + 1) == Fraction(hundredths + 1, 100)
    # The lower-rated player has 1 - PD on both sides of the edge.
    assert expected_from_table(-bound) == Fraction(100 - hundredths, 100)
    assert expected_from_table(-bound - 1) == Fraction(99 - hundredths, 100)


# The same table as seed 002 prints it (ranges of D and the higher-rated player's PD),
# transcribed separately from BOUNDS so a slip in either shows up.
SEED_002_RANGES = [
    (0, 3, 50), (4, 10, 51), (11, 17, 52), (18, 25, 53), (26, 32, 54), (33, 39, 55),
    (40, 46, 56), (47, 53, 57), (54, 61, 58), (62, 68, 59), (69, 76, 60), (77, 83, 61),
    (84, 91, 62), (92, 98, 63), (99, 106, 64), (107, 113, 65), (114, 121, 66),
    (122, 129, 67), (130, 137, 68), (138, 145, 69), (146, 153, 70), (154, 162, 71),
    (163, 170, 72), (171, 179, 73), (180, 188, 74), (189, 197, 75), (198, 206, 76),
    (207, 215, 77), (216, 225, 78), (226, 235, 79), (236, 245, 80), (246, 256, 81),
    (257, 267, 82), (268, 278, 83), (279, 290, 84), (291, 302, 85), (303, 315, 86),
    (316, 328, 87), (329, 344, 88), (345, 357, 89), (358, 374, 90), (375, 391, 91),
    (392, 411, 92), (412, 432, 93), (433, 456, 94), (457, 484, 95), (485, 517, 96),
    (518, 559, 97), (560, 619, 98), (620, 735, 99),
]  # fmt: skip


@pytest.mark.parametrize(("low", "high", "hundredths"), SEED_002_RANGES)
def test_every_difference_in_each_printed_range(low: int, high: int, hundredths: int) -> None:
    for difference in range(low, high + 1):
        assert table_pd_hundredths(difference) == hundredths
        assert table_pd_hundredths(-difference) == 100 - hundredths


def test_ranges_cover_zero_to_735_without_gaps() -> None:
    starts = [low for low, _, _ in SEED_002_RANGES]
    ends = [high for _, high, _ in SEED_002_RANGES]
    assert starts[0] == 0
    assert ends[-1] == 735
    assert all(start == end + 1 for start, end in zip(starts[1:], ends[:-1], strict=True))


@pytest.mark.parametrize("difference", [736, 737, 800, 1000, 4000, 100_000])
def test_beyond_735(difference: int) -> None:
    assert expected_from_table(difference) == 1
    assert expected_from_table(-difference) == 0


def test_symmetry() -> None:
    for difference in range(-800, 801):
        assert expected_from_table(difference) + expected_from_table(-difference) == 1
        assert expected_from_table(difference) == Fraction(table_pd_hundredths(difference), 100)


def test_table_is_monotone() -> None:
    values = [table_pd_hundredths(d) for d in range(-800, 801)]
    assert values == sorted(values)


def test_table_values_are_exact_fractions() -> None:
    value = expected_from_table(-160)
    assert isinstance(value, Fraction)
    assert value == Fraction(29, 100)
