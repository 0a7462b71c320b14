"""Which players the Elo plan's arrays may finish (elo._finish_in_arrays): only those the
array finish computes alike. An officer's K override (this period's or the next one's) and
a player counted through the standard rating on a rapid list take the scalar path, and
their figures are the rules' own. The plan is asked for as the close asks for it
(``system_for``), with the arrays on. Figures by hand: FIDE table, equal ratings expect
0.50 each (8.1.2).
"""

from __future__ import annotations

import datetime

from players.rating import ExpectedMethod, KReason, ListKind
from players.rating.period import (
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import system_for

OCT = datetime.date(2026, 10, 1)


def settings(kind: ListKind = ListKind.STANDARD) -> ListSettings:
    return ListSettings(
        system="fide",
        kind=kind,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=True,
        fixed_k=None,
        floor=1400,
        adjust_march_2024=False,
    )


def start(
    rating: int | None, *, override: int | None = None, override_next: int | None = None
) -> PlayerStart:
    # 50 rated games, born 1980, under 2400: K 20 by 8.3.3.
    return PlayerStart(rating, 50, False, [], 1980, override, override_next)


def plan(
    starts: dict[int, PlayerStart],
    games: list[tuple[int, int, str]],
    *,
    kind: ListKind = ListKind.STANDARD,
    start_ratings: dict[int, int] | None = None,
    standard: dict[int, int] | None = None,
) -> PeriodPlan:
    return system_for("fide").plan_period(
        PeriodInputs(
            settings=settings(kind),
            month=OCT,
            starts=starts,
            start_ratings=start_ratings or {pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[w for w, _, _ in games],
                black=[b for _, b, _ in games],
                result=[r for _, _, r in games],
                rated=[True] * len(games),
                tournament=[None] * len(games),
            ),
            tournaments={},
            ratings_at={},
            standard_ratings=standard or {},
        )
    )


def row(result: PeriodPlan, player: int) -> PlannedChange:
    return next(c for c in result.changes if c.player_id == player)


def test_an_officers_k_for_this_period_is_the_k_used() -> None:
    # Player 1 on K 30 by override for this period only beats 2 (K 20):
    # 30 x (1 - 0.5) = +15; 20 x -0.5 = -10. Players 3 and 4 draw, in the arrays.
    result = plan(
        {
            1: start(1800, override=30),
            2: start(1800),
            3: start(1800),
            4: start(1800),
        },
        [(1, 2, "1-0"), (3, 4, "1/2-1/2")],
    )
    assert (row(result, 1).rating_after, row(result, 1).k_factor) == (1815, 30)
    assert row(result, 1).k_reason == KReason.MANUAL
    assert (row(result, 2).rating_after, row(result, 2).k_factor) == (1790, 20)
    assert row(result, 3).rating_after == row(result, 4).rating_after == 1800


def test_an_officers_k_from_next_period_is_the_next_k() -> None:
    # Player 1 plays on K 20 this period (+10) and is set to K 15 from the next one; the
    # officer's own K history row records that, so the plan adds no K change for it.
    result = plan({1: start(1800, override_next=15), 2: start(1800)}, [(1, 2, "1-0")])
    assert row(result, 1).rating_after == 1810
    assert (row(result, 1).k_factor, row(result, 1).k_next.value) == (20, 15)
    assert all(k.player_id != 1 for k in result.k_changes)


def test_a_rapid_player_counted_through_the_standard_rating() -> None:
    # Player 1 is unrated on the rapid list, rated 2000 on the standard list, with 35
    # rated rapid games: rated with 2000 and K 20 (reference section 3). A win over a
    # rapid 2000 (K 20): 20 x (1 - 0.5) = +10, and 1's first rapid rating is 2010.
    result = plan(
        {1: PlayerStart(None, 35, False, [], 1980, None), 2: start(2000)},
        [(1, 2, "1-0")],
        kind=ListKind.RAPID,
        start_ratings={1: 2000, 2: 2000},
        standard={1: 2000},
    )
    assert (row(result, 1).rating_before, row(result, 1).rating_after) == (None, 2010)
    assert (row(result, 1).k_factor, row(result, 1).change) == (20, 10)
    assert row(result, 2).rating_after == 1990
