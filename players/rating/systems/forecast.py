"""Forecasts before a tournament: each entrant's expected score against the field and
their rating change for every score they could make, by the list's own plan.

Nothing here is a rule: every figure is the list's rating system's plan
(``RatingSystem.plan_period``, the close's own) of a month in which the entrant plays the
tournament's games with one of the possible results. The close's inputs for the
tournament's period (without games; tournaments/services/forecast.py reads them as the
close does) give each player's start, so the rules are those the close would apply: the
tournament's start date chooses FIDE's rule set (8.1.2's table or the formula by the
list, K with its reason, the 400-point rule with its 2650 exception, the first-rating
formula), and Glicko-2 lists get Glickman's own update.

The field is a round robin of the entry list: everyone plays everyone else once. A score
``s`` of ``n`` games is played as wins against the lowest-rated opponents first (unrated
opponents count as the lowest), then one draw if ``s`` has a half point, then losses: a
rated player's Elo change does not depend on which games were won, but a Glicko-2 change
and an unrated player's first rating may, and the forecast says which it assumed.

Each entrant is planned with one copy of them per score (ids after every real one), all
in one plan against the real opponents: a copy's change depends only on their own games
and their opponents' ratings at the start, as in the close. Pure: no Django.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple, TypeVar

from players.rating.period import (
    GameResult,
    PeriodEvent,
    PeriodGames,
    PeriodInputs,
    PlannedChange,
    view_month,
)
from players.rating.systems import RatingSystem
from players.rating.types import Number

# The most entrants a forecast takes: the plans grow with the cube of the field (a round
# robin of n entrants, each planned for 2n - 1 scores of n - 1 games).
MAX_ENTRANTS = 100

HALF = Fraction(1, 2)
_WIN, _DRAW, _LOSS = (
    GameResult.WHITE_WINS.value,
    GameResult.DRAW.value,
    GameResult.BLACK_WINS.value,
)
Value = TypeVar("Value")


class TooManyEntrants(ValueError):
    """A field larger than ``MAX_ENTRANTS``."""

    def __init__(self, count: int) -> None:
        self.count = count
        super().__init__(f"{count} entrants; a forecast takes at most {MAX_ENTRANTS}.")


class ScoreForecast(NamedTuple):
    """What one score would give: the plan's change for it."""

    score: Fraction
    wins: int
    draws: int
    losses: int
    rating_after: int | None
    # None: a first rating, or none yet.
    change: int | None
    change_unrounded: Number | None
    event: PeriodEvent
    # Unrated players short of a first rating: what is still missing (the engine's words).
    note: str = ""


class EntrantForecast(NamedTuple):
    player_id: int
    # The rating the games are scored with (None: unrated).
    rating: int | None
    games: int
    # Against the field, as the close counts it (rated games only); None: unrated.
    expected: Number | None
    k_factor: int | None
    k_reason: str
    scores: tuple[ScoreForecast, ...]

    def at(self, score: Fraction) -> ScoreForecast:
        return next(row for row in self.scores if row.score == score)


class FieldForecast(NamedTuple):
    month: datetime.date
    rules: str
    entrants: tuple[EntrantForecast, ...]


def scoring_ratings(
    inputs: PeriodInputs, tournament_start: datetime.date | None
) -> Mapping[int, int | None]:
    """The ratings the tournament's games are scored with (FIDE 8.2.4: the list in force at
    its start when it began in an earlier month)."""
    view = view_month(inputs.month, tournament_start)
    if view == inputs.month:
        return inputs.start_ratings
    return inputs.ratings_at.get(view, inputs.start_ratings)


def weakest_first(player_ids: Sequence[int], ratings: Mapping[int, int | None]) -> list[int]:
    """Unrated players first, then by rating, then by id: the order wins are given in."""
    return sorted(
        player_ids, key=lambda pid: (ratings.get(pid) is not None, ratings.get(pid) or 0, pid)
    )


def results_for(half_points: int, games: int) -> list[str]:
    """The results (the entrant's side, weakest opponent first) of a score of
    ``half_points`` / 2 in ``games`` games: wins first, a draw for a half, then losses."""
    wins, draw = divmod(half_points, 2)
    return [_WIN] * wins + [_DRAW] * draw + [_LOSS] * (games - wins - draw)


def _copied(mapping: Mapping[int, Value], source: int, copies: Sequence[int]) -> dict[int, Value]:
    out = dict(mapping)
    if source in mapping:
        out.update((copy, mapping[source]) for copy in copies)
    return out


