"""A period's plan again for the few players some games changed: what the live figures need
after each game of a round, without planning the whole list again.

In the systems this project has, a player's planned change depends on their own games and
on each opponent's start (the ratings in force, the state), never on how an opponent's
period goes: FIDE's rules score a game with the ratings in force at the start, a game
against an unrated opponent does not change a rated player's rating, and a first rating is
computed from the opponents' ratings in force; Glicko-2 rates a period against the
opponents' ratings and deviations before it. So when games change, only their players'
plans change, and each is their plan in the whole period if the system plans them from
the games that involve them (``inputs_for``). A system says so with
``RatingSystem.plans_players_apart``; ``tests/rating/test_replan.py`` holds it against the
whole plan on generated months of each system that does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from players.rating.period import PeriodGames, PeriodInputs, PlannedChange, column_array

GameKey = tuple[Any, ...]
# A period's games as a multiset: a Counter of their keys, or, where the read handed the
# columns over as arrays (``ArrayColumn``, PostgreSQL), an array of one row per game.
GameKeys = Counter[GameKey] | Any


def game_keys(games: PeriodGames) -> GameKeys:
    """The period's games as a multiset of (white, black, result, rated, tournament): two
    equal games are two entries, and a game's order in the period plays no part."""
    arrays = [array for array in map(column_array, games) if array is not None]
    if len(arrays) == len(games):
        # numpy only here: this module is imported by the pages. A Counter of 20,000
        # games' tuples took 40-100 ms, most of it making the columns Python values.
        import numpy as np

        return np.stack([a.astype(np.int64) for a in arrays], axis=1)
    return Counter(
        zip(games.white, games.black, games.result, games.rated, games.tournament, strict=True)
    )


def changed_players(old: GameKeys, new: GameKeys) -> set[int]:
    """The players of a game one multiset has and the other has not (or has fewer times):
    a game entered, deleted, or edited (its old and its new form). Both multisets are of one
    form (``game_keys`` of two reads of the same kind)."""
    if isinstance(old, Counter):
        changed: set[int] = set()
        for key in (old - new) + (new - old):
            changed.add(key[0])
            changed.add(key[1])
        return changed
    import numpy as np

    # Both multisets' rows sorted together, each old row counted +1 and each new one -1:
    # a key whose rows do not add up to 0 is a game one side has more often.
    rows = np.concatenate([old, new])
    signs = np.concatenate([np.ones(len(old), np.int64), -np.ones(len(new), np.int64)])
    if not len(rows):
        return set()
    order = np.lexsort(rows.T[::-1])
    rows, signs = rows[order], signs[order]
    starts = np.flatnonzero(np.r_[True, np.any(rows[1:] != rows[:-1], axis=1)])
    differ = starts[np.add.reduceat(signs, starts) != 0]
    return set(rows[differ, 0].tolist()) | set(rows[differ, 1].tolist())


def inputs_for(inputs: PeriodInputs, players: set[int]) -> PeriodInputs:
    """``inputs`` with only the games that involve one of ``players``, and the starts of
    those games' players and of ``players`` themselves: in a system that plans players
    apart (``RatingSystem.plans_players_apart``), a plan of these gives each of ``players``
    their plan in the whole period."""
    games = inputs.games
    positions = [
        index
        for index, (white, black) in enumerate(zip(games.white, games.black, strict=True))
        if white in players or black in players
    ]
    subset = PeriodGames(*(_taken(column, positions) for column in games))
    playing = set(subset.white) | set(subset.black) | players
    starts = {pid: start for pid, start in inputs.starts.items() if pid in playing}
    return replace(inputs, games=subset, starts=starts)


def _taken(column: Sequence[Any], positions: list[int]) -> list[Any]:
    take = getattr(column, "take", None)
    if take is not None:
        taken: list[Any] = take(positions)
        return taken
    return [column[index] for index in positions]


def changes_of(changes: Iterable[PlannedChange], players: set[int]) -> Mapping[int, PlannedChange]:
    """The planned changes of ``players`` among ``changes``, by player."""
    return {change.player_id: change for change in changes if change.player_id in players}
