"""table_period_sums (numpy) adds up exactly what period_change's loop adds up, and
period_change(start=...) finishes from those sums exactly as from the games."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import (
    ExpectedMethod,
    GameInput,
    ListKind,
    PeriodSums,
    RatingRules,
    period_change,
)
from players.rating.bulk import table_period_sums

HALVES = {0: Fraction(0), 1: Fraction(1, 2), 2: Fraction(1)}

# Ratings around the rule edges: 2600 (fast lists), 2650 (standard cap), 600 apart.
rating_st = st.one_of(
    st.integers(1000, 3000), st.sampled_from([2000, 2250, 2600, 2601, 2649, 2650, 2651])
)
side_st = st.tuples(
    st.integers(0, 4),  # player index
    rating_st,  # opponent rating
    st.integers(0, 2),  # score in halves
    st.booleans(),  # played (False: forfeit or not rated)
)
rules_st = st.builds(
    RatingRules,
    method=st.just(ExpectedMethod.FIDE_TABLE),
    list_kind=st.sampled_from(list(ListKind)),
    apply_400_rule=st.booleans(),
)


def _arrays(own: list[int], sides: list[tuple[int, int, int, bool]]) -> dict[str, Any]:
    return {
        "player": np.array([s[0] for s in sides], dtype=np.intp),
        "own": np.array([own[s[0]] for s in sides], dtype=np.int64),
        "opponent": np.array([s[1] for s in sides], dtype=np.int64),
        "score_halves": np.array([s[2] for s in sides], dtype=np.int64),
        "played": np.array([s[3] for s in sides], dtype=np.bool_),
    }


def _games(sides: list[tuple[int, int, int, bool]], player: int) -> list[GameInput]:
    return [GameInput(opp, HALVES[h], played) for p, opp, h, played in sides if p == player]


@settings(max_examples=300)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    sides=st.lists(side_st, max_size=60),
    rules=rules_st,
    k=st.sampled_from([10, 20, 40]),
)
def test_sums_equal_the_loop_and_finish_identically(
    own: list[int], sides: list[tuple[int, int, int, bool]], rules: RatingRules, k: int
) -> None:
    totals = table_period_sums(**_arrays(own, sides), players=5, rules=rules)
    for player in range(5):
        games = _games(sides, player)
        loop = period_change(rating=own[player], games=games, k=k, rules=rules, keep_lines=False)
        sums = PeriodSums(
            int(totals.games[player]),
            int(totals.score_halves[player]),
            int(totals.expected_hundredths[player]),
        )
        assert sums == (loop.games_count, int(loop.score * 2), int(loop.expected * 100))
        finished = period_change(
            rating=own[player], games=[], k=k, rules=rules, keep_lines=False, start=sums
        )
        assert finished == loop


@settings(max_examples=200)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    sides=st.lists(side_st, max_size=40),
    cut=st.integers(0, 40),
    rules=rules_st,
)
def test_sums_plus_remaining_games_equal_all_games(
    own: list[int], sides: list[tuple[int, int, int, bool]], cut: int, rules: RatingRules
) -> None:
    # The close sums most games in arrays and hands the rest to period_change.
    head, tail = sides[:cut], sides[cut:]
    totals = table_period_sums(**_arrays(own, head), players=5, rules=rules)
    for player in range(5):
        start = PeriodSums(
            int(totals.games[player]),
            int(totals.score_halves[player]),
            int(totals.expected_hundredths[player]),
        )
        both = period_change(
            rating=own[player], games=_games(tail, player), k=40, rules=rules, start=start
        )
        alone = period_change(rating=own[player], games=_games(sides, player), k=40, rules=rules)
        assert (both.games_count, both.k, both.score, both.expected, both.change) == (
            alone.games_count,
            alone.k,
            alone.score,
            alone.expected,
            alone.change,
        )
        assert both.change_unrounded == alone.change_unrounded


def test_seed_example_through_the_sums() -> None:
    # Seed 002's worked example: 1850, K 20, five games; the 400-point rule counts 2290 as
    # 2250. Differences add up to 0.99, x 20 = 19.80, rounded to +20: 1870.
    rules = RatingRules(method=ExpectedMethod.FIDE_TABLE, list_kind=ListKind.STANDARD)
    totals = table_period_sums(
        player=np.zeros(5, dtype=np.intp),
        own=np.full(5, 1850, dtype=np.int64),
        opponent=np.array([1792, 1911, 2010, 2290, 1745], dtype=np.int64),
        score_halves=np.array([2, 1, 0, 1, 2], dtype=np.int64),
        played=np.ones(5, dtype=np.bool_),
        players=1,
        rules=rules,
    )
    start = PeriodSums(
        int(totals.games[0]), int(totals.score_halves[0]), int(totals.expected_hundredths[0])
    )
    assert start == (5, 6, 58 + 42 + 29 + 8 + 64)
    change = period_change(rating=1850, games=[], k=20, rules=rules, start=start)
    assert (change.change_unrounded, change.change, change.new_rating) == (
        Fraction(1980, 100),
        20,
        1870,
    )


def _one_side(**overrides: object) -> dict[str, Any]:
    columns: dict[str, Any] = {
        "player": np.array([0], dtype=np.intp),
        "own": np.array([1800], dtype=np.int64),
        "opponent": np.array([1700], dtype=np.int64),
        "score_halves": np.array([2], dtype=np.int64),
        "played": np.array([True]),
        "players": 1,
        "rules": RatingRules(method=ExpectedMethod.FIDE_TABLE, list_kind=ListKind.STANDARD),
    }
    columns.update(overrides)
    return columns


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rules": RatingRules(method=ExpectedMethod.FORMULA)}, "FIDE table"),
        ({"score_halves": np.array([3], dtype=np.int64)}, "1, 1/2 or 0"),
        ({"player": np.array([1], dtype=np.intp)}, "player indexes"),
        ({"opponent": np.array([1700, 1600], dtype=np.int64)}, "one value per game side"),
    ],
)
def test_bad_columns_are_refused(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        table_period_sums(**_one_side(**overrides))


def test_sums_need_the_table() -> None:
    with pytest.raises(ValueError, match="table"):
        period_change(
            rating=1800,
            games=[],
            k=20,
            rules=RatingRules(method=ExpectedMethod.FORMULA),
            start=PeriodSums(1, 2, 64),
        )