def _inputs_for(
    inputs: PeriodInputs,
    entrant: int,
    opponents: Sequence[int],
    copies: Sequence[int],
    tournament: int | None,
) -> PeriodInputs:
    """The month in which each copy of ``entrant`` plays ``opponents`` with its score."""
    games = len(opponents)
    white: list[int] = []
    black: list[int] = []
    result: list[str] = []
    for half_points, copy in enumerate(copies):
        white.extend([copy] * games)
        black.extend(opponents)
        result.extend(results_for(half_points, games))
    kept = [*opponents, entrant]
    starts = {pid: inputs.starts[pid] for pid in kept if pid in inputs.starts}
    start_ratings = {pid: inputs.start_ratings.get(pid) for pid in kept}
    return PeriodInputs(
        settings=inputs.settings,
        month=inputs.month,
        starts=_copied(starts, entrant, copies),
        start_ratings=_copied(start_ratings, entrant, copies),
        games=PeriodGames(
            white=white,
            black=black,
            result=result,
            rated=[True] * len(white),
            tournament=[tournament] * len(white),
        ),
        tournaments=inputs.tournaments,
        ratings_at={
            month: _copied(ratings, entrant, copies) for month, ratings in inputs.ratings_at.items()
        },
        standard_ratings=_copied(inputs.standard_ratings, entrant, copies),
        standard_on_next_list=_copied(inputs.standard_on_next_list, entrant, copies),
    )


def entrant_forecast(
    system: RatingSystem,
    inputs: PeriodInputs,
    *,
    entrant: int,
    opponents: Sequence[int],
    tournament: int | None = None,
) -> EntrantForecast:
    """``entrant``'s forecast against ``opponents`` (one game each) in the month of
    ``inputs`` (the close's inputs for it, the games left out), the games those of
    ``tournament`` (an id in ``inputs.tournaments``; None: club games of the month)."""
    dates = inputs.tournaments.get(tournament) if tournament is not None else None
    start = dates[0] if dates else None
    ratings = scoring_ratings(inputs, start)
    order = weakest_first([pid for pid in opponents if pid != entrant], ratings)
    first_copy = max([*inputs.starts, *order, entrant]) + 1
    copies = list(range(first_copy, first_copy + 2 * len(order) + 1))
    plan = system.plan_period(_inputs_for(inputs, entrant, order, copies, tournament))
    planned = {
        change.player_id: change for change in plan.changes if change.player_id >= first_copy
    }
    began = {} if start is None else {f"t{tournament}": start}
    scores = tuple(
        _score(system, inputs, planned[copy], half_points, len(order), began)
        for half_points, copy in enumerate(copies)
    )
    base = planned[copies[0]]
    rated = base.rating_before is not None or system.start_rating is not None
    return EntrantForecast(
        player_id=entrant,
        rating=ratings.get(entrant),
        games=len(order),
        expected=base.expected if rated else None,
        k_factor=base.k_factor,
        k_reason=base.k_reason,
        scores=scores,
    )


def _score(
    system: RatingSystem,
    inputs: PeriodInputs,
    change: PlannedChange,
    half_points: int,
    games: int,
    began: Mapping[str, datetime.date],
) -> ScoreForecast:
    wins, draws = divmod(half_points, 2)
    note = ""
    progress = system.first_rating_progress
    if change.event == PeriodEvent.NOT_YET_RATED and progress is not None:
        note = progress(inputs.settings, inputs.month, change.pool_after, began).note
    return ScoreForecast(
        score=Fraction(half_points, 2),
        wins=wins,
        draws=draws,
        losses=games - wins - draws,
        rating_after=change.rating_after,
        change=change.change,
        change_unrounded=change.change_unrounded,
        event=change.event,
        note=note,
    )


def field_forecast(
    system: RatingSystem,
    inputs: PeriodInputs,
    *,
    entrants: Sequence[int],
    tournament: int | None = None,
) -> FieldForecast:
    """Every entrant's forecast in a round robin of ``entrants`` (at most
    ``MAX_ENTRANTS``; TooManyEntrants beyond)."""
    if len(entrants) > MAX_ENTRANTS:
        raise TooManyEntrants(len(entrants))
    forecasts = tuple(
        entrant_forecast(system, inputs, entrant=pid, opponents=entrants, tournament=tournament)
        for pid in entrants
    )
    dates = inputs.tournaments.get(tournament) if tournament is not None else None
    # The rules of the tournament's start (FIDE: a rule change applies to events begun
    # on or after its date).
    settings = inputs.settings.for_month(dates[0] if dates else inputs.month)
    return FieldForecast(month=inputs.month, rules=settings.rules_name(), entrants=forecasts)
