"""One player's month under any registered rating system: what the calculator's "every
system" mode asks (ratings_site/pages/calculator_systems.py). Pure: the month is given to
the system's own plan (``RatingSystem.plan_period``) as a close would give it, so a
system in the registry is in the calculator with no code of its own there."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from fractions import Fraction

from players.rating.period import (
    GameResult,
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PlannedChange,
    PlayerStart,
)
from players.rating.systems import RatingSystem

YOU = 1
# The game's result from your side (you play white in every game).
_RESULTS = {
    Fraction(1): GameResult.WHITE_WINS.value,
    Fraction(1, 2): GameResult.DRAW.value,
    Fraction(0): GameResult.BLACK_WINS.value,
}


def _start(rating: int | None) -> PlayerStart:
    return PlayerStart(
        rating=rating, rated_games=0, reached_2400=False, pool=[], birth_year=None, k_override=None
    )


def one_month(
    system: RatingSystem,
    settings: ListSettings,
    *,
    month: datetime.date,
    rating: int | None,
    games: Sequence[tuple[int, Fraction]],
) -> PlannedChange:
    """Your change for a month of ``games`` (each the opponent's rating and your score,
    1, 1/2 or 0), every opponent a player of their own with that rating; you start at
    ``rating`` (None: unrated, where the system starts you at its ``start_rating``)."""
    opponents = range(YOU + 1, YOU + 1 + len(games))
    starts = {YOU: _start(rating)}
    starts.update(
        (pid, _start(opponent)) for pid, (opponent, _) in zip(opponents, games, strict=True)
    )
    inputs = PeriodInputs(
        settings=settings,
        month=month,
        starts=starts,
        start_ratings={
            pid: start.rating if start.rating is not None else system.start_rating
            for pid, start in starts.items()
        },
        games=PeriodGames(
            white=[YOU] * len(games),
            black=list(opponents),
            result=[_RESULTS[score] for _, score in games],
            rated=[True] * len(games),
            tournament=[None] * len(games),
        ),
        tournaments={},
        ratings_at={},
    )
    plan = system.plan_period(inputs)
    return next(change for change in plan.changes if change.player_id == YOU)
