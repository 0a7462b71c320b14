"""The close's game columns onto the array sums: players found by id (a direct table for
dense ids, a binary search for sparse ones), games left to the loop, and a player who is
not on the list refused as the loop would."""

from __future__ import annotations

import numpy as np
import pytest

from players.rating import RatingRules
from players.rating.period import GAME_RESULTS, ArrayColumn, PeriodGames
from players.rating.period_sums import table_sums


def games(
    white: list[int],
    black: list[int],
    results: list[str],
    tournament: list[int | None] | None = None,
) -> PeriodGames:
    return PeriodGames(
        white=white,
        black=black,
        result=results,
        rated=[True] * len(white),
        tournament=tournament or [None] * len(white),
    )


@pytest.mark.parametrize("spread", [1, 2, 10**9], ids=["dense ids", "ids with gaps", "sparse ids"])
def test_players_are_found_by_id(spread: int) -> None:
    a, b, c = 5, 5 + spread, 5 + 2 * spread
    columns = games([a, b, c, a], [b, c, a, c], ["1-0", "1/2-1/2", "0-1", "+-"])
    sums, rest = table_sums(columns, {a: 1800, b: 1700, c: None}, set(), RatingRules())
    # Game 0 (a 1800 beats b 1700, D 100: PD .64 / .36) is the only one between two rated
    # players that counts; game 3 is a forfeit between a and unrated c, left to the loop
    # like games 1 and 2.
    assert sums == {a: (1, 2, 64), b: (1, 0, 36)}
    assert rest == [1, 2, 3]


@pytest.mark.parametrize("spread", [1, 2, 10**9], ids=["dense ids", "ids with gaps", "sparse ids"])
def test_a_player_not_on_the_list_is_refused(spread: int) -> None:
    a, b = 5, 5 + 2 * spread
    for stranger in (a - 1, a + spread, b + 1, b + 10**6):  # below, between, above the ids
        columns = games([a, stranger], [b, a], ["1-0", "0-1"])
        with pytest.raises(KeyError) as refused:
            table_sums(columns, {a: 1800, b: 1700}, set(), RatingRules())
        assert refused.value.args == (stranger,)


def test_tournaments_begun_earlier_go_to_the_loop() -> None:
    # Tournament 1 began this month (its games are summed); tournament 2 began earlier (its
    # games use other ratings: the loop's).
    columns = games([1, 1, 1], [2, 2, 2], ["1-0", "1-0", "1-0"], [None, 1, 2])
    sums, rest = table_sums(columns, {1: 1800, 2: 1800}, {1}, RatingRules())
    assert sums == {1: (2, 4, 100), 2: (2, 0, 100)}
    assert rest == [2]


def _as_arrays(columns: PeriodGames) -> PeriodGames:
    """The columns as the close's read hands them over on PostgreSQL (period.ArrayColumn)."""
    codes = {result: code for code, result in enumerate(GAME_RESULTS)}
    names = np.array(list(GAME_RESULTS), dtype=object)

    def tournaments(ids: np.ndarray) -> list[int | None]:
        return [None if t == 0 else t for t in ids.tolist()]

    return PeriodGames(
        white=ArrayColumn(np.array(columns.white, dtype=np.int64)),
        black=ArrayColumn(np.array(columns.black, dtype=np.int64)),
        result=ArrayColumn(
            np.array([codes[r] for r in columns.result], dtype=np.intp),
            lambda held: names[held].tolist(),
        ),
        rated=ArrayColumn(np.array(columns.rated, dtype=np.bool_)),
        tournament=ArrayColumn(
            np.array([t or 0 for t in columns.tournament], dtype=np.int64), tournaments
        ),
    )


def test_array_columns_sum_as_lists_do() -> None:
    # Every result, rated or not, outside tournaments and in one begun this month (7) or
    # earlier (8): the arrays read straight from the columns give what the lists give.
    results = list(GAME_RESULTS) * 2
    count = len(results)
    columns = PeriodGames(
        white=[1, 2, 3] * (count // 3),
        black=[2, 3, 1] * (count // 3),
        result=results,
        rated=[True, False] * (count // 2),
        tournament=[None, 7, 8] * (count // 3),
    )
    ratings = {1: 1800, 2: 1650, 3: 2100}
    held = _as_arrays(columns)

    for begun_this_month in ({7}, set()):
        sums, rest = table_sums(held, ratings, begun_this_month, RatingRules())
        assert (sums, rest) == table_sums(columns, ratings, begun_this_month, RatingRules())
        # The games of the tournament begun earlier (8), and of 7 when it did too.
        assert rest == ([2, 5, 8, 11] if begun_this_month else [1, 2, 4, 5, 7, 8, 10, 11])
    assert sums


def test_an_array_column_reads_as_its_list() -> None:
    held = _as_arrays(games([5, 6, 7], [6, 7, 5], ["1-0", "+-", "1/2-1/2"], [None, 4, None]))

    assert held == games([5, 6, 7], [6, 7, 5], ["1-0", "+-", "1/2-1/2"], [None, 4, None])
    assert [type(value) for value in held.white] == [int, int, int]
    assert held.result.take([2, 0]) == ["1/2-1/2", "1-0"]
    assert held.tournament.take([0, 1]) == [None, 4]
    assert held.tournament.take([]) == []
    assert held.tournament.count(None) == 2
    assert 4 in held.tournament
    assert list(zip(*held, strict=True))[1] == (6, 7, "+-", True, 4)
    assert np.asarray(held.white).tolist() == [5, 6, 7]
    assert np.asarray(held.result).tolist() == ["1-0", "+-", "1/2-1/2"]
