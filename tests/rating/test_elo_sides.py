"""The Elo plan's scalar path sorts each game's two sides (elo_games.sort_games): each side
keeps its own score and whether the game counts, even where the same pair meets twice in a
month, and the events of an unrated player are taken in the order they began. Figures by
hand: FIDE table, two players rated 1800 expect 0.50 each (8.1.2), K 20 (8.3.3, 30 or more
rated games, under 2400).
"""

from __future__ import annotations

import datetime
from fractions import Fraction

from players.rating.fide_rules import BY_DATE
from players.rating.period import (
    PeriodGames,
    PeriodInputs,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import elo
from tests.rating.elo_helpers import fide_standard, start

OCT = datetime.date(2026, 10, 1)
SETTINGS = fide_standard(floor=1400)


def changes(
    games: list[tuple[int, int, str, bool, int | None]],
    starts: dict[int, PlayerStart],
    tournaments: dict[int, tuple[datetime.date, datetime.date]] | None = None,
    ratings_at: dict[datetime.date, dict[int, int | None]] | None = None,
) -> dict[int, tuple[int | None, int]]:
    """(rating after, games) per player; ``games``: (white, black, result, rated, event)."""
    plan = elo.plan_period(
        PeriodInputs(
            settings=SETTINGS,
            month=OCT,
            starts=starts,
            start_ratings={pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[g[0] for g in games],
                black=[g[1] for g in games],
                result=[g[2] for g in games],
                rated=[g[3] for g in games],
                tournament=[g[4] for g in games],
            ),
            tournaments=tournaments or {},
            ratings_at=ratings_at or {},
        )
    )
    return {c.player_id: (c.rating_after, c.games) for c in plan.changes}


def test_two_games_of_one_pair_keep_their_own_scores() -> None:
    # Player 2 has black twice against 1: a loss and a draw, 0.5 points from 2 games,
    # expected 1.00: 20 x (0.5 - 1.0) = -10. Player 1: 20 x (1.5 - 1.0) = +10.
    result = changes(
        [(1, 2, "1-0", True, None), (1, 2, "1/2-1/2", True, None)],
        {1: start(1800), 2: start(1800)},
    )
    assert result == {1: (1810, 2), 2: (1790, 2)}


def test_a_game_marked_not_rated_does_not_count_beside_a_rated_one() -> None:
    # 1 beats 2 twice; only the first game is rated: one game, 20 x (1 - 0.5) = +10.
    result = changes(
        [(1, 2, "1-0", True, None), (1, 2, "1-0", False, None)],
        {1: start(1800), 2: start(1800)},
    )
    assert result == {1: (1810, 1), 2: (1790, 1)}


def test_a_tournament_begun_on_the_first_comes_before_the_months_other_games() -> None:
    # Unrated player 1: a tournament begun on 1 October, all 5 lost, and 5 draws outside
    # tournaments in October. The tournament began first: a zero first event, disregarded
    # (8.2). The draws alone: Ra = (5 x 1800 + 2 x 1800) / 7 = 1800, p = 3.5 / 7 = 50%,
    # dp 0: Ru = 1800 from 5 games. (Taken the other way round, all 10 games would count:
    # 2.5 points, p = 3.5 / 12 = 29%, and a lower first rating.)
    opponents = {pid: start(1800) for pid in range(11, 21)}
    losses = [(1, 11 + i, "0-1", True, 7) for i in range(5)]
    draws = [(1, 16 + i, "1/2-1/2", True, None) for i in range(5)]
    result = changes(
        losses + draws,
        {1: start(None, games=0), **opponents},
        tournaments={7: (OCT, datetime.date(2026, 10, 5))},
    )
    assert result[1] == (1800, 5)


def test_both_sides_of_a_tournament_begun_last_month_use_that_months_ratings() -> None:
    # A tournament begun on 20 September, a game of it played in October. White (3) was
    # 1800 on the September list and is 1900 now; black (4) 1800 then and 1850 now. The
    # game is scored with September's list for both (8.2.4): 1800 v 1800, 0.50 each.
    # Black wins: 4 gets 20 x (1 - 0.5) = +10 -> 1860, 3 gets -10 -> 1890. (Black with
    # the October 1850 against 1800 would expect 0.57: +8.6 -> 1859.)
    sep = datetime.date(2026, 9, 1)
    result = changes(
        [(3, 4, "0-1", True, 7)],
        {3: start(1900), 4: start(1850)},
        tournaments={7: (datetime.date(2026, 9, 20), datetime.date(2026, 10, 4))},
        ratings_at={sep: {3: 1800, 4: 1800}},
    )
    assert result == {3: (1890, 1), 4: (1860, 1)}


# FIDE's rules by date: a tournament begun in September 2025 (before the 2650 exception of
# October 2025) keeps September's per-game rules when its games are rated in October
# (elo_games.Sides.side_under), and each side is still scored with the ratings in force at
# the tournament's start (8.2.4).
SEP25, OCT25 = datetime.date(2025, 9, 1), datetime.date(2025, 10, 1)
BY_DATE_SETTINGS = fide_standard(floor=1400, fide_rules=BY_DATE).for_month(OCT25)


def plan_by_date(
    starts: dict[int, PlayerStart],
    at_tournament_start: dict[int, int | None],
    games: list[tuple[int, int, str]],
) -> dict[int, PlannedChange]:
    plan = elo.plan_period(
        PeriodInputs(
            settings=BY_DATE_SETTINGS,
            month=OCT25,
            starts=starts,
            start_ratings={pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[g[0] for g in games],
                black=[g[1] for g in games],
                result=[g[2] for g in games],
                rated=[True for _ in games],
                tournament=[7 for _ in games],
            ),
            tournaments={7: (datetime.date(2025, 9, 27), datetime.date(2025, 10, 5))},
            ratings_at={SEP25: at_tournament_start},
        )
    )
    return {c.player_id: c for c in plan.changes}


def test_a_tournament_under_earlier_rules_scores_with_the_ratings_at_its_start() -> None:
    # Player 1 is 1800 on October's list but was 1700 when the tournament began; player 2
    # 1750 throughout. The win is scored 1700 v 1750: -50 points, expected 0.43 (table),
    # K 20: +11.4 -> +11. Scored with 1800 it would be +50, 0.57, +8.6 -> +9.
    starts = {1: start(1800), 2: start(1750)}
    changes = plan_by_date(starts, {1: 1700, 2: 1750}, [(1, 2, "1-0")])
    assert (changes[1].rating_after, changes[1].expected) == (1811, Fraction(43, 100))
    assert (changes[2].rating_after, changes[2].expected) == (1739, Fraction(57, 100))


def test_an_unrated_players_game_under_earlier_rules_joins_their_pool() -> None:
    starts = {1: start(None, games=0), 2: start(1750)}
    changes = plan_by_date(starts, {1: None, 2: 1750}, [(1, 2, "1-0")])
    assert (changes[1].rating_after, changes[1].games) == (None, 1)
    assert changes[1].pool_after == [
        {"event": "t7", "month": "2025-10", "games": [[1750, "1", True]]}
    ]
