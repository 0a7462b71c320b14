"""Which of FIDE's first-rating formulas a first rating takes (8.2: 2014's, or 2024's from
March 2024), by the period's rules or by the days its pooled events began; and an
unrated player's period (``unrated_period``): their games pooled toward a first rating."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from players.rating.fide_rules import rule_set_for
from players.rating.first_rating import first_rating, first_rating_2014, first_rating_games
from players.rating.k_factor import has_reached_2400
from players.rating.period import SCORES, ListSettings, PeriodEvent, PlannedChange, PlayerStart
from players.rating.types import FirstRating, GameInput, KFactor, KReason

FirstRatingRule = Callable[..., FirstRating]
# A period's events of an unrated player: event key -> (order key, [[opponent, score, played]]).
Events = dict[str, tuple[tuple[Any, ...], list[list[Any]]]]


def first_rating_rule(settings: ListSettings) -> FirstRatingRule:
    """FIDE's first-rating formula in force this month: 2014's before March 2024."""
    dated = settings.rule_set
    if dated is not None and not dated.first_rating_2024:
        return first_rating_2014
    return first_rating


def first_rating_rule_of(settings: ListSettings, began: Sequence[datetime.date]) -> FirstRatingRule:
    """FIDE's first-rating formula for a first rating from events begun on ``began``.

    A rule change applies to tournaments that start on or after its date (FIDE's rules by
    date; shared/reference/fide-rules.md section 10): when every event of the pool began
    under one rule set, that set's formula (a tournament begun in February 2024 and ended
    in March keeps 2014's); when they span rule sets, the period's."""
    if settings.fide_rules is None or not began:
        return first_rating_rule(settings)
    formulas = {rule_set_for(settings.fide_rules, day).first_rating_2024 for day in began}
    if len(formulas) == 1:
        return first_rating if formulas.pop() else first_rating_2014
    return first_rating_rule(settings)


def pool_event_began(event: Mapping[str, Any]) -> datetime.date:
    """An event pooled in an earlier period: the first day of that period's month (its
    tournament's start is not kept in the pool)."""
    year, month = str(event["month"]).split("-")
    return datetime.date(int(year), int(month), 1)


# What a period of a rated (elo._rated) or unrated player (unrated_period) leaves to
# elo._plan_player: the next K, the last active
# month and the adjustment are filled in there.
PENDING_K = KFactor(0, KReason.STANDARD)


def unchanged(
    start: PlayerStart,
    k: KFactor | None,
    event: PeriodEvent,
    *,
    rating: int | None,
    games: int = 0,
    score: Fraction = Fraction(0),
    pool: list[dict[str, Any]] | None = None,
) -> PlannedChange:
    """A player whose rating the period leaves as it was."""
    rated = rating is not None
    return PlannedChange(
        player_id=0,
        rating_before=rating,
        rating_after=rating,
        change=0 if rated else None,
        change_unrounded=0 if rated else None,
        k_factor=k.value if k is not None else None,
        k_reason=k.reason if k is not None else "",
        games=games,
        score=score,
        expected=0,
        event=event,
        rated_games_after=start.rated_games,
        reached_2400_after=start.reached_2400,
        pool_after=start.pool if pool is None else pool,
        k_next=PENDING_K,
        last_active_month=None,
    )


def _pool_game_order(game: list[Any]) -> tuple[Any, ...]:
    opponent, score, played = game
    return (opponent is None, opponent or 0, score, played)


def unrated_period(
    start: PlayerStart,
    events: Events | None,
    label: str,
    oldest_pool_month: str,
    minimum: int,
    rule_of: Callable[[Sequence[datetime.date]], FirstRatingRule] = lambda _: first_rating,
) -> PlannedChange:
    if not events:
        return unchanged(start, None, PeriodEvent.NO_RATED_GAMES, rating=None)
    pool = [event for event in start.pool if event["month"] >= oldest_pool_month]
    # Each event's start: this period's from its order key (a tournament's first day, or
    # the month of the club games), earlier ones from their period.
    began = [pool_event_began(event) for event in pool] + [order[0] for order, _ in events.values()]
    rule = rule_of(began)
    for key, (_, games) in sorted(events.items(), key=lambda item: item[1][0]):
        # The database returns a period's games in no fixed order (an edited game moves);
        # sorting keeps the stored pool identical however the games were entered.
        games.sort(key=_pool_game_order)
        pool.append({"event": key, "month": label, "games": games})
    first = rule(
        [
            [GameInput(opp, SCORES[score], played) for opp, score, played in event["games"]]
            for event in pool
        ],
        minimum=minimum,
    )
    if first.rating is not None:
        return PlannedChange(
            player_id=0,
            rating_before=None,
            rating_after=first.rating,
            change=None,
            change_unrounded=None,
            k_factor=None,
            k_reason="",
            games=first.games_counted,
            score=first.score,
            expected=0,
            event=PeriodEvent.FIRST_RATING,
            rated_games_after=start.rated_games + first.games_counted,
            reached_2400_after=has_reached_2400(start.reached_2400, first.rating),
            pool_after=[],
            k_next=PENDING_K,
            last_active_month=None,
        )
    this_period = first_rating_games(
        GameInput(opp, SCORES[score], played)
        for _, games in events.values()
        for opp, score, played in games
    )
    return unchanged(
        start,
        None,
        PeriodEvent.NOT_YET_RATED,
        rating=None,
        games=len(this_period),
        score=sum((score for _, score in this_period), Fraction(0)),
        pool=pool,
    )
