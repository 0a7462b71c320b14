"""FIDE's one-off adjustments of published ratings.

1 March 2024 (Rating Regulations in force from that day).

Every published rating below 2000 rose once by round(0.4 x (2000 - R)), on the rating list
of 1 March 2024, in standard, rapid and blitz alike. It is inside every FIDE rating
published since; a club replaying its own history across that date applies it as a
recorded step of the close that publishes that list (the close of February 2024).

1 October 2022, rapid and blitz (marked likely in our timeline: federation and news
sources agree, no FIDE text seen): a rapid or blitz rating more than 100 below the
player's standard rating was raised to standard - 100, on the lists of 1 October 2022.
A club replaying its history with FIDE's rules by date applies it in the close of
September 2022 of its rapid and blitz lists, against the standard rating on the club's
own standard list of 1 October 2022.
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


# The lists it applied to: rapid and blitz, published from 1 October 2022, by the close
# of the month before.
RAISED_TO_STANDARD_LIST = datetime.date(2022, 10, 1)
RAISED_TO_STANDARD_CLOSE = datetime.date(2022, 9, 1)
RAISED_TO_BELOW_STANDARD = 100


def october_2022_adjustment(rating: int, standard: int | None) -> int:
    """Points added to a published rapid or blitz ``rating`` on the lists of 1 October
    2022: up to ``standard`` - 100 where it was further below (0 without a standard)."""
    if standard is None or rating >= standard - RAISED_TO_BELOW_STANDARD:
        return 0
    return standard - RAISED_TO_BELOW_STANDARD - rating
