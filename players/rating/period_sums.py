"""A period's games between two rated players, added up per player in arrays.

The bridge between the close's game columns (player ids, result codes) and
``bulk.table_game_sums`` (player indexes, scores in halves): most of a federation-sized
month goes through here instead of a Python loop over two million game sides. Imports
numpy, so the calculator and the pages (which import ``players.rating``) never load it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from players.rating.bulk import PeriodSumArrays, table_game_sums
from players.rating.period import GAME_RESULTS, PeriodGames, column_array
from players.rating.types import PeriodSums, RatingRules

_HALVES = {"1": 2, "1/2": 1, "0": 0}
_RESULT_CODES = {result: code for code, result in enumerate(GAME_RESULTS)}
# By result code: white's and black's score in halves, and whether the game was played.
_WHITE_HALVES = np.array([_HALVES[w] for w, _, _ in GAME_RESULTS.values()], dtype=np.int64)
_BLACK_HALVES = np.array([_HALVES[b] for _, b, _ in GAME_RESULTS.values()], dtype=np.int64)
_PLAYED = np.array([played for _, _, played in GAME_RESULTS.values()], dtype=np.bool_)


def table_sums(
    columns: PeriodGames,
    start_rating: Mapping[int, int | None],
    this_month: set[int],
    rules: RatingRules,
) -> tuple[PlayerSums, list[int]]:
    """The period's games between two rated players scored with the period-start ratings
    (no tournament, or one begun this month), added up per player by ``table_game_sums``.
    Returns the sums by player id, and the positions of the other games (an unrated side,
    a tournament begun earlier), left to the caller's loop. A game of a player not in
    ``start_rating`` raises KeyError, as the loop would.

    A game stays one row (both sides at once) and the games left to the loop are only
    masked, not taken out: a million games made a dozen two-million-row temporaries, and
    the first touch of that much fresh memory was most of the time.
    """
    white_col, black_col, result_col, rated_col, tournament_col = columns
    count = len(white_col)
    ids = sorted(start_rating)
    id_array = np.array(ids, dtype=np.int64)
    own = np.array([-1 if (r := start_rating[pid]) is None else r for pid in ids], dtype=np.int64)

    # Player id -> position in ids: a direct table when the ids are dense enough (ids of
    # one list usually are), else a binary search.
    low, high = (ids[0], ids[-1]) if ids else (0, -1)
    table: np.ndarray[Any, np.dtype[np.intp]] | None = None
    if high - low < 4 * len(ids) + 1_000_000:
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[id_array - low] = np.arange(len(ids), dtype=np.intp)

    def positions(column: Any) -> np.ndarray[Any, np.dtype[np.intp]]:
        values = _ints(column)
        if table is not None and (
            not len(values) or (values.min() >= low and values.max() <= high)
        ):
            found = table.take(values - low)
            missing = found < 0
        elif table is not None:
            inside = (values >= low) & (values <= high)
            found = np.full(len(values), -1, dtype=np.intp)
            found[inside] = table[values[inside] - low]
            missing = found < 0
        else:
            found = np.searchsorted(id_array, values)
            missing = found >= len(ids)
            missing[~missing] = id_array[found[~missing]] != values[~missing]
        if missing.any():
            raise KeyError(int(values[missing][0]))
        return found

    white, black = positions(white_col), positions(black_col)
    codes = column_array(result_col)
    if codes is None:
        codes = np.fromiter(map(_RESULT_CODES.__getitem__, result_col), dtype=np.intp, count=count)
    white_own, black_own = own.take(white), own.take(black)
    simple = (white_own >= 0) & (black_own >= 0)
    simple &= _in_month(tournament_col, this_month, count)
    rated = column_array(rated_col)
    if rated is None:
        rated = np.array(rated_col, dtype=np.bool_)
    totals = table_game_sums(
        white=white,
        black=black,
        white_own=white_own,
        black_own=black_own,
        white_halves=_WHITE_HALVES.take(codes),
        black_halves=_BLACK_HALVES.take(codes),
        # The loop's games stay in the rows, not counted here.
        played=simple & _PLAYED.take(codes) & rated,
        players=len(ids),
        rules=rules,
    )
    return PlayerSums(id_array, totals), np.flatnonzero(~simple).tolist()


def _ints(column: Sequence[int]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """A column of player ids as an int64 array: the read's own array where it has one."""
    held = column_array(column)
    return np.array(column, dtype=np.int64) if held is None else held


def _in_month(
    tournament_col: Sequence[int | None], this_month: set[int], count: int
) -> np.ndarray[Any, np.dtype[np.bool_]] | bool:
    """Whether each game is outside tournaments or in one begun this month (True: all)."""
    held: np.ndarray[Any, np.dtype[np.int64]] | None = column_array(tournament_col)
    if held is not None:  # the read's ids, 0 for none
        outside: np.ndarray[Any, np.dtype[np.bool_]] = held == 0
        if outside.all():
            return True
        inside = np.isin(held, np.fromiter(this_month, dtype=np.int64, count=len(this_month)))
        return outside | inside
    # list.count runs in C: most months' games are mostly outside tournaments.
    if list(tournament_col).count(None) == count:
        return True
    return np.fromiter(
        (t is None or t in this_month for t in tournament_col), dtype=np.bool_, count=count
    )


class PlayerSums(Mapping[int, PeriodSums]):
    """The sums by player id, of the players with rated games in them, kept as the arrays
    they came in: the array finish takes its players' sums as arrays (``columns``)
    without 200,000 tuples made and taken apart again; the loop reads one at a time.
    ``ids``: the players' ids in order, each sum's position."""

    def __init__(self, ids: np.ndarray[Any, np.dtype[np.int64]], totals: PeriodSumArrays) -> None:
        self._ids = ids
        self._totals = totals
        self._played: set[int] | None = None

    def _at(self, player_ids: np.ndarray[Any, np.dtype[np.int64]]) -> np.ndarray[Any, Any]:
        """The positions of ``player_ids`` in ids (KeyError: one is not there)."""
        at = np.searchsorted(self._ids, player_ids)
        at[at >= len(self._ids)] = 0
        absent = self._ids[at] != player_ids if len(self._ids) else np.ones(len(at), np.bool_)
        if absent.any():
            raise KeyError(int(player_ids[absent][0]))
        return at

    def __getitem__(self, player_id: int) -> PeriodSums:
        if player_id not in self._players():
            raise KeyError(player_id)
        i = int(np.searchsorted(self._ids, player_id))
        games, halves, expected = self._totals
        return PeriodSums(int(games[i]), int(halves[i]), int(expected[i]))

    def _players(self) -> set[int]:
        """The ids of the players with rated games here (made on first use: the close's
        array finish takes columns, only the loop asks)."""
        if self._played is None:
            self._played = set(self._ids[self._totals.games > 0].tolist())
        return self._played

    def __iter__(self) -> Iterator[int]:
        return iter(self._players())

    def __len__(self) -> int:
        return len(self._players())

    def columns(self, ids: Sequence[int]) -> PeriodSumArrays:
        """The sums of ``ids`` (each of the players summed; 0 for one without games)."""
        at = self._at(np.array(ids, dtype=np.int64))
        games, halves, expected = self._totals
        return PeriodSumArrays(games[at], halves[at], expected[at])
