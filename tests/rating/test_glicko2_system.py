"""The Glicko-2 system's period plan (players.rating.systems.glicko2), every published
field of it, from Glickman's worked example ("Example of the Glicko-2 system", 2013):
a player at r 1500, RD 200, sigma 0.06 who beats a 1400 (RD 30) and loses to a 1550 (RD
100) and a 1700 (RD 300) ends the period at r' 1464.06, RD' 151.52, sigma' 0.05999, tau 0.5.
"""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest

from players.rating import ExpectedMethod, ListKind
from players.rating.glicko2 import DEFAULT_RD, DEFAULT_VOLATILITY, Glicko2Settings
from players.rating.period import (
    ListSettings,
    PeriodEvent,
    PeriodGames,
    PeriodInputs,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import glicko2

OCT = datetime.date(2026, 10, 1)
AUG = datetime.date(2026, 8, 1)
PAPER = Glicko2Settings(tau=0.5)


def settings(glicko: Glicko2Settings | None) -> ListSettings:
    return ListSettings(
        system="glicko2",
        kind=ListKind.STANDARD,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=False,
        fixed_k=None,
        floor=None,
        adjust_march_2024=False,
        glicko=glicko,
    )


def start(
    rating: int | None,
    rd: float | None,
    volatility: float | None = 0.06,
    *,
    reached_2400: bool = False,
    last_active: datetime.date | None = AUG,
) -> PlayerStart:
    return PlayerStart(rating, 10, reached_2400, [], 1990, None, None, last_active, rd, volatility)


def plan(
    starts: dict[int, PlayerStart],
    games: list[tuple[int, int, str, bool]],
    glicko: Glicko2Settings | None = PAPER,
    progress: list[int] | None = None,
) -> tuple[dict[int, PlannedChange], glicko2.PeriodPlan]:
    result = glicko2.plan_period(
        PeriodInputs(
            settings=settings(glicko),
            month=OCT,
            starts=starts,
            start_ratings={pid: s.rating for pid, s in starts.items()},
            games=PeriodGames(
                white=[g[0] for g in games],
                black=[g[1] for g in games],
                result=[g[2] for g in games],
                rated=[g[3] for g in games],
                tournament=[None for _ in games],
            ),
            tournaments={},
            ratings_at={},
        ),
        progress=None if progress is None else progress.append,
    )
    return {c.player_id: c for c in result.changes}, result


PAPER_STARTS = {
    1: start(1500, 200.0),
    2: start(1400, 30.0),
    3: start(1550, 100.0),
    4: start(1700, 300.0),
}
# The paper's three games, the player with white, black and white; before them a forfeit
# and a game marked not rated, which are recorded but never rated (and must not end the
# month's games early).
PAPER_GAMES = [
    (1, 2, "+-", True),
    (1, 3, "1-0", False),
    (1, 2, "1-0", True),
    (3, 1, "1-0", True),
    (1, 4, "0-1", True),
]


def test_the_papers_player_through_the_system() -> None:
    changes, result = plan(PAPER_STARTS, PAPER_GAMES)
    one = changes[1]
    assert (one.rating_before, one.rating_after, one.change) == (1500, 1464, -36)
    assert one.change_unrounded == pytest.approx(-35.94, abs=0.01)
    assert one.uncertainty is not None
    assert one.uncertainty.rd_before == 200.0
    assert one.uncertainty.rd_after == pytest.approx(151.52, abs=0.005)
    assert one.uncertainty.volatility_before == 0.06
    assert one.uncertainty.volatility_after == pytest.approx(0.05999, abs=0.00001)
    assert (one.games, one.score) == (3, Fraction(1))
    # E = 0.639 + 0.432 + 0.303 (the paper's step 3).
    assert one.expected == pytest.approx(1.374, abs=0.001)
    assert one.event == PeriodEvent.RATED
    assert (one.k_factor, one.k_reason, one.k_next) == (None, "", None)
    assert (one.rated_games_after, one.reached_2400_after, one.pool_after) == (13, False, [])
    assert one.last_active_month == OCT

    assert result.month == OCT
    assert result.games_count == len(PAPER_GAMES)
    assert result.k_changes == ()
    assert result.rules == "Glicko-2 (tau 0.5)"


def test_each_side_scores_its_own_result() -> None:
    changes, _ = plan(PAPER_STARTS, PAPER_GAMES)
    # 2: lost with black, and a forfeit (not counted); 3: won with white; 4: won with black.
    assert {pid: (c.games, c.score) for pid, c in changes.items()} == {
        1: (3, Fraction(1)),
        2: (1, Fraction(0)),
        3: (1, Fraction(1)),
        4: (1, Fraction(1)),
    }
    assert changes[4].rating_after > 1700
    assert (changes[4].event, changes[4].last_active_month) == (PeriodEvent.RATED, OCT)
    assert changes[2].rating_after < 1400


def test_a_player_without_games_keeps_r_and_sigma_and_the_rd_grows() -> None:
    starts = {**PAPER_STARTS, 5: start(1800, 50.0, last_active=AUG)}
    five = plan(starts, PAPER_GAMES)[0][5]
    assert (five.rating_before, five.rating_after, five.change) == (1800, 1800, 0)
    assert five.change_unrounded == 0
    assert five.uncertainty is not None
    # phi' = sqrt(phi^2 + sigma^2) on the Glicko-2 scale (173.7178).
    assert five.uncertainty.rd_after == pytest.approx(
        173.7178 * ((50.0 / 173.7178) ** 2 + 0.06**2) ** 0.5, abs=0.005
    )
    assert five.uncertainty.volatility_after == 0.06
    assert (five.games, five.score, five.event) == (0, Fraction(0), PeriodEvent.NO_RATED_GAMES)
    # Inactive this month: the month they last played stays.
    assert five.last_active_month == AUG
    assert five.rated_games_after == 10


def test_a_first_period_without_games_starts_the_activity_count() -> None:
    starts = {**PAPER_STARTS, 5: start(1800, 50.0, last_active=None)}
    assert plan(starts, PAPER_GAMES)[0][5].last_active_month == OCT


def test_a_new_player_starts_at_the_lists_settings() -> None:
    own = Glicko2Settings(tau=0.3, rd_start=300.0, volatility_start=0.05)
    starts = {1: start(None, None, None, last_active=None), 2: start(1600, 80.0)}
    changes, result = plan(starts, [(1, 2, "1/2-1/2", True)], glicko=own)
    new = changes[1]
    assert new.rating_before == 1500
    assert new.uncertainty is not None
    assert (new.uncertainty.rd_before, new.uncertainty.volatility_before) == (300.0, 0.05)
    assert new.rating_after > 1500  # a draw against a higher rating
    assert result.rules == "Glicko-2 (tau 0.3)"


def test_a_list_without_its_own_settings_uses_the_papers_defaults() -> None:
    starts = {1: start(None, None, None), 2: start(1500, DEFAULT_RD)}
    new = plan(starts, [], glicko=None)[0][1]
    assert new.uncertainty is not None
    assert (new.uncertainty.rd_before, new.uncertainty.volatility_before) == (
        DEFAULT_RD,
        DEFAULT_VOLATILITY,
    )


@pytest.mark.parametrize(
    ("reached", "rating", "expected"),
    [(False, 2390, True), (False, 2380, False), (True, 2300, True)],
)
def test_reaching_2400_is_kept(reached: bool, rating: int, expected: bool) -> None:
    # 2390 wins against 2600: the rating passes 2400 (reached); 2380 loses to 2000: it
    # does not; a player who reached it once keeps the mark below it.
    opponent, result = (2600, "1-0") if rating == 2390 else (2000, "0-1")
    starts = {1: start(rating, 60.0, reached_2400=reached), 2: start(opponent, 60.0)}
    one = plan(starts, [(1, 2, result, True)])[0][1]
    assert (one.rating_after >= 2400) == (rating == 2390)
    assert one.reached_2400_after is expected


def test_a_rating_of_exactly_2400_counts_as_reached() -> None:
    starts = {1: start(2400, 30.0), 2: start(2400, 30.0)}
    one = plan(starts, [(1, 2, "1/2-1/2", True)])[0][1]
    assert one.rating_after == 2400
    assert one.reached_2400_after is True


def test_progress_counts_every_player_once() -> None:
    starts = {pid: start(1500, 100.0) for pid in range(1, 2501)}
    calls: list[int] = []
    plan(starts, [], progress=calls)
    assert calls == [1000, 1000, 500]
    calls = []
    plan({pid: start(1500, 100.0) for pid in range(1, 2001)}, [], progress=calls)
    assert calls == [1000, 1000]
    calls = []
    plan({pid: start(1500, 100.0) for pid in range(1, 2000)}, [], progress=calls)
    assert calls == [1000, 999]


def test_a_players_own_volatility_is_the_start() -> None:
    # The same game from a volatility of 0.09 instead of 0.06: step 5 starts from the
    # player's own sigma, so sigma' stays near 0.09, and RD' is wider (step 6: phi* =
    # sqrt(phi^2 + sigma'^2)), so r moves further.
    usual, _ = plan({1: start(1500, 200.0), 2: start(1400, 30.0)}, [(1, 2, "1-0", True)])
    own, _ = plan({1: start(1500, 200.0, 0.09), 2: start(1400, 30.0)}, [(1, 2, "1-0", True)])
    assert own[1].uncertainty.volatility_before == 0.09
    assert own[1].uncertainty.volatility_after == pytest.approx(0.09, abs=0.0005)
    assert own[1].uncertainty.rd_after > usual[1].uncertainty.rd_after
    assert own[1].change_unrounded > usual[1].change_unrounded


def test_the_state_values_are_the_states_figures_in_order() -> None:
    # What the close's write step formats (state_values) is what states_of says, by the
    # declared names in order, for a player with games and one without.
    changes, _ = plan({**PAPER_STARTS, 5: start(None, None, None)}, PAPER_GAMES)
    names = [field.name for field in glicko2.STATE_FIELDS]
    for change in changes.values():
        before, after = glicko2.states_of(change)
        assert before is not None
        assert after is not None
        assert glicko2.state_values(change) == (
            tuple(before[name] for name in names),
            tuple(after[name] for name in names),
        )
    assert glicko2.state_values(changes[1]._replace(uncertainty=None)) == (None, None)
