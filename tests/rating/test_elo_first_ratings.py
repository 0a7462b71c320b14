"""An unrated player's period in the Elo system's plan, without a database: the games
pooled over 26 months (FIDE 8.2), in the order the events began, forfeits left out, the
list's own minimum, and what the row of a first rating records. Figures by hand from
FIDE 8.2: Ru = Ra + dp, Ra = (sum of opponents + 2 x 1800) / (n + 2),
p = (points + 1) / (n + 2)."""

from __future__ import annotations

import datetime
from typing import Any

from players.rating import KFactor, KReason
from players.rating.fide_rules import BY_DATE
from players.rating.period import (
    PeriodEvent,
    PeriodGames,
    PeriodInputs,
    PeriodPlan,
    PlayerStart,
)
from players.rating.systems import elo
from tests.rating.elo_helpers import fide_standard, start

OCT = datetime.date(2026, 10, 1)
P = 1  # the unrated player; opponents are 11, 12, ... rated 1800 (or as given)


def plan(
    games: list[tuple[int, int, str, int | None]],
    *,
    opponents: dict[int, int],
    pool: list[dict[str, Any]] | None = None,
    tournaments: dict[int, tuple[datetime.date, datetime.date]] | None = None,
    floor: int | None = 1400,
) -> PeriodPlan:
    """``games``: (white, black, result, tournament id or None)."""
    starts = {P: start(None, games=0, pool=pool), **{pid: start(r) for pid, r in opponents.items()}}
    ratings = {pid: s.rating for pid, s in starts.items()}
    tournaments = tournaments or {}
    early = {began.replace(day=1) for began, _ in tournaments.values()} - {OCT}
    return elo.plan_period(
        PeriodInputs(
            settings=fide_standard(floor=floor),
            month=OCT,
            starts=starts,
            start_ratings=ratings,
            games=PeriodGames(
                white=[w for w, _, _, _ in games],
                black=[b for _, b, _, _ in games],
                result=[r for _, _, r, _ in games],
                rated=[True] * len(games),
                tournament=[t for _, _, _, t in games],
            ),
            tournaments=tournaments,
            ratings_at=dict.fromkeys(early, ratings),
        )
    )


def row(result: PeriodPlan, player: int = P) -> Any:
    return next(c for c in result.changes if c.player_id == player)


def draws(count: int, first_opponent: int = 11) -> list[tuple[int, int, str, int | None]]:
    return [(P, first_opponent + i, "1/2-1/2", None) for i in range(count)]


def event(month: str, games: list[list[Any]]) -> dict[str, Any]:
    return {"event": f"m{month}", "month": month, "games": games}


def test_the_pool_keeps_games_of_the_26_months_up_to_the_period() -> None:
    # Closing 2026-10: the pool reaches back to 2024-09 (26 months, this one included).
    # Kept: 2024-09's draw with an 1800 and this month's 4 draws: 5 games, 2.5 points,
    # Ra = (5 x 1800 + 3600) / 7 = 1800, p = 3.5 / 7 = 50%, dp 0: Ru = 1800. 2024-08's win
    # is too old: with it, 6 games and p = 4.5 / 8 = 56% would give more than 1800.
    pool = [event("2024-08", [[1800, "1", True]]), event("2024-09", [[1800, "1/2", True]])]
    result = plan(draws(4), opponents={11 + i: 1800 for i in range(4)}, pool=pool)
    first = row(result)
    assert (first.rating_after, first.games, first.event) == (1800, 5, PeriodEvent.FIRST_RATING)


def test_without_the_oldest_month_there_are_too_few_games() -> None:
    # The same 4 draws with the 2024-09 game as the only pooled one make 5; one month
    # older it falls out, 4 remain, and a first rating needs 5.
    kept = plan(
        draws(4),
        opponents={11 + i: 1800 for i in range(4)},
        pool=[event("2024-09", [[1800, "1/2", True]])],
    )
    dropped = plan(
        draws(4),
        opponents={11 + i: 1800 for i in range(4)},
        pool=[event("2024-08", [[1800, "1/2", True]])],
    )
    assert row(kept).rating_after == 1800
    assert row(dropped).rating_after is None
    assert row(dropped).event == PeriodEvent.NOT_YET_RATED
    assert [pooled["month"] for pooled in row(dropped).pool_after] == ["2026-10"]
    # Still unrated: no change, no K and no K reason recorded, rather than zeros.
    not_yet = row(dropped)
    assert (not_yet.change, not_yet.change_unrounded, not_yet.k_factor, not_yet.k_reason) == (
        None,
        None,
        None,
        "",
    )


