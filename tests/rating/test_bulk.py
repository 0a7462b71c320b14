"""table_period_sums (numpy) repeats score_game's rules on arrays: it must add up exactly
what score_game scores, game by game, over the whole input range; and period_change(start=...)
finishes from those sums exactly as from the games."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
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
    list_kinds,
    period_change,
)
from players.rating.bulk import table_game_sums, table_period_sums
from players.rating.differences import score_game
from players.rating.expected import TABLE_LIMIT

HALVES = {0: Fraction(0), 1: Fraction(1, 2), 2: Fraction(1)}
RATING_MAX = 4000

# Every rule edge, on both sides: 2600/2601 (rapid and blitz), 2649/2650 (the standard
# cap), and the list's ends.
EDGE_RATINGS = (0, 1, 1000, 1999, 2000, 2001, 2599, 2600, 2601, 2602, 2649, 2650, 2651, 3999, 4000)
# Every edge of a difference: 3/4 (PD leaves 0.50), 399/400/401 (the cap), 599/600/601 (the
# rapid/blitz gap), 735/736/737 (PD reaches 1.00 at TABLE_LIMIT).
EDGE_GAPS = (0, 1, 3, 4, 399, 400, 401, 599, 600, 601, 735, 736, 737, 1000, 2650, 4000)

# The whole range, with the edges drawn often enough to be hit in every run.
rating_st = st.one_of(st.integers(0, RATING_MAX), st.sampled_from(EDGE_RATINGS))
side_st = st.tuples(
    st.integers(0, 4),  # player index
    st.one_of(st.none(), rating_st),  # opponent rating; None: unrated
    st.integers(0, 2),  # score in halves
    st.booleans(),  # played (False: forfeit or not rated)
)
rules_st = st.builds(
    RatingRules,
    method=st.just(ExpectedMethod.FIDE_TABLE),
    list_kind=st.sampled_from(list(list_kinds())),
    apply_400_rule=st.booleans(),
    # FIDE's rules by date: without the 2650 exception (before October 2025), without the
    # 600/2600 rule (before December 2024).
    exception_2650=st.booleans(),
    fast_gap=st.booleans(),
)
ALL_TABLE_RULES = [
    RatingRules(
        method=ExpectedMethod.FIDE_TABLE,
        list_kind=kind,
        apply_400_rule=cap,
        exception_2650=dated,
        fast_gap=dated,
    )
    for kind in list_kinds()
    for cap in (True, False)
    for dated in (True, False)
]

Side = tuple[int, int | None, int, bool]


def _arrays(own: list[int], sides: list[Side]) -> dict[str, Any]:
    # The close leaves games against unrated opponents out of the arrays.
    rated = [s for s in sides if s[1] is not None]
    return {
        "player": np.array([s[0] for s in rated], dtype=np.intp),
        "own": np.array([own[s[0]] for s in rated], dtype=np.int64),
        "opponent": np.array([s[1] for s in rated], dtype=np.int64),
        "score_halves": np.array([s[2] for s in rated], dtype=np.int64),
        "played": np.array([s[3] for s in rated], dtype=np.bool_),
    }


def _games(sides: list[Side], player: int) -> list[GameInput]:
    return [GameInput(opp, HALVES[h], played) for p, opp, h, played in sides if p == player]


def _scalar_sums(own: int, sides: list[Side], rules: RatingRules) -> tuple[int, int, int]:
    """What score_game gives, game by game, added up: (rated games, halves, hundredths)."""
    games = halves = hundredths = 0
    for _, opponent, score, played in sides:
        _, _, expected, scored_halves, _ = score_game(own, opponent, HALVES[score], played, rules)
        if expected is not None:
            assert isinstance(expected, int)
            games += 1
            halves += scored_halves
            hundredths += expected
    return games, halves, hundredths


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    sides=st.lists(side_st, max_size=60),
    rules=rules_st,
)
def test_sums_equal_score_game_over_the_whole_range(
    own: list[int], sides: list[Side], rules: RatingRules
) -> None:
    totals = table_period_sums(**_arrays(own, sides), players=5, rules=rules)
    for player in range(5):
        mine = [side for side in sides if side[0] == player]
        assert (
            int(totals.games[player]),
            int(totals.score_halves[player]),
            int(totals.expected_hundredths[player]),
        ) == _scalar_sums(own[player], mine, rules)


def _edge_pairs() -> list[tuple[int, int]]:
    pairs = set(product(EDGE_RATINGS, EDGE_RATINGS))
    for own, gap, sign in product(EDGE_RATINGS, EDGE_GAPS, (1, -1)):
        if 0 <= own + sign * gap <= RATING_MAX:
            pairs.add((own, own + sign * gap))
    return sorted(pairs)


EDGE_PAIRS = _edge_pairs()


def test_the_edge_grid_reaches_every_edge() -> None:
    # The exhaustive test below is only as good as its grid.
    assert TABLE_LIMIT == 736
    gaps = {own - opponent for own, opponent in EDGE_PAIRS}
    for gap in (399, 400, 401, 599, 600, 601, 735, 736, 737):
        assert {gap, -gap} <= gaps
    for own in (2600, 2601, 2649, 2650):
        assert {(own, own - 600), (own, own + 600), (own, own - 401), (own, own + 401)} <= set(
            EDGE_PAIRS
        )


def _rules_id(rules: RatingRules) -> str:
    return f"{rules.list_kind}-{'cap' if rules.apply_400_rule else 'no-cap'}"


def _side_by_side(sides: list[tuple[int, int, int, bool]], rules: RatingRules) -> None:
    """One player per game side, so that each player's sums are that side's own score;
    compared with score_game's, side by side."""
    totals = table_period_sums(
        player=np.arange(len(sides), dtype=np.intp),
        own=np.array([s[0] for s in sides], dtype=np.int64),
        opponent=np.array([s[1] for s in sides], dtype=np.int64),
        score_halves=np.array([s[2] for s in sides], dtype=np.int64),
        played=np.array([s[3] for s in sides], dtype=np.bool_),
        players=len(sides),
        rules=rules,
    )
    rated = totals.games.tolist()
    halves = totals.score_halves.tolist()
    hundredths = totals.expected_hundredths.tolist()
    for index, (own, opponent, score, played) in enumerate(sides):
        _, _, expected, scored_halves, _ = score_game(own, opponent, HALVES[score], played, rules)
        assert (rated[index], halves[index], hundredths[index]) == (
            (0, 0, 0) if expected is None else (1, scored_halves, expected)
        ), (own, opponent, score, played)


