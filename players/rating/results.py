"""Game results as exact scores (FIDE 8.3.2: 1 for a win, 0.5 for a draw, 0 for a loss)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

WIN = Fraction(1)
DRAW = Fraction(1, 2)
LOSS = Fraction(0)

_TEXT_RESULTS: dict[str, Fraction] = {
    "1": WIN,
    "win": WIN,
    "0.5": DRAW,
    "1/2": DRAW,
    "½": DRAW,
    "=": DRAW,
    "draw": DRAW,
    "0": LOSS,
    "loss": LOSS,
}

_ACCEPTED = "1, 0.5, 0, 1/2, ½, =, win, draw or loss"


def parse_result(value: object) -> Fraction:
    """Read one player's game score (FIDE 8.3.2 scores: 1, 0.5, 0) from text or a number.

    Text is trimmed and case-insensitive. Numbers (int, float, Fraction, Decimal) must equal
    1, 0.5 or 0; bools are refused because True/False say nothing about a draw.
    """
    if isinstance(value, bool):
        raise ValueError(f"result {value!r} is a bool; expected {_ACCEPTED}")
    if isinstance(value, str):
        found = _TEXT_RESULTS.get(value.strip().lower())
        if found is None:
            raise ValueError(f"result {value!r} is not one of {_ACCEPTED}")
        return found
    if isinstance(value, int | Fraction):
        exact = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"result {value!r} is not one of {_ACCEPTED}")
        exact = Fraction(value)
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"result {value!r} is not one of {_ACCEPTED}")
        exact = Fraction(value)
    else:
        raise ValueError(f"result of type {type(value).__name__} is not one of {_ACCEPTED}")
    if exact not in (WIN, DRAW, LOSS):
        raise ValueError(f"result {value!r} is not one of {_ACCEPTED}")
    # Return the shared constants so callers get canonical, cheap-to-compare objects.
    return WIN if exact == WIN else DRAW if exact == DRAW else LOSS