def test_a_zero_first_event_is_the_one_that_began_first() -> None:
    # A tournament begun on 28 September (ending in October) where the player lost all 5,
    # then 5 draws outside it in October. The tournament is the first event: zero points,
    # disregarded (8.2). The draws: 5 games, 2.5 points, Ra 1800, p 50%: Ru = 1800.
    # (Counting the tournament too would be 10 games, 2.5 points, p = 3.5 / 12 = 29%.)
    losses = [(P, 21 + i, "0-1", 7) for i in range(5)]
    result = plan(
        losses + draws(5),
        opponents={**{11 + i: 1800 for i in range(5)}, **{21 + i: 1800 for i in range(5)}},
        tournaments={7: (datetime.date(2026, 9, 28), datetime.date(2026, 10, 3))},
    )
    assert (row(result).rating_after, row(result).games) == (1800, 5)


def test_forfeits_do_not_count_toward_a_first_rating() -> None:
    # 5 draws with 1800s and a forfeit win: the forfeit is not played (8.1), so 5 games,
    # 2.5 points and Ru = 1800 (counted, the win would make 6 games and p = 56%).
    result = plan([*draws(5), (P, 16, "+-", None)], opponents={11 + i: 1800 for i in range(6)})
    assert (row(result).rating_after, row(result).games) == (1800, 5)


def test_a_list_without_a_floor_publishes_a_first_rating_under_1400() -> None:
    # 5 draws with players rated 1000: Ra = (5 x 1000 + 3600) / 7 = 1228.57, p 50%, dp 0:
    # Ru = 1229. FIDE's list (floor 1400) does not publish it; a list without one does.
    opponents = {11 + i: 1000 for i in range(5)}
    assert row(plan(draws(5), opponents=opponents, floor=None)).rating_after == 1229
    assert row(plan(draws(5), opponents=opponents, floor=1400)).rating_after is None


def test_what_a_first_ratings_row_records() -> None:
    result = plan(draws(5), opponents={11 + i: 1800 for i in range(5)})
    first = row(result)
    assert (first.rating_before, first.rating_after, first.change, first.change_unrounded) == (
        None,
        1800,
        None,
        None,
    )
    assert (first.k_factor, first.k_reason, first.expected, first.score) == (None, "", 0, 2.5)
    assert (first.rated_games_after, first.pool_after) == (5, [])
    # The rated opponents played an unrated player: not rated for them (8.2).
    assert result.counts_by_event() == {"first_rating": 1, "no_rated_games": 5}
    assert row(result, 11).games == 0


def by_date_plan(starts: dict[int, PlayerStart], month: datetime.date) -> PeriodPlan:
    """P beats each of the other players once, outside tournaments, on a list rated by
    FIDE's rules by date."""
    others = [pid for pid in starts if pid != P]
    return elo.plan_period(
        PeriodInputs(
            settings=fide_standard(floor=None, fide_rules=BY_DATE),
            month=month,
            starts=starts,
            start_ratings={pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[P] * len(others),
                black=others,
                result=["1-0"] * len(others),
                rated=[True] * len(others),
                tournament=[None] * len(others),
            ),
            tournaments={},
            ratings_at={},
        )
    )


def test_a_first_rating_of_2400_reaches_2400_and_k_10() -> None:
    # May 2023, FIDE's 2014 first rating: five wins against 2300s. Ra = 2300 (the rated
    # opponents alone); 5 of 5 is 2 x 5 - 5 = 5 half points above 50%, 20 each: +100
    # -> 2400, with no 2200 cap. A published 2400 reaches 2400 for good (8.3.3): K 10
    # next, not the 40 of a player with 5 rated games.
    starts = {P: start(None, games=0), **{11 + i: start(2300) for i in range(5)}}
    first = row(by_date_plan(starts, datetime.date(2023, 5, 1)))
    assert (first.event, first.rating_after) == (PeriodEvent.FIRST_RATING, 2400)
    assert first.reached_2400_after is True
    assert first.k_next == KFactor(10, KReason.REACHED_2400)


def test_a_player_who_had_reached_2400_keeps_it_through_a_first_rating() -> None:
    # Reached 2400 once, later unrated (below a floor): 8.3.3's K 10 stays for good.
    # Five wins against 1500s in 2023 (2014 rule): 1500 + 5 x 20 = 1600, and K 10 next.
    lapsed = PlayerStart(None, 0, True, [], 1980, None, None)
    starts = {P: lapsed, **{11 + i: start(1500) for i in range(5)}}
    first = row(by_date_plan(starts, datetime.date(2023, 5, 1)))
    assert (first.event, first.rating_after) == (PeriodEvent.FIRST_RATING, 1600)
    assert first.reached_2400_after is True
    assert first.k_next == KFactor(10, KReason.REACHED_2400)


def test_a_months_games_outside_tournaments_are_pooled_as_that_months_event() -> None:
    # Two draws with 1800s in 2026-10 outside tournaments: too few for a first rating, so
    # they wait in the pool as one event, that month's, in PlayerRating.pool's shape.
    first = row(plan(draws(2), opponents={11: 1800, 12: 1800}))
    assert first.event is PeriodEvent.NOT_YET_RATED
    assert first.pool_after == [event("2026-10", [[1800, "1/2", True], [1800, "1/2", True]])]
