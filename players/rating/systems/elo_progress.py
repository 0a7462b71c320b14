"""An unrated player's way to a first rating on an Elo-family list (FIDE 8.2), read from
the pool a period's plan leaves them with: how many games count so far and what the first
rating would be, or what is still missing (the engine's own sentence).

The live list asks this of a planned change that did not reach a first rating; it runs
the same formula the close runs (``first_rating_rule_of``) on the same pool, so nothing
here is a rule of its own.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from players.rating.period import SCORES, ListSettings
from players.rating.systems.elo_first import first_rating_rule_of, pool_event_began
from players.rating.types import FirstRating, GameInput

# Published ratings and first ratings are never below zero (elo._LOWEST_RATING).
_LOWEST_RATING = 0


def first_rating_progress(
    settings: ListSettings,
    month: datetime.date,
    pool: Sequence[Mapping[str, Any]],
    began: Mapping[str, datetime.date] | None = None,
) -> FirstRating:
    """The first-rating formula over ``pool`` (a planned change's ``pool_after``) under
    the rules the close rates it with: those of the latest start among its events (FIDE's
    rules by date, ``elo_games.player_rule_days``), the month's at the latest, with their
    floor. ``began``: an event's key -> its tournament's start, for this period's
    tournaments (an event not named began on the first day of its period's month).
    ``rating`` None with a ``note`` saying what is missing (too few games against rated
    opponents, or below the minimum)."""
    starts = [
        min((began or {}).get(str(event["event"])) or pool_event_began(event), month)
        for event in pool
    ]
    at = settings.for_month(max(starts, default=month))
    minimum = at.floor if at.floor is not None else _LOWEST_RATING
    rule = first_rating_rule_of(at, starts)
    events = [
        [GameInput(opponent, SCORES[score], played) for opponent, score, played in event["games"]]
        for event in pool
    ]
    return rule(events, minimum=minimum)