@pytest.mark.parametrize("rules", ALL_TABLE_RULES, ids=_rules_id)
def test_every_edge_pair_every_score(rules: RatingRules) -> None:
    _side_by_side(
        [
            (own, opponent, halves, played)
            for (own, opponent), halves, played in product(EDGE_PAIRS, (0, 1, 2), (True, False))
        ],
        rules,
    )


@pytest.mark.parametrize("rules", ALL_TABLE_RULES, ids=_rules_id)
def test_every_opponent_of_every_edge_rating(rules: RatingRules) -> None:
    # Each edge rating against every rating from 0 to 4000, on both sides of the board;
    # the score and the played flag cycle so that every combination shows up throughout.
    pairs = [
        pair
        for edge, other in product(EDGE_RATINGS, range(RATING_MAX + 1))
        for pair in ((edge, other), (other, edge))
    ]
    _side_by_side(
        [(own, opponent, i % 3, i % 7 != 0) for i, (own, opponent) in enumerate(pairs)], rules
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    sides=st.lists(side_st, max_size=60),
    rules=rules_st,
    k=st.sampled_from([10, 20, 40]),
)
def test_sums_finish_identically(
    own: list[int], sides: list[Side], rules: RatingRules, k: int
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
        finished = period_change(
            rating=own[player], games=[], k=k, rules=rules, keep_lines=False, start=sums
        )
        assert finished == loop


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    sides=st.lists(side_st, max_size=40),
    cut=st.integers(0, 40),
    rules=rules_st,
)
def test_sums_plus_remaining_games_equal_all_games(
    own: list[int], sides: list[Side], cut: int, rules: RatingRules
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


# table_game_sums: both sides of a game in one row.

game_st = st.tuples(
    st.integers(0, 4),  # white's index
    st.integers(0, 4),  # black's index
    st.integers(0, 2),  # white's score in halves (black's: 2 - it)
    st.booleans(),  # counts (False: a forfeit, not rated, or a side unrated)
)


def _game_columns(own: list[int], games: list[tuple[int, int, int, bool]]) -> dict[str, Any]:
    # A game that does not count may carry any rating: the close's unrated sides hold -1.
    def rating(index: int, counts: bool) -> int:
        return own[index] if counts else -1

    return {
        "white": np.array([g[0] for g in games], dtype=np.intp),
        "black": np.array([g[1] for g in games], dtype=np.intp),
        "white_own": np.array([rating(g[0], g[3]) for g in games], dtype=np.int64),
        "black_own": np.array([rating(g[1], g[3]) for g in games], dtype=np.int64),
        "white_halves": np.array([g[2] for g in games], dtype=np.int64),
        "black_halves": np.array([2 - g[2] for g in games], dtype=np.int64),
        "played": np.array([g[3] for g in games], dtype=np.bool_),
    }


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(
    own=st.lists(rating_st, min_size=5, max_size=5),
    games=st.lists(game_st, max_size=60),
    rules=rules_st,
)
def test_game_sums_equal_the_sums_of_their_sides(
    own: list[int], games: list[tuple[int, int, int, bool]], rules: RatingRules
) -> None:
    counted = [g for g in games if g[3]]
    sides = {
        "player": np.array([g[0] for g in counted] + [g[1] for g in counted], dtype=np.intp),
        "own": np.array([own[g[0]] for g in counted] + [own[g[1]] for g in counted]),
        "opponent": np.array([own[g[1]] for g in counted] + [own[g[0]] for g in counted]),
        "score_halves": np.array([g[2] for g in counted] + [2 - g[2] for g in counted]),
        "played": np.ones(2 * len(counted), dtype=np.bool_),
    }
    for name in ("own", "opponent", "score_halves"):
        sides[name] = sides[name].astype(np.int64)
    by_sides = table_period_sums(**sides, players=5, rules=rules)
    by_games = table_game_sums(**_game_columns(own, games), players=5, rules=rules)
    for mine, theirs in zip(by_games, by_sides, strict=True):
        assert mine.dtype == np.int64
        assert mine.tolist() == theirs.tolist()


@pytest.mark.parametrize("rules", ALL_TABLE_RULES, ids=_rules_id)
def test_game_sums_at_every_edge_pair(rules: RatingRules) -> None:
    # One player per side of each game, so that each player's sums are one side's score.
    games = [(white, black, halves) for (white, black), halves in product(EDGE_PAIRS, (0, 1, 2))]
    count = len(games)
    totals = table_game_sums(
        white=np.arange(count, dtype=np.intp),
        black=np.arange(count, 2 * count, dtype=np.intp),
        white_own=np.array([g[0] for g in games], dtype=np.int64),
        black_own=np.array([g[1] for g in games], dtype=np.int64),
        white_halves=np.array([g[2] for g in games], dtype=np.int64),
        black_halves=np.array([2 - g[2] for g in games], dtype=np.int64),
        played=np.ones(count, dtype=np.bool_),
        players=2 * count,
        rules=rules,
    )
    rated, halves, hundredths = (column.tolist() for column in totals)
    for index, (white, black, score) in enumerate(games):
        for side, own, opponent, mine in (
            (index, white, black, score),
            (count + index, black, white, 2 - score),
        ):
            _, _, expected, scored, _ = score_game(own, opponent, HALVES[mine], True, rules)
            assert (rated[side], halves[side], hundredths[side]) == (
                (0, 0, 0) if expected is None else (1, scored, expected)
            ), (own, opponent, mine)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rules": RatingRules(method=ExpectedMethod.FORMULA)}, "FIDE table"),
        ({"black_halves": np.array([3], dtype=np.int64)}, "1, 1/2 or 0"),
        ({"white": np.array([2], dtype=np.intp)}, "player indexes"),
        ({"black": np.array([-1], dtype=np.intp)}, "player indexes"),
        ({"black_own": np.array([1700, 1600], dtype=np.int64)}, "one value per game"),
    ],
)
def test_bad_game_columns_are_refused(overrides: dict[str, object], message: str) -> None:
    columns: dict[str, Any] = {
        **_game_columns([1800, 1700], [(0, 1, 2, True)]),
        "players": 2,
        "rules": RatingRules(method=ExpectedMethod.FIDE_TABLE, list_kind=ListKind.STANDARD),
    }
    columns.update(overrides)
    with pytest.raises(ValueError, match=message):
        table_game_sums(**columns)
