"""Expected score: FIDE table 8.1.2 in exact hundredths, and the Elo formula in float."""

from __future__ import annotations

import math
from fractions import Fraction

# FIDE 8.1.2: upper bounds of |D| for the higher-rated player's PD = .50, .51, ... .99.
# Above the last bound the higher-rated player has 1.00.
TABLE_BOUNDS: tuple[int, ...] = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328,
    344, 357, 374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
)  # fmt: skip
TABLE_LIMIT = TABLE_BOUNDS[-1] + 1  # from here on PD is 1.00 / 0.00


def _build_higher_hundredths() -> tuple[int, ...]:
    values: list[int] = []
    pd = 50
    for bound in TABLE_BOUNDS:
        while len(values) <= bound:
            values.append(pd)
        pd += 1
    values.append(100)
    return tuple(values)


# PD in hundredths for the higher-rated player, indexed by |D| from 0 to TABLE_LIMIT.
_HIGHER: tuple[int, ...] = _build_higher_hundredths()

# PD in hundredths indexed by D + TABLE_LIMIT, for D in [-TABLE_LIMIT, TABLE_LIMIT]: the hot
# loop of a period close reads this list directly instead of calling a function per game.
PD_HUNDREDTHS: tuple[int, ...] = tuple(
    [100 - _HIGHER[-d] for d in range(-TABLE_LIMIT, 0)] + list(_HIGHER)
)


def table_pd_hundredths(difference: int) -> int:
    """FIDE 8.1.2: PD in hundredths for the player whose own-minus-opponent difference is given.

    |D| <= 3 gives 50; above 735 the higher-rated player has 100 and the lower-rated 0.
    """
    if difference > TABLE_LIMIT:
        difference = TABLE_LIMIT
    elif difference < -TABLE_LIMIT:
        difference = -TABLE_LIMIT
    return PD_HUNDREDTHS[difference + TABLE_LIMIT]


def expected_from_table(difference: int) -> Fraction:
    """FIDE 8.1.2: the exact PD (a Fraction of hundredths) for own-minus-opponent `difference`."""
    return Fraction(table_pd_hundredths(difference), 100)


# The formula is precomputed for this range of differences (every capped difference and
# most uncapped ones); a cached value is the very float the formula gives.
FORMULA_CACHE_LIMIT = 1000


def expected_from_formula(difference: int) -> float:
    """Elo winning expectancy E = 1 / (1 + 10^(-D/400)) (US Chess 4.2; not FIDE 8.1.2)."""
    if -FORMULA_CACHE_LIMIT <= difference <= FORMULA_CACHE_LIMIT:
        return _FORMULA[difference + FORMULA_CACHE_LIMIT]
    return elo_formula(difference)


def elo_formula(difference: float) -> float:
    """The Elo formula itself, for any real difference (the performance search needs
    fractional ones); ``expected_from_formula`` is the same value, cached for whole ones."""
    return 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))


_FORMULA: tuple[float, ...] = tuple(
    elo_formula(d) for d in range(-FORMULA_CACHE_LIMIT, FORMULA_CACHE_LIMIT + 1)
)
