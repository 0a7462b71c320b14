"""The close's grouping of a period's games, shared with the player page: which month's
list scores a game (FIDE 8.2.4) and which own rating a side is scored with."""

from __future__ import annotations

import datetime

import pytest

from players.rating.period import own_rating_for_game, view_month

NOV = datetime.date(2026, 11, 1)


@pytest.mark.parametrize(
    ("tournament_start", "expected"),
    [
        (None, NOV),  # no tournament: the period's own list
        (datetime.date(2026, 11, 1), NOV),  # began this month
        (datetime.date(2026, 11, 30), NOV),
        (datetime.date(2026, 10, 31), datetime.date(2026, 10, 1)),  # began the day before
        (datetime.date(2025, 12, 15), datetime.date(2025, 12, 1)),  # a long event
    ],
)
def test_a_game_is_scored_with_the_list_in_force_at_its_tournaments_start(
    tournament_start: datetime.date | None, expected: datetime.date
) -> None:
    assert view_month(NOV, tournament_start) == expected


@pytest.mark.parametrize(
    ("own_start", "own_view", "expected"),
    [
        (None, None, None),  # unrated: toward a first rating
        (None, 1800, None),  # unrated at the period's start, whatever the tournament's list
        (1850, 1850, 1850),
        (1850, 1800, 1800),  # rated 1800 when the tournament began: that rating counts
        (1850, None, 1850),  # rated since the tournament began: own period-start rating
    ],
)
def test_own_rating_for_a_game(
    own_start: int | None, own_view: int | None, expected: int | None
) -> None:
    assert own_rating_for_game(own_start, own_view) == expected
