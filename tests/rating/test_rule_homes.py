"""Rules the close's plan and the engine share, each written once: reaching 2400 (FIDE 8.3.3
rule 1), the games toward a first rating (8.2.1) and the Elo formula."""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest

from players.rating import ExpectedMethod, GameInput, KReason, ListKind
from players.rating.expected import elo_formula, expected_from_formula
from players.rating.first_rating import first_rating, first_rating_games
from players.rating.k_factor import has_reached_2400
from players.rating.period import (
    ListSettings,
    PeriodEvent,
    PeriodGames,
    PeriodInputs,
    PlayerStart,
)
from players.rating.systems import elo

STANDARD = ListSettings(
    system="fide",
    kind=ListKind.STANDARD,
    method=ExpectedMethod.FIDE_TABLE,
    apply_400_rule=True,
    fixed_k=None,
    floor=1400,
    adjust_march_2024=False,
)


@pytest.mark.parametrize(
    ("before", "rating", "reached"),
    [
        (False, 2399, False),
        (False, 2400, True),
        (False, None, False),
        (True, None, True),  # for good: dropping off the list does not undo it
        (True, 1500, True),
    ],
)
def test_has_reached_2400(before: bool, rating: int | None, reached: bool) -> None:
    assert has_reached_2400(before, rating) is reached


def _start(rating: int | None) -> PlayerStart:
    # 40 rated games, no birth year: K 20 by FIDE 8.3.3 while under 2400.
    return PlayerStart(
        rating=rating, rated_games=40, reached_2400=False, pool=[], birth_year=None, k_override=None
    )


def test_the_plan_reaches_2400_at_exactly_2400() -> None:
    # Two games between equals: PD 0.50, K 20, so a win is 20 x (1 - 0.50) = +10. Player 1
    # goes 2390 -> 2400 and has reached 2400 (K 10 from the next period); player 3 goes
    # 2389 -> 2399 and has not (K stays 20).
    starts = {1: _start(2390), 2: _start(2390), 3: _start(2389), 4: _start(2389)}
    inputs = PeriodInputs(
        settings=STANDARD,
        month=datetime.date(2026, 10, 1),
        starts=starts,
        start_ratings={pid: start.rating for pid, start in starts.items()},
        games=PeriodGames(
            white=[1, 3],
            black=[2, 4],
            result=["1-0", "1-0"],
            rated=[True, True],
            tournament=[None, None],
        ),
        tournaments={},
        ratings_at={},
    )
    changes = {change.player_id: change for change in elo.plan_period(inputs).changes}
    assert (changes[1].rating_after, changes[1].reached_2400_after) == (2400, True)
    assert (changes[1].k_next.value, changes[1].k_next.reason) == (10, KReason.REACHED_2400)
    assert (changes[3].rating_after, changes[3].reached_2400_after) == (2399, False)
    assert changes[3].k_next.value == 20


def test_first_rating_games_are_played_games_against_rated_opponents() -> None:
    games = [
        GameInput(1700, Fraction(1)),
        GameInput(None, Fraction(1)),  # unrated opponent
        GameInput(1800, Fraction(1), played=False),  # forfeit
        GameInput(1900, Fraction(1, 2)),
    ]
    assert first_rating_games(games) == [(1700, Fraction(1)), (1900, Fraction(1, 2))]


def test_an_unrated_player_records_only_the_games_toward_a_first_rating() -> None:
    # Player 1 is unrated: a win against a rated 1800, a draw against an unrated player and
    # a forfeit win. Only the first counts (8.2.1): 1 game, 1 point, no first rating yet.
    starts = {1: _start(None), 2: _start(1800), 3: _start(None)}
    starts[1] = starts[1]._replace(rated_games=0)
    inputs = PeriodInputs(
        settings=STANDARD,
        month=datetime.date(2026, 10, 1),
        starts=starts,
        start_ratings={pid: start.rating for pid, start in starts.items()},
        games=PeriodGames(
            white=[1, 1, 1],
            black=[2, 3, 2],
            result=["1-0", "1/2-1/2", "+-"],
            rated=[True, True, True],
            tournament=[None, None, None],
        ),
        tournaments={},
        ratings_at={},
    )
    change = next(c for c in elo.plan_period(inputs).changes if c.player_id == 1)
    assert (change.event, change.games, change.score) == (
        PeriodEvent.NOT_YET_RATED,
        1,
        Fraction(1),
    )


def test_the_elo_formula_is_the_cached_one_at_whole_differences() -> None:
    assert elo_formula(0) == 0.5
    # 400 above: 1 / (1 + 10^-1) = 10/11.
    assert elo_formula(400.0) == pytest.approx(10 / 11, abs=1e-15)
    for difference in range(-1500, 1501):
        assert elo_formula(float(difference)) == expected_from_formula(difference)


@pytest.mark.parametrize(
    ("opponents", "published"),
    [
        # Five games, one win: p = (1 + 1) / 7 = 28.6% -> 29%, dp(.29) = -dp(.71) = -158.
        # Opponents summing to 7306: Ra = (7306 + 3600) / 7 = 1558, Ru = 1400: published.
        ([1462, 1461, 1461, 1461, 1461], 1400),
        # Summing to 7299: Ra = 10899 / 7 = 1557, Ru = 1399: below FIDE's floor.
        ([1461, 1461, 1461, 1461, 1455], None),
    ],
)
def test_a_first_rating_is_published_from_exactly_1400(
    opponents: list[int], published: int | None
) -> None:
    scores = [Fraction(1)] + [Fraction(0)] * 4
    result = first_rating([[GameInput(o, s) for o, s in zip(opponents, scores, strict=True)]])
    assert result.rating == published
