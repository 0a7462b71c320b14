"""What "published" means, named once (players/selectors/published.py): a period's
current rows, a published row, a list's closed periods newest first (the list in
force)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

import pytest

from players.models import RatingChange
from players.selectors import (
    closed_periods,
    current_rows,
    latest_closed_period,
    published_list,
    published_rows,
)
from tests.tournaments.helpers import (
    close,
    make_club,
    make_owner,
    make_player,
    period_of,
    play,
    standard,
)

pytestmark = pytest.mark.django_db


def test_current_and_published_rows_and_the_list_in_force() -> None:
    owner = make_owner()
    club = make_club(owner)
    alice = make_player(club, owner, "Alice", 1600)
    bob = make_player(club, owner, "Bob", 1500)
    nina = make_player(club, owner, "Nina", None, rated_games=0)
    play(club, owner, [(alice, bob, "1-0"), (nina, alice, "0-1")], date=datetime.date(2026, 1, 10))
    close(club, owner, "2026-01")
    play(club, owner, [(bob, alice, "1-0")], date=datetime.date(2026, 2, 10))
    close(club, owner, "2026-02")
    january, february = period_of(club, "2026-01"), period_of(club, "2026-02")
    rating_list = standard(club)

    def names(rows: Iterable[RatingChange]) -> set[str]:
        return {row.player.name for row in rows}

    # One row per player of the list; the unrated player's has no rating after it.
    assert names(current_rows(period=january)) == {"Alice", "Bob", "Nina"}
    assert names(published_rows(period=january)) == {"Alice", "Bob"}
    assert [p.month for p in closed_periods(rating_list=rating_list)] == [
        february.month,
        january.month,
    ]
    assert latest_closed_period(rating_list=rating_list) == february
    assert latest_closed_period(rating_list=rating_list, before=february.month) == january
    assert names(published_list(rating_list=rating_list)) == {"Alice", "Bob"}

    # A replay retires the rows it replaces: they are no longer current nor published.
    RatingChange.objects.filter(period=january, player=alice).update(current=False)
    assert names(current_rows(period=january)) == {"Bob", "Nina"}
    assert names(published_rows(period=january)) == {"Bob"}
