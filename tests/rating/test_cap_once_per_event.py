"""FIDE 8.3.1 from January 2022 to February 2024: "a player may benefit from only one
upgrade under this rule [the 400-point cap], for the game in which the rating difference
is greatest", in each tournament (fide_rules, elo_games._upgrades_after_the_first).

Figures by hand from table 8.1.2 (../shared/reference/fide-rules.md): D 400 -> .92,
500 -> .96 (485-517), 550 -> .97 (518-559), 600 -> .98 (560-619); the lower-rated player
has 1 - PD. Everyone has 50 rated games and was born in 1980: K 20.

Player 1 (2000) beats 2 (1500), 3 (1450) and 4 (1400) in one tournament:
- one upgrade: the 600 game counts 400 (.92), the others in full (.96, .97): expected
  2.85, 20 x (3 - 2.85) = +3.0 -> 2003;
- the cap in every game: 3 x .92 = 2.76, 20 x 0.24 = +4.8 -> +5 -> 2005.
The lower-rated players keep the cap (our reading of the open point): -400 -> .08,
20 x (0 - .08) = -1.6 -> -2.
"""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest

from players.rating import ExpectedMethod, ListKind
from players.rating.differences import CappedSide, cap_lost
from players.rating.fide_rules import BY_DATE, rules_in_force
from players.rating.period import (
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import elo

MAY_2023 = datetime.date(2023, 5, 1)
MARCH_2024 = datetime.date(2024, 3, 1)
RATINGS = {1: 2000, 2: 1500, 3: 1450, 4: 1400}
WINS = [(1, 2, "1-0", 7), (1, 3, "1-0", 7), (1, 4, "1-0", 7)]


def settings(kind: ListKind = ListKind.STANDARD, fide_rules: str = BY_DATE) -> ListSettings:
    return ListSettings(
        system="fide",
        kind=kind,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=True,
        fixed_k=None,
        floor=1400,
        adjust_march_2024=False,
        fide_rules=fide_rules,
    )


def plan(
    games: list[tuple[int, int, str, int | None]],
    *,
    month: datetime.date = MAY_2023,
    began: dict[int, datetime.date] | None = None,
    list_settings: ListSettings | None = None,
    ratings_at: dict[datetime.date, dict[int, int | None]] | None = None,
    ratings: dict[int, int | None] | None = None,
) -> dict[int, PlannedChange]:
    ratings = ratings or RATINGS
    starts = {pid: PlayerStart(r, 50, False, [], 1980, None, None) for pid, r in ratings.items()}
    tournaments = {tid: (day, day) for tid, day in (began or {7: month, 8: month}).items()}
    result = elo.plan_period(
        PeriodInputs(
            settings=list_settings or settings(),
            month=month,
            starts=starts,
            start_ratings=dict(ratings),
            games=PeriodGames(
                white=[g[0] for g in games],
                black=[g[1] for g in games],
                result=[g[2] for g in games],
                rated=[True for _ in games],
                tournament=[g[3] for g in games],
            ),
            tournaments=tournaments,
            ratings_at=ratings_at or {},
        )
    )
    return {change.player_id: change for change in result.changes}


def after(changes: dict[int, PlannedChange]) -> dict[int, int | None]:
    return {pid: change.rating_after for pid, change in changes.items()}


def test_the_rule_is_in_force_from_january_2022_to_february_2024_only() -> None:
    in_force = {
        day: rules_in_force(day).cap_once_per_event
        for day in (
            datetime.date(2021, 12, 31),
            datetime.date(2022, 1, 1),
            datetime.date(2024, 2, 29),
            datetime.date(2024, 3, 1),
        )
    }
    assert list(in_force.values()) == [False, True, True, False]


def test_one_upgrade_per_tournament_for_the_largest_difference() -> None:
    changes = plan(WINS)
    assert changes[1].expected == Fraction(285, 100)
    assert after(changes) == {1: 2003, 2: 1498, 3: 1448, 4: 1398}


def test_the_cap_counts_in_every_game_from_march_2024() -> None:
    changes = plan(WINS, month=MARCH_2024)
    assert changes[1].expected == Fraction(276, 100)
    assert after(changes)[1] == 2005


def test_the_cap_counts_in_every_game_before_2022() -> None:
    changes = plan(WINS, month=datetime.date(2021, 12, 1))
    assert changes[1].expected == Fraction(276, 100)


def test_each_tournament_has_its_own_upgrade() -> None:
    # The 600 game in one tournament and the 550 game in another: both are their event's
    # largest, both capped (.92 + .92); the 500 game in the first tournament is not (.96).
    changes = plan([(1, 2, "1-0", 7), (1, 3, "1-0", 8), (1, 4, "1-0", 7)])
    assert changes[1].expected == Fraction(92 + 92 + 96, 100)


def test_a_months_games_outside_tournaments_are_one_event() -> None:
    changes = plan([(1, 2, "1-0", None), (1, 3, "1-0", None), (1, 4, "1-0", None)])
    assert changes[1].expected == Fraction(285, 100)


def test_of_equal_differences_the_first_game_keeps_the_cap() -> None:
    # Two games against 1400 (600 each) and one against 1500: the first 600 game is
    # capped (.92), the second counts in full (.98), the 500 game in full (.96).
    changes = plan([(1, 4, "1-0", 7), (1, 2, "1-0", 7), (4, 1, "0-1", 7)])
    assert changes[1].expected == Fraction(92 + 96 + 98, 100)
    assert changes[4].games == 2


def test_of_equal_differences_the_first_game_keeps_the_cap_in_the_games_lines() -> None:
    # The period's figures do not say which of two equal games keeps the cap (.92 + .98
    # either way); each game's line on the games page does: the first game (position 0)
    # keeps it, D 400 -> .92; the second (position 1) loses it, D 600 -> .98.
    rules = settings().for_month(MAY_2023).rules()
    sides: list[CappedSide] = [(1, 2000, 1400, True, rules), (1, 2000, 1400, True, rules)]
    assert cap_lost(sides) == {1}


def test_forfeits_and_unrated_games_are_no_upgrade() -> None:
    # The forfeit against 1400 is not rated, so the 550 game is the one upgrade.
    changes = plan([(1, 4, "+-", 7), (1, 3, "1-0", 7), (1, 2, "1-0", 7)])
    assert changes[1].expected == Fraction(92 + 96, 100)
    assert changes[1].games == 2


def test_a_tournament_begun_before_march_2024_keeps_the_rule() -> None:
    # Begun on 25 February 2024, rated with March's games: the rules of its start.
    changes = plan(
        WINS,
        month=MARCH_2024,
        began={7: datetime.date(2024, 2, 25)},
        ratings_at={datetime.date(2024, 2, 1): dict(RATINGS)},
    )
    assert changes[1].expected == Fraction(285, 100)


def test_a_tournament_begun_in_march_2024_does_not() -> None:
    changes = plan(WINS, month=MARCH_2024, began={7: datetime.date(2024, 3, 2)})
    assert changes[1].expected == Fraction(276, 100)


@pytest.mark.parametrize("kind", [ListKind.RAPID, ListKind.BLITZ])
def test_rapid_and_blitz_keep_the_cap_in_every_game(kind: ListKind) -> None:
    changes = plan(WINS, list_settings=settings(kind))
    assert changes[1].expected == Fraction(276, 100)


def test_a_list_pinned_to_todays_rules_keeps_the_cap_in_every_game() -> None:
    changes = plan(WINS, list_settings=settings(fide_rules="2025-10"))
    assert changes[1].expected == Fraction(276, 100)


def test_a_list_pinned_to_2022_applies_it_on_any_date() -> None:
    changes = plan(
        WINS, month=datetime.date(2026, 5, 1), list_settings=settings(fide_rules="2022-01")
    )
    assert changes[1].expected == Fraction(285, 100)


def test_the_lower_rated_side_keeps_the_cap_in_every_game() -> None:
    # Player 4 (1400) loses to 1 (2000, -600) and to 5 (1850, -450) in one tournament:
    # both count -400 (.08 each), not the real -600 (.02) for one of them.
    ratings = {**RATINGS, 5: 1850}
    changes = plan([(1, 4, "1-0", 7), (5, 4, "1-0", 7)], ratings=ratings)
    assert changes[4].expected == Fraction(8 + 8, 100)


def test_a_tournament_under_other_rules_does_not_lend_the_rule_to_the_months_games() -> None:
    # March 2024: a tournament begun in February keeps the one-upgrade rule, while a
    # tournament begun in March, listed first, caps every game (.92 x 3).
    feb = datetime.date(2024, 2, 25)
    changes = plan(
        [(1, 2, "1-0", 8), (1, 3, "1-0", 8), (1, 4, "1-0", 8), *WINS],
        month=MARCH_2024,
        began={7: feb, 8: datetime.date(2024, 3, 5)},
        ratings_at={datetime.date(2024, 2, 1): dict(RATINGS)},
    )
    assert changes[1].expected == Fraction(276 + 285, 100)


@pytest.mark.parametrize("white", [True, False])
def test_the_difference_is_the_one_at_the_tournaments_start(white: bool) -> None:
    # Player 1 was 2000 when the tournament began last month and is 1880 now: against
    # 1500 and 1450 the differences are 500 and 550 (both beyond 400: the 550 game is the
    # upgrade, the 500 game counts in full, .92 + .96), not 380 and 430 (one upgrade only).
    april = datetime.date(2023, 4, 1)
    games = [(1, 2, "1-0", 7), (1, 3, "1-0", 7)] if white else [(2, 1, "0-1", 7), (3, 1, "0-1", 7)]
    changes = plan(
        games,
        began={7: datetime.date(2023, 4, 28)},
        ratings={**RATINGS, 1: 1880},
        ratings_at={april: dict(RATINGS)},
    )
    assert changes[1].expected == Fraction(92 + 96, 100)


def test_a_player_rated_since_the_tournament_began_has_their_upgrade_too() -> None:
    # Player 1 had no rating when the tournament began last month and has 2000 now: their
    # opponents score them as unrated (not rated for them), but they score their games
    # with their own 2000 (FIDE 8.2.4): 500 and 550, one upgrade, .96 + .92.
    april = datetime.date(2023, 4, 1)
    changes = plan(
        [(2, 1, "0-1", 7), (3, 1, "0-1", 7)],
        began={7: datetime.date(2023, 4, 28)},
        ratings_at={april: {**RATINGS, 1: None}},
    )
    assert changes[1].expected == Fraction(92 + 96, 100)
    assert changes[2].games == 0


def test_a_forfeit_in_a_tournament_under_earlier_rules_is_not_rated() -> None:
    # May 2023, a tournament begun in 2021 (the cap in every game): the forfeit win
    # against 1400 is recorded, not rated; the 1450 game is.
    changes = plan(
        [(1, 4, "+-", 7), (1, 3, "1-0", 7)],
        began={7: datetime.date(2021, 12, 30)},
        ratings_at={datetime.date(2021, 12, 1): dict(RATINGS)},
    )
    assert (changes[1].games, changes[1].expected) == (1, Fraction(92, 100))
