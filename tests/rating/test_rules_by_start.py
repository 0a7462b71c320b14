"""FIDE's rules by a tournament's start, for a player's whole period (section 10 of
shared/reference/fide-rules.md: "an event spanning a month end keeps the rules of its
start"): for every dated change of the timeline, a tournament begun the day before and
played in the month of the change is rated as under the old rule set (K and its rules,
the 700 rule, the floor, the first-rating formula, the per-game caps), one begun on the
day as under the new one."""

from __future__ import annotations

import datetime
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pytest

from players.rating import ListKind
from players.rating.fide_rules import BY_DATE, RULE_SETS
from players.rating.period import PeriodGames, PeriodInputs, PeriodPlan, PlayerStart
from players.rating.systems.elo import plan_period
from tests.rating.elo_helpers import fide_standard, start

D = datetime.date
TOURNAMENT = 7

# Each player shows at least one rule (ids in the order the games below use them):
# 1 newcomer, 1 of 5 against 1500s (2014 formula 1260 with floor 1000; 2024's 1428);
# 10 at 1405 losing to an equal (1395: kept over floor 1000, dropped under 1400);
# 20 with 10 rated games and 20 to play (K 40: the 700 rule gives 35; rapid before
# October 2022: K 20); 30 born in the year of the change minus 18 (junior under the 2017
# rules only); 40 at 2000 against two 1500s (the cap in one game per event, 2022-01 to
# 2024-02); 50 at 2700 against 2050 (the 2650 exception from October 2025; a rapid game
# 600+ apart with a player above 2600 is not rated from December 2024).
_OPPONENTS_1500 = [2, 3, 4, 5, 6]


def _starts(year: int) -> dict[int, PlayerStart]:
    starts = {1: start(None, games=0), 10: start(1405), 11: start(1405)}
    starts.update({pid: start(1500) for pid in _OPPONENTS_1500})
    starts.update({20: start(1800, games=10), 21: start(1800)})
    starts.update({30: start(2000, born=year - 18), 31: start(2000)})
    starts.update({40: start(2000), 41: start(1500), 42: start(1500)})
    starts.update({50: start(2700), 51: start(2050)})
    return starts


def _games() -> list[tuple[int, int, str]]:
    games = [(1, opponent, "1-0" if opponent == 2 else "0-1") for opponent in _OPPONENTS_1500]
    games.append((10, 11, "0-1"))
    games += [(20, 21, "1/2-1/2")] * 20
    games.append((30, 31, "0-1"))
    games += [(40, 41, "1-0"), (40, 42, "1-0")]
    games.append((50, 51, "1-0"))
    return games


def _settings(kind: ListKind, rules: str) -> Any:
    return replace(fide_standard(floor=1400, fide_rules=rules), kind=kind)


def _plan(kind: ListKind, rules: str, month: D, began: D) -> PeriodPlan:
    starts = _starts(month.year)
    ratings = {pid: s.rating for pid, s in starts.items()}
    games = _games()
    inputs = PeriodInputs(
        settings=_settings(kind, rules),
        month=month,
        starts=starts,
        start_ratings=ratings,
        games=PeriodGames(
            white=[w for w, _, _ in games],
            black=[b for _, b, _ in games],
            result=[r for _, _, r in games],
            rated=[True] * len(games),
            tournament=[TOURNAMENT] * len(games),
        ),
        tournaments={TOURNAMENT: (began, month.replace(day=5))},
        ratings_at={began.replace(day=1): ratings} if began < month else {},
    )
    return plan_period(inputs)


def _published(plan: PeriodPlan) -> dict[int, tuple[Any, ...]]:
    """What the close records for each player's period (the next K aside: the list's
    rules from the next month, whatever the period's events began under)."""
    return {
        c.player_id: (
            c.rating_after,
            c.change,
            c.change_unrounded,
            c.k_factor,
            c.k_reason,
            c.games,
            c.score,
            c.event,
            c.pool_after,
        )
        for c in plan.changes
    }


# The list kind on which each change shows (2022-10 and 2024-12 change rapid and blitz
# only); 2014-07, the first set, has no older one in scope.
_KIND_OF_CHANGE = {"2022-10": ListKind.RAPID, "2024-12": ListKind.RAPID}
CHANGES = list(pairwise(RULE_SETS))


def test_every_dated_change_is_in_the_table() -> None:
    assert [new.name for _, new in CHANGES] == [
        "2017-07",
        "2022-01",
        "2022-10",
        "2024-03",
        "2024-12",
        "2025-10",
    ]


@pytest.mark.parametrize(("old", "new"), CHANGES, ids=[new.name for _, new in CHANGES])
def test_a_tournament_keeps_the_rules_of_its_start(old: Any, new: Any) -> None:
    kind = _KIND_OF_CHANGE.get(new.name, ListKind.STANDARD)
    month = new.since
    day_before = month - datetime.timedelta(days=1)
    under_old = _published(_plan(kind, old.name, month, day_before))
    under_new = _published(_plan(kind, new.name, month, month))
    # The scenario tells the two sets apart, or the test below could not fail.
    assert under_old != under_new
    assert _published(_plan(kind, BY_DATE, month, day_before)) == under_old
    assert _published(_plan(kind, BY_DATE, month, month)) == under_new


def test_the_issue_figures_for_february_2024() -> None:
    # Issue 35: a tournament from 2024-02-25 to 2024-03-03, closed as March 2024.
    plan = _plan(ListKind.STANDARD, BY_DATE, D(2024, 3, 1), D(2024, 2, 25))
    changes = {c.player_id: c for c in plan.changes}
    assert changes[1].rating_after == 1260
    assert changes[10].rating_after == 1395
    assert plan.rules == "FIDE 2024-03"
    begun_in_march = _plan(ListKind.STANDARD, BY_DATE, D(2024, 3, 1), D(2024, 3, 1))
    changes = {c.player_id: c for c in begun_in_march.changes}
    assert changes[1].rating_after == 1428
    assert changes[10].rating_after is None


def test_games_begun_this_month_bring_the_month_rules() -> None:
    # A player with an event begun under the month's rules as well takes the month's:
    # the floor of the list the close publishes.
    starts = _starts(2024)
    ratings = {pid: s.rating for pid, s in starts.items()}
    inputs = PeriodInputs(
        settings=_settings(ListKind.STANDARD, BY_DATE),
        month=D(2024, 3, 1),
        starts=starts,
        start_ratings=ratings,
        games=PeriodGames(
            white=[10, 10],
            black=[11, 11],
            result=["0-1", "1/2-1/2"],
            rated=[True, True],
            tournament=[TOURNAMENT, None],
        ),
        tournaments={TOURNAMENT: (D(2024, 2, 25), D(2024, 3, 3))},
        ratings_at={D(2024, 2, 1): ratings},
    )
    changes = {c.player_id: c for c in plan_period(inputs).changes}
    assert changes[10].change == -10
    assert changes[10].rating_after is None
