"""The Elo plan's rarer paths, without a database: games scored with an older own rating
(a tournament begun before a list on which the player's rating changed, FIDE 8.2.4), a
tournament begun under other FIDE rules (fide_rules: it keeps the rules of its start),
months of the one-upgrade cap (January 2022 to February 2024, every game then goes
through the per-side path), a player with games in two groups, and K changes of juniors.

Figures by hand from table 8.1.2 (../shared/reference/fide-rules.md): D 0 -> .50,
-10 -> .49, 50 -> .57, 400 -> .92, 500 -> .96. Everyone was born in 1980 and has 50
rated games (K 20) unless a test says otherwise.
"""

from __future__ import annotations

import datetime
from fractions import Fraction

from players.rating import KChangeReason, KFactor, KReason
from players.rating.fide_rules import BY_DATE
from players.rating.period import (
    PeriodEvent,
    PeriodGames,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import elo
from tests.rating.elo_helpers import fide_standard, start

D = datetime.date
Game = tuple[int, int, str, int | None]


def plan(
    month: datetime.date,
    starts: dict[int, PlayerStart],
    games: list[Game],
    *,
    tournaments: dict[int, datetime.date] | None = None,
    ratings_at: dict[datetime.date, dict[int, int | None]] | None = None,
    fide_rules: str | None = BY_DATE,
) -> PeriodPlan:
    """``games``: (white, black, result, tournament id or None); ``tournaments``: id ->
    start date."""
    return elo.plan_period(
        PeriodInputs(
            settings=fide_standard(floor=1000, fide_rules=fide_rules),
            month=month,
            starts=starts,
            start_ratings={pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[g[0] for g in games],
                black=[g[1] for g in games],
                result=[g[2] for g in games],
                rated=[True] * len(games),
                tournament=[g[3] for g in games],
            ),
            tournaments={tid: (day, day) for tid, day in (tournaments or {}).items()},
            ratings_at=ratings_at or {},
        )
    )


def by_player(result: PeriodPlan) -> dict[int, PlannedChange]:
    return {change.player_id: change for change in result.changes}


def test_a_forfeit_scored_with_an_older_own_rating_is_not_rated() -> None:
    # October 2026. Player 1 was 1800 when tournament 7 began in September and is 1810
    # now: the tournament's games use 1800. A forfeit win there is no rated game (8.2).
    starts = {1: start(1810), 2: start(1800)}
    changes = by_player(
        plan(
            D(2026, 10, 1),
            starts,
            [(1, 2, "+-", 7)],
            tournaments={7: D(2026, 9, 20)},
            ratings_at={D(2026, 9, 1): {1: 1800, 2: 1800}},
            fide_rules=None,
        )
    )
    assert (changes[1].games, changes[1].event, changes[1].rating_after) == (
        0,
        PeriodEvent.NO_RATED_GAMES,
        1810,
    )


def test_a_month_of_the_one_upgrade_cap_scores_older_ratings_and_pools_unrated_games() -> None:
    # May 2023: the one-upgrade cap is in force, and 1 (2000) loses it in one of two wins
    # against 1500 and 1450 (test_cap_once_per_event), so every game of the month goes
    # through the per-side path.
    # Tournament 8 began in April, when 10 was 1700 (1750 now) and 11 was 1700: 10 beats
    # 11 with white and with black, each time D 0 -> .50: 2 - 1.00 = 1, 20 x 1 = +20 ->
    # 1770 (with 1750, D 50 -> .57 would give 20 x .86 = 17.2 -> 1767). 11: 20 x -1 = -20.
    # 5, unrated, draws 6 with white and with black: two games toward a first rating.
    ratings = {1: 2000, 2: 1500, 3: 1450, 5: None, 6: 1600, 10: 1750, 11: 1700}
    games: list[Game] = [
        (1, 2, "1-0", 7),
        (1, 3, "1-0", 7),
        (10, 11, "1-0", 8),
        (11, 10, "0-1", 8),
        (5, 6, "1/2-1/2", None),
        (6, 5, "1/2-1/2", None),
    ]
    result = plan(
        D(2023, 5, 1),
        {pid: start(r) for pid, r in ratings.items()},
        games,
        tournaments={7: D(2023, 5, 10), 8: D(2023, 4, 20)},
        ratings_at={D(2023, 4, 1): {**ratings, 10: 1700}},
    )
    changes = by_player(result)
    assert result.games_count == 6
    assert (changes[10].expected, changes[10].rating_after) == (1, 1770)
    assert (changes[11].expected, changes[11].rating_after) == (1, 1680)
    assert (changes[5].event, changes[5].games, changes[5].score) == (
        PeriodEvent.NOT_YET_RATED,
        2,
        Fraction(1),
    )
    # The draws with an unrated player are not rated for 6 (8.2).
    assert changes[6].event is PeriodEvent.NO_RATED_GAMES


def test_the_black_side_keeps_the_rules_its_tournament_began_under() -> None:
    # October 2025: a player rated 2650 or more counts the full difference. Tournament 7
    # began in September, under the 400-point cap for everyone: 1 (2700, K 10) beats 2
    # (2200) with black, D 500 counts as 400 -> .92, 10 x .08 = 0.8 -> +1 -> 2701.
    # (October's rule would give .96, 10 x .04 = 0.4 -> 0.)
    ratings: dict[int, int | None] = {1: 2700, 2: 2200}
    changes = by_player(
        plan(
            D(2025, 10, 1),
            {pid: start(r) for pid, r in ratings.items()},
            [(2, 1, "0-1", 7)],
            tournaments={7: D(2025, 9, 25)},
            ratings_at={D(2025, 9, 1): ratings},
        )
    )
    assert (changes[1].expected, changes[1].rating_after) == (Fraction(92, 100), 2701)


def test_a_players_games_in_two_groups_before_the_700_rule() -> None:
    # June 2017, before the 700 rule (July 2017). 1 has 5 rated games (K 40) and was 1790
    # when tournament 7 began in May, 1800 now; 2 is 1800 throughout. 1 draws 2 nine
    # times in the tournament (D -10 -> .49) and nine times outside it (D 0 -> .50):
    # score 9, expected 9 x .49 + 9 x .50 = 8.91, 40 x .09 = 3.6 -> +4 -> 1804. K stays 40
    # though 40 x 18 = 720 (from July 2017: K 38, 38 x .09 = 3.42 -> +3).
    games: list[Game] = [(1, 2, "1/2-1/2", 7)] * 9 + [(1, 2, "1/2-1/2", None)] * 9
    changes = by_player(
        plan(
            D(2017, 6, 1),
            {1: start(1800, games=5), 2: start(1800)},
            games,
            tournaments={7: D(2017, 5, 28)},
            ratings_at={D(2017, 5, 1): {1: 1790, 2: 1800}},
        )
    )
    one = changes[1]
    assert (one.games, one.score, one.expected) == (18, Fraction(9), Fraction(891, 100))
    assert (one.k_factor, one.rating_after) == (40, 1804)


def test_a_junior_who_reaches_2300_changes_k_for_that_reason() -> None:
    # October 2026. 1, born 2010 (16), 2290: junior K 40. A win against 2290 (D 0 -> .50):
    # 40 x .5 = +20 -> 2310. Still of junior age next year but at 2300 or more: K 20,
    # because the rating reached 2300 (not because the junior turned 19).
    starts = {1: start(2290, born=2010), 2: start(2290)}
    result = plan(D(2026, 10, 1), starts, [(1, 2, "1-0", None)], fide_rules=None)
    assert by_player(result)[1].rating_after == 2310
    k_change = next(change for change in result.k_changes if change.player_id == 1)
    assert (k_change.old, k_change.new, k_change.reason) == (
        KFactor(40, KReason.JUNIOR),
        KFactor(20, KReason.STANDARD),
        KChangeReason.JUNIOR_2300,
    )


def test_a_junior_ages_out_at_the_2014_rules_limit() -> None:
    # FIDE's 2014 rules (to June 2017): junior K to the end of the year of the 17th
    # birthday. Born 1998: a junior in 2015 (K 40), not in 2016 (17 < 2016 - 1998): K 20
    # from January because of age, though today's limit (18) would still count 2016.
    starts = {1: start(2000, born=1998)}
    result = plan(D(2015, 12, 1), starts, [])
    k_change = next(change for change in result.k_changes if change.player_id == 1)
    assert (k_change.old, k_change.new, k_change.reason) == (
        KFactor(40, KReason.JUNIOR),
        KFactor(20, KReason.STANDARD),
        KChangeReason.TURNED_19,
    )
