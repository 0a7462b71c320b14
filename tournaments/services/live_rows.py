"""A live list's rows: one player's figures from the close's planned change
(``live_row``), and the list's ranking (``ranked``)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from players.rating.period import PeriodEvent, PlannedChange
from players.rating.systems import RatingSystem
from players.rating.systems.explain import State


class LiveRow(NamedTuple):
    """One player's live figures: what the next close would publish for them."""

    player_id: int
    name: str
    title: str
    federation: str
    birth_year: int | None
    sex: str
    active: bool
    # The rating in force (published before the period; None: unrated) and the live one.
    rating: int | None
    live_rating: int | None
    # The change the close would publish (None: a first rating, or none yet).
    live_change: int | None
    # Rated games this period, as the close counts them.
    games: int
    event: str
    k_factor: int | None
    # The system's state before and after (Glicko-2: rd, volatility; None: none kept).
    state: State | None
    live_state: State | None
    # Unrated players: games counted toward a first rating so far (the pool, over the
    # months FIDE 8.2 pools) and what is still missing (the engine's sentence); None on
    # everyone else.
    first_rating_games: int | None = None
    first_rating_missing: str = ""
    rank: int | None = None


def live_row(
    change: PlannedChange,
    player: Sequence[Any],
    system: RatingSystem,
    list_settings: Any,
    month: datetime.date,
    began: dict[str, datetime.date],
) -> tuple[Any, ...]:
    """The player's LiveRow but its rank (``ranked`` adds it)."""
    before, after = system.states_of(change)
    progress = system.first_rating_progress
    first_games: int | None = None
    missing = ""
    if change.event == PeriodEvent.NOT_YET_RATED and progress is not None:
        first = progress(list_settings, month, change.pool_after, began)
        first_games, missing = first.games_counted, first.note
    player_id, name, title, federation, birth_year, sex, active = player
    # A plain tuple in LiveRow's order: the row is made a LiveRow once, with its rank.
    return (
        player_id,
        name,
        title,
        federation,
        birth_year,
        sex,
        active,
        change.rating_before,
        change.rating_after,
        change.change,
        change.games,
        str(change.event),
        change.k_factor,
        None if before is None else dict(before),
        None if after is None else dict(after),
        first_games,
        missing,
    )


def ranked(rows: Sequence[tuple[Any, ...]]) -> list[LiveRow]:
    """Best live rating first (equal ratings share a rank), then those without one (no
    rank) by name. ``rows``: each a LiveRow's fields but the last, the rank."""
    # Two stable sorts keyed in C, by name and id and then by live rating, best first
    # (a reversed sort keeps equal rows in order): a key function per row took most of
    # a 5,000-player list's ranking.
    at = _LIVE_RATING_AT
    rated = sorted((r for r in rows if r[at] is not None), key=_BY_NAME)
    rated.sort(key=_BY_LIVE_RATING, reverse=True)
    out: list[LiveRow] = []
    rank, previous = 0, None
    for index, row in enumerate(rated, start=1):
        if row[at] != previous:
            rank, previous = index, row[at]
        # Made a LiveRow here, once, in C (LiveRow(...) is a Python call per player, and
        # the rows were made twice: without their rank, then with it).
        out.append(_as_row(LiveRow, (*row, rank)))
    out.extend(
        _as_row(LiveRow, (*r, None))
        for r in sorted((r for r in rows if r[at] is None), key=_BY_NAME)
    )
    return out


_as_row = tuple.__new__
_LIVE_RATING_AT = LiveRow._fields.index("live_rating")
_BY_NAME = itemgetter(LiveRow._fields.index("name"), LiveRow._fields.index("player_id"))
_BY_LIVE_RATING = itemgetter(LiveRow._fields.index("live_rating"))
