"""Where each player stands when a period starts, as the close reads it: the players on
the list as entered, the previous closed period's states and pools, the K overrides in
force (``start_rows``), made into each player's ``PlayerStart`` (``player_starts``), with the
state a system keeps beside the rating (``with_states``). Only what publishes changes
them, never a game of the period: the live figures keep the rows between games."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Any, NamedTuple

import psycopg
from django.db import connection
from django.db.models import QuerySet

from players import rating as engine
from players.models import (
    KFactorChange,
    PlayerRating,
    RatingList,
    RatingPeriod,
    RatingRun,
    add_months,
)
from players.rating.period import PeriodGames, PlayerStart
from players.selectors import current_rows


def _previous_closed(rating_list: RatingList, month: datetime.date) -> int | None:
    return (
        RatingPeriod.objects.filter(
            rating_list=rating_list, month__lt=month, status=RatingPeriod.Status.CLOSED
        )
        .order_by("-month")
        .values_list("id", flat=True)
        .first()
    )


def column_lists(queryset: QuerySet[Any], *fields: str) -> list[list[Any]]:
    """One list per field of the rows of ``queryset``, in a single query.

    On PostgreSQL the rows come as one array per column: decoding a million games as
    arrays takes half the time of a million row tuples. The columns line up because all
    the array_agg of one query advance together on each input row. The arrays come in
    binary (a cursor of psycopg's own, as ``period_games``): the server skips writing
    every value as text (a quarter of the list's states' read) and the driver reads them
    in C.
    """
    rows = queryset.order_by().values_list(*fields)
    if connection.vendor != "postgresql":
        return [list(column) for column in zip(*rows, strict=True)] or [[] for _ in fields]
    sql, params = rows.query.sql_with_params()
    names = [f"c{i}" for i in range(len(fields))]
    aggregated = (
        f"SELECT {', '.join(f'array_agg({name})' for name in names)} "  # noqa: S608 - no input
        f"FROM ({sql}) AS selected ({', '.join(names)})"
    )
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(aggregated, params, binary=True)
        arrays = cursor.fetchone()
    return [list(array) if array else [] for array in (arrays or [None] * len(fields))]


def _rows(queryset: QuerySet[Any], *fields: str) -> list[tuple[Any, ...]]:
    """The rows of ``fields``, in a single query (``column_lists``, zipped)."""
    return list(zip(*column_lists(queryset, *fields), strict=True))


def overrides_in_force(
    rating_list: RatingList, months: tuple[datetime.date, datetime.date]
) -> dict[int, tuple[int | None, int | None]]:
    """Player id -> the officer's K override in force in each of ``months`` (None: the
    rules' K), for every player whose override was ever set or lifted on the list.

    An override applies from its effective month on, until lifted: the latest
    k_override_set row (a KFactorChange of an override run) effective at or before the
    month; MANUAL sets K, any other reason lifts it. One query, over override rows only,
    so a replay of an earlier month does not use an override set after it. Players
    absent here keep PlayerRating.k_override (set without history, e.g. by hand).
    """
    rows = (
        KFactorChange.objects.filter(
            rating_list=rating_list,
            current=True,
            source_period__isnull=True,
            run__kind=RatingRun.Kind.OVERRIDE,
        )
        .order_by("player_id", "effective_month", "id")
        .values_list("player_id", "effective_month", "new_k", "new_reason")
    )
    in_force: dict[int, list[int | None]] = {}
    for player_id, effective, new_k, new_reason in rows:
        values = in_force.setdefault(player_id, [None] * len(months))
        value = new_k if new_reason == engine.KReason.MANUAL else None
        for index, month in enumerate(months):
            if effective <= month:
                values[index] = value
    return {pid: (values[0], values[1]) for pid, values in in_force.items()}


class StartRows(NamedTuple):
    """What a period's starts are built from (``start_rows``): the players on the list as
    entered, the previous closed period's states and pools, and the K overrides in force.
    Only what publishes changes it, never a game of the period."""

    entries: list[tuple[Any, ...]]
    previous: dict[int, tuple[Any, ...]]
    pools: dict[int, list[dict[str, Any]]]
    overrides: dict[int, tuple[int | None, int | None]]


def start_rows(rating_list: RatingList, month: datetime.date) -> StartRows:
    entries = _rows(
        PlayerRating.objects.filter(rating_list=rating_list),
        "player_id",
        "entry_rating",
        "entry_rated_games",
        "entry_reached_2400",
        "k_override",
        "player__birth_year",
        "entry_month",
    )
    previous: dict[int, tuple[Any, ...]] = {}
    pools: dict[int, list[dict[str, Any]]] = {}
    previous_id = _previous_closed(rating_list, month)
    if previous_id is not None:
        after = current_rows(period_id=previous_id)
        for state in _rows(
            after,
            "player_id",
            "rating_after",
            "rated_games_after",
            "reached_2400_after",
            "last_active_month",
        ):
            previous[state[0]] = state
        # Only players still collecting games toward a first rating have a pool.
        pools = dict(after.exclude(pool_after=[]).values_list("player_id", "pool_after"))
    overrides = overrides_in_force(rating_list, (month, add_months(month, 1)))
    return StartRows(entries, previous, pools, overrides)


def starts_kept(month: datetime.date, rows: StartRows) -> dict[int, PlayerStart] | None:
    """``player_starts`` from ``rows`` alone, for a caller that keeps them with the rows
    (the live figures, rebuilt after every game); None when a player is listed before
    their entry month, whose start depends on whether they play this month."""
    if _listed_early(rows.entries, month):
        return None
    return _starts(rows, month, playing=set())


def player_starts(
    rating_list: RatingList,
    month: datetime.date,
    games: PeriodGames | Callable[[], PeriodGames],
    rows: StartRows | None = None,
) -> dict[int, PlayerStart]:
    """Each player's start, from ``rows`` (read now when None); ``games`` (or the call
    that waits for them) is needed only for players listed before their entry month."""
    rows = start_rows(rating_list, month) if rows is None else rows
    # Only a player whose entry month is still to come needs it (listed early because
    # they play this month): most months have none, and this is two million set adds.
    playing: set[int] = set()
    if _listed_early(rows.entries, month):
        played = games() if callable(games) else games
        playing.update(played.white)
        playing.update(played.black)
    return _starts(rows, month, playing)


def _listed_early(entries: list[tuple[Any, ...]], month: datetime.date) -> bool:
    """Whether a player's entry month comes after ``month`` (the entry's last column)."""
    return any(row[6] is not None and row[6] > month for row in entries)


def _starts(rows: StartRows, month: datetime.date, playing: set[int]) -> dict[int, PlayerStart]:
    """Each player's start: those on the list by ``month``, and those listed early who are
    ``playing`` this month."""
    entries, previous, pools, overrides = rows
    starts: dict[int, PlayerStart] = {}
    for player_id, e_rating, e_games, e_2400, override, birth_year, e_month in entries:
        if not (e_month is None or e_month <= month or player_id in playing):
            continue
        prev = previous.get(player_id)
        override_now, override_next = (
            overrides.get(player_id, (override, override)) if overrides else (override, override)
        )
        # Positional: 200,000 of these in a federation-sized close (PlayerStart's order:
        # rating, rated games, reached 2400, pool, birth year, K override now and next,
        # last active month).
        if prev is not None:
            starts[player_id] = PlayerStart(
                prev[1],
                prev[2],
                prev[3],
                pools.get(player_id, []),
                birth_year,
                override_now,
                override_next,
                prev[4],
            )
        else:
            starts[player_id] = PlayerStart(
                e_rating, e_games, e_2400, [], birth_year, override_now, override_next
            )
    return starts


def with_states(
    rating_list: RatingList, month: datetime.date, starts: dict[int, PlayerStart]
) -> dict[int, PlayerStart]:
    """Lists of a system that keeps a state beside the rating (Glicko-2's RD and
    volatility): each start with its state (the previous closed period's, else the one the
    club entered), given to the system by its declared names. Two queries, on those lists
    only: the Elo family's close reads nothing more."""
    state: dict[int, Any] = dict(
        _rows(PlayerRating.objects.filter(rating_list=rating_list), "player_id", "entry_state")
    )
    previous_id = _previous_closed(rating_list, month)
    if previous_id is not None:
        after = current_rows(period_id=previous_id)
        state.update(_rows(after, "player_id", "state_after"))
    with_state = rating_list.rating_system.with_state
    return {pid: with_state(start, _decoded(state.get(pid))) for pid, start in starts.items()}


def _decoded(value: Any) -> Any:
    # column_lists reads the column as the driver gives it: JSON text on SQLite.
    return json.loads(value) if isinstance(value, str) else value
