"""FIDE's one-off adjustments: 1 March 2024, round(0.4 x (2000 - R)) below 2000; 1 October
2022 on rapid and blitz, to 100 below the standard rating."""

from __future__ import annotations

import datetime

import pytest

from players.rating import ExpectedMethod, ListKind, march_2024_adjustment
from players.rating.adjustment import october_2022_adjustment
from players.rating.fide_rules import BY_DATE
from players.rating.period import ListSettings, PeriodGames, PeriodInputs, PlayerStart
from players.rating.systems import elo


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


# FIDE's rapid and blitz one-off of 1 October 2022: more than 100 below the standard
# rating -> raised to standard - 100.
@pytest.mark.parametrize(
    ("rating", "standard", "added"),
    [
        (1500, 1800, 200),
        (1699, 1800, 1),
        (1700, 1800, 0),  # exactly 100 below: not "more than 100"
        (1750, 1800, 0),
        (1900, 1800, 0),  # above the standard rating
        (1500, None, 0),  # no standard rating
    ],
)
def test_october_2022_adjustment(rating: int, standard: int | None, added: int) -> None:
    assert october_2022_adjustment(rating, standard) == added


def _october_plan(
    kind: ListKind, month: datetime.date, fide_rules: str | None = BY_DATE
) -> dict[int, tuple[int | None, int]]:
    """Player 1 (rapid/blitz 1500, standard 1800) and 2 (1750, standard 1800) draw;
    3 (1500) has no standard rating and no game. Rating after and adjustment."""
    settings = ListSettings(
        system="fide",
        kind=kind,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=True,
        fixed_k=None,
        floor=1000,
        adjust_march_2024=True,
        fide_rules=fide_rules,
    )
    ratings = {1: 1500, 2: 1750, 3: 1500}
    plan = elo.plan_period(
        PeriodInputs(
            settings=settings,
            month=month,
            starts={
                pid: PlayerStart(r, 50, False, [], 1980, None, None) for pid, r in ratings.items()
            },
            start_ratings=ratings,
            games=PeriodGames(
                white=[1], black=[2], result=["1/2-1/2"], rated=[True], tournament=[None]
            ),
            tournaments={},
            ratings_at={},
            standard_on_next_list={1: 1800, 2: 1800},
        )
    )
    return {c.player_id: (c.rating_after, c.adjustment) for c in plan.changes}


@pytest.mark.parametrize("kind", [ListKind.RAPID, ListKind.BLITZ])
def test_the_close_of_september_2022_raises_rapid_and_blitz_to_100_below_standard(
    kind: ListKind,
) -> None:
    # The draw: 1500 v 1750, D -250 -> .19 (table 8.1.2), K 20: 20 x (0.5 - 0.19) = +6.2
    # -> 1506, then raised to 1700 (+194). Player 2: 20 x (0.5 - 0.81) = -6.2 -> 1744, 56
    # below standard: kept. Player 3: no standard rating.
    assert _october_plan(kind, datetime.date(2022, 9, 1)) == {
        1: (1700, 194),
        2: (1744, 0),
        3: (1500, 0),
    }


def test_no_raise_in_other_months_on_the_standard_list_or_a_pinned_list() -> None:
    plain = {1: (1506, 0), 2: (1744, 0), 3: (1500, 0)}
    assert _october_plan(ListKind.RAPID, datetime.date(2022, 8, 1)) == plain
    assert _october_plan(ListKind.RAPID, datetime.date(2022, 10, 1)) == plain
    assert _october_plan(ListKind.STANDARD, datetime.date(2022, 9, 1)) == plain
    assert _october_plan(ListKind.RAPID, datetime.date(2022, 9, 1), "2025-10") == plain
    assert _october_plan(ListKind.RAPID, datetime.date(2022, 9, 1), None) == plain
