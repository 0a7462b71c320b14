"""The close's game columns onto the array sums: players found by id (a direct table for
dense ids, a binary search for sparse ones), games left to the loop, and a player who is
not on the list refused as the loop would."""

from __future__ import annotations

import pytest

from players.rating import RatingRules
from players.rating.period import PeriodGames
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
