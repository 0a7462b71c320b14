"""FIDE's one-off adjustment of 1 March 2024 (Rating Regulations in force from that day).

Every published rating below 2000 rose once by round(0.4 x (2000 - R)), on the rating list
of 1 March 2024, in standard, rapid and blitz alike. It is inside every FIDE rating
published since; a club replaying its own history across that date applies it as a
recorded step of the close that publishes that list (the close of February 2024).
"""

from __future__ import annotations

import datetime
from fractions import Fraction

from players.rating.rounding import round_half_away

ADJUSTED_BELOW = 2000
# The list it applied to: the one published from 1 March 2024.
ADJUSTED_LIST = datetime.date(2024, 3, 1)


def march_2024_adjustment(rating: int) -> int:
    """Points added to a published ``rating`` on the list of 1 March 2024 (0 from 2000 up).

    0.4 x (2000 - R) is a multiple of 0.2, never a half, so the rounding is unambiguous.
    """
    if rating >= ADJUSTED_BELOW:
        return 0
    return round_half_away(Fraction(2 * (ADJUSTED_BELOW - rating), 5))
