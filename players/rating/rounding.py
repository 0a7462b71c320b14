"""The one rounding rule of the engine (FIDE 8.3.4): nearest whole number, .5 away from zero;
the same rule at a number of decimals for Glicko-2's published RD and volatility. FIDE's
"rounded .5 up" (8.1.1 percentages, C.07 10 averages) is this rule too: those figures are
never negative."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    # Types only: the engine package never loads numpy (the close's array modules do).
    import numpy as np
    from numpy.typing import NDArray

# Float sums of formula expectations land a hair off an exact half (seed 000: -12.5 must
# round to -13), so a float this close to a half counts as the half.
HALF_TOLERANCE = 1e-9


def round_half_away(value: Fraction | float | Decimal) -> int:
    """Round to the nearest whole number, a half away from zero (FIDE 8.3.4).

    Fractions and Decimals are rounded exactly; a float within 1e-9 of a half counts as that
    half. Non-finite values raise ValueError.
    """
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Fraction):
        return round_ratio_half_away(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"cannot round {value!r}: not a finite number")
        exact = Fraction(value)
        return round_ratio_half_away(exact.numerator, exact.denominator)
    if not math.isfinite(value):
        raise ValueError(f"cannot round {value!r}: not a finite number")
    size = abs(value)
    whole = math.floor(size)
    if size - whole >= 0.5 - HALF_TOLERANCE:
        whole += 1
    return whole if value >= 0 else -whole


@overload
def round_ratio_half_away(numerator: int, denominator: int) -> int: ...


@overload
def round_ratio_half_away(numerator: NDArray[np.int64], denominator: int) -> NDArray[np.int64]: ...


def round_ratio_half_away(numerator: Any, denominator: int) -> Any:
    """``numerator / denominator`` to whole, a half away from zero (FIDE 8.3.4), in integers.

    The exact rounding of ``round_half_away``; the period close calls it on a change in
    hundredths (``denominator`` 100) without building a Fraction. ``numerator`` may be an
    int or a numpy integer array (the close's array finish rounds every player at once):
    the same operators serve both, so the rule is written once.
    """
    if denominator <= 0:
        raise ValueError(f"the denominator must be positive (got {denominator})")
    # |n/d| + 1/2 = (2|n| + d) / 2d, floored; then n's sign back (1 - 2 x (n < 0) is 1 or -1
    # for an int and for every element of an array alike).
    magnitude = (2 * abs(numerator) + denominator) // (2 * denominator)
    return magnitude * (1 - 2 * (numerator < 0))


def round_half_away_places(value: float, places: int) -> float:
    """``value`` rounded to ``places`` decimals, a half away from zero: the published RD
    and volatility of a Glicko-2 list. The half is read off the decimal a person sees
    (``repr``), exactly: ``round(x, places)`` rounds the float's binary value half to
    even, so 151.515 became 151.51."""
    if not math.isfinite(value):
        raise ValueError(f"cannot round {value!r}: not a finite number")
    scaled = round_half_away(Decimal(repr(value)).scaleb(places))
    return float(Decimal(scaled).scaleb(-places))
