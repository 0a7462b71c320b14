"""The close's read step: a period's inputs from the database, in a fixed number of
queries, as the plain values a rating system plans from (``PeriodInputs``).

What it reads: the players on the list and their state at the start of the period (the
previous closed period's RatingChange rows, else the rating the club entered), the K
overrides in force, the period's games (as columns), its tournaments' dates and, for
tournaments that began in an earlier month, the list published before that month.
"""

from __future__ import annotations

import datetime
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
import psycopg.sql
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
from players.rating.adjustment import RAISED_TO_STANDARD_LIST
from players.rating.fide_rules import BY_DATE
from players.rating.period import (
    GAME_RESULTS,
    ArrayColumn,
    PeriodGames,
    PeriodInputs,
    PlayerStart,
)
from players.selectors import current_rows, ratings_in_force, with_fixed_start
from tournaments.models import Game, Tournament

logger = logging.getLogger(__name__)


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


def _starts(
    rating_list: RatingList,
    month: datetime.date,
    games: PeriodGames | Callable[[], PeriodGames],
) -> dict[int, PlayerStart]:
    """Each player's start; ``games`` (or the call that waits for them) is needed only
    for players listed before their entry month."""
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
    # Only a player whose entry month is still to come needs it (listed early because
    # they play this month): most months have none, and this is two million set adds.
    playing: set[int] = set()
    if any(row[6] is not None and row[6] > month for row in entries):
        played = games() if callable(games) else games
        playing.update(played.white)
        playing.update(played.black)

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


def _with_state(
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


# One game in packed_games's bytes: white, black, the result's index in GAME_RESULTS, rated,
# tournament (0: none), each as PostgreSQL's binary send functions write it (big-endian).
_PACKED_GAME = np.dtype(
    [("white", ">i8"), ("black", ">i8"), ("result", ">i2"), ("rated", "?"), ("tournament", ">i8")]
)
_RESULTS = np.array(list(GAME_RESULTS), dtype=object)


def period_games(period: RatingPeriod) -> PeriodGames:
    """The period's games as columns, in one query. On PostgreSQL the server packs each
    game into a few fixed-width bytes (``_PACKED_GAME``) and sends all of them as one
    bytea, which numpy splits into columns: a million games arrive in about half the time
    that five array_agg arrays took (the server built and the driver decoded a million
    elements each)."""
    queryset = Game.objects.filter(period=period)
    if connection.vendor != "postgresql":
        return PeriodGames(
            *column_lists(queryset, "white_id", "black_id", "result", "rated", "tournament_id")
        )
    sql, params = _packed_games_query(period)
    connection.ensure_connection()
    # A cursor of psycopg's own: Django's are client-side cursors, which cannot ask for a
    # binary result (the bytea would come as hex text, twice the size, then be decoded).
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        row = cursor.fetchone()
    return _unpacked_games(row[0] if row else None)


def _packed_games_query(period: RatingPeriod) -> tuple[str, list[Any]]:
    """PostgreSQL: the query of ``period_games``, one bytea of every game packed."""
    columns = {f.name: connection.ops.quote_name(f.column) for f in Game._meta.concrete_fields}
    codes = " ".join(f"WHEN %s THEN {code}" for code in range(len(_RESULTS)))
    packed = (
        f"int8send({columns['white']}::int8) || int8send({columns['black']}::int8) || "
        f"int2send((CASE {columns['result']} {codes} END)::int2) || "
        f"boolsend({columns['rated']}) || int8send(COALESCE({columns['tournament']}, 0)::int8)"
    )
    sql = (
        f"SELECT string_agg({packed}, ''::bytea) "  # noqa: S608 - names from the model
        f"FROM {connection.ops.quote_name(Game._meta.db_table)} WHERE {columns['period']} = %s"
    )
    return sql, [*_RESULTS.tolist(), period.pk]


def _unpacked_games(packed: bytes | None) -> PeriodGames:
    data = np.frombuffer(packed or b"", dtype=_PACKED_GAME)
    # Kept as arrays (ArrayColumn): the array sums take them as they are; a loop over a
    # column gets its Python values on first use.
    return PeriodGames(
        white=ArrayColumn(data["white"].astype(np.int64)),
        black=ArrayColumn(data["black"].astype(np.int64)),
        result=ArrayColumn(data["result"].astype(np.intp), _result_values),
        rated=ArrayColumn(data["rated"].astype(np.bool_)),
        tournament=ArrayColumn(data["tournament"].astype(np.int64), _tournament_values),
    )


class _GamesBeside:
    """PostgreSQL: ``period_games`` read on a second connection, in this transaction's
    snapshot (``pg_export_snapshot``, as ``pg_dump -j`` reads tables side by side), while
    this connection reads the rest: the server packs the million games of a federation's
    month on one core while it reads the players' states on the other, and this process
    builds the starts meanwhile (the read took 0.83 s, the games half of it).

    Only for a transaction that has written nothing (``read_inputs``' ``untouched``): the
    second connection sees what this transaction's snapshot sees of the others, not this
    transaction's own writes. If the second connection cannot be had (no connection left,
    a role to assume), the games are read here, as without it."""

    def __init__(self, period: RatingPeriod) -> None:
        self._period = period
        self._packed: bytes | None = None
        self._failed: BaseException | None = None
        sql, params = _packed_games_query(period)
        connect = connection.get_connection_params()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
        self._thread = threading.Thread(
            target=self._read, args=(connect, snapshot, sql, params), name="close-games"
        )
        self._thread.start()

    def _read(self, connect: dict[str, Any], snapshot: str, sql: str, params: list[Any]) -> None:
        try:
            with psycopg.connect(**connect) as side:
                side.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                side.read_only = True
                side.execute(
                    psycopg.sql.SQL("SET TRANSACTION SNAPSHOT {}").format(
                        psycopg.sql.Literal(snapshot)
                    )
                )
                with psycopg.Cursor(side) as cursor:
                    cursor.execute(sql, params, binary=True)
                    row = cursor.fetchone()
                side.rollback()
            self._packed = row[0] if row and row[0] else b""
        except Exception as error:  # whatever it was, games() reads them here instead
            self._failed = error

    def wait(self) -> None:
        """Until the second connection is done (read or given up)."""
        self._thread.join()

    def games(self) -> PeriodGames:
        self.wait()
        if self._packed is None:
            logger.warning("The games were read on the close's own connection: %r", self._failed)
            return period_games(self._period)
        return _unpacked_games(self._packed)


def beside_possible() -> bool:
    """Whether ``read_inputs`` may read the games on a second connection
    (``_GamesBeside``): PostgreSQL, outside any transaction yet (the caller's is to be the
    outermost, so it has written nothing when it reads), a snapshot that a REPEATABLE READ
    transaction may import, no role to assume on connecting."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    options = connection.settings_dict.get("OPTIONS") or {}
    level = options.get("isolation_level")
    serializable = level is not None and int(level) == psycopg.IsolationLevel.SERIALIZABLE
    return not serializable and "assume_role" not in options


def _result_values(codes: Any) -> list[str]:
    return _RESULTS[codes].tolist()  # type: ignore[no-any-return]


def _tournament_values(ids: Any) -> list[int | None]:
    values = ids.astype(object)
    values[ids == 0] = None
    return values.tolist()  # type: ignore[no-any-return]


def read_inputs(
    *, rating_list: RatingList, period: RatingPeriod, untouched: bool = False
) -> PeriodInputs:
    """The period's inputs. ``untouched``: the caller's transaction is the outermost and
    has written nothing yet (``beside_possible`` said so before it began), so on
    PostgreSQL the games may come through a second connection in its snapshot
    (``_GamesBeside``) while this one reads the rest."""
    month = period.month
    beside = _GamesBeside(period) if untouched and connection.vendor == "postgresql" else None
    try:
        games: PeriodGames | Callable[[], PeriodGames] = (
            period_games(period) if beside is None else beside.games
        )
        starts = _starts(rating_list, month, games)
        if rating_list.rating_system.keeps_state:
            starts = _with_state(rating_list, month, starts)
        return _inputs(rating_list, month, starts, games() if callable(games) else games)
    finally:
        if beside is not None:
            beside.wait()


def _inputs(
    rating_list: RatingList,
    month: datetime.date,
    starts: dict[int, PlayerStart],
    games: PeriodGames,
) -> PeriodInputs:
    tournaments = {
        tid: (start, end)
        for tid, start, end in Tournament.objects.filter(
            rating_list=rating_list, end_date__gte=month, end_date__lt=add_months(month, 1)
        ).values_list("id", "start_date", "end_date")
    }
    # A tournament that began in an earlier month is scored with the list in force at its
    # start; every other game with the list in force at the period's start, which the
    # states above already hold.
    early_months = sorted({start.replace(day=1) for start, _ in tournaments.values()} - {month})
    in_force = ratings_in_force(
        lists={rating_list.pk: rating_list},
        months=[(rating_list.pk, month), *((rating_list.pk, m) for m in early_months)],
        known={(rating_list.pk, month): {pid: start.rating for pid, start in starts.items()}},
        fixed_start=False,
    )
    # Before the fixed starting rating is applied, a rating in force for a player unrated
    # on the list can only be their standard rating.
    at_start = in_force[(rating_list.pk, month)]
    standard_ratings = (
        {}
        if not rating_list.list_kind.counts_standard
        else {
            **_standard_of_rated(rating_list, month, starts),
            **{
                pid: rating
                for pid, rating in at_start.items()
                if rating is not None and starts[pid].rating is None
            },
        }
    )
    return PeriodInputs(
        settings=rating_list.settings(),
        month=month,
        starts=starts,
        start_ratings=with_fixed_start(rating_list, at_start),
        games=games,
        tournaments=tournaments,
        ratings_at={
            m: with_fixed_start(rating_list, in_force[(rating_list.pk, m)]) for m in early_months
        },
        standard_ratings=standard_ratings,
        standard_on_next_list=_standard_on_next_list(rating_list, month),
    )


def forecast_inputs(
    *, rating_list: RatingList, month: datetime.date, player_ids: Sequence[int]
) -> PeriodInputs:
    """The close's inputs for ``month`` without its games, for a forecast of games of
    ``player_ids`` (tournaments/services/forecast.py): each start as the close would read
    it now, the one the list's entry gives a player listed from a later month included (the
    close lists them early when they play), a player the list lacks none (the forecast
    starts them as ``players_enter_list`` would enter them)."""
    ids = list(player_ids)
    playing = PeriodGames(white=ids, black=[], result=[], rated=[], tournament=[])
    starts = _starts(rating_list, month, playing)
    if rating_list.rating_system.keeps_state:
        starts = _with_state(rating_list, month, starts)
    return _inputs(rating_list, month, starts, PeriodGames([], [], [], [], []))


def _standard_of_rated(
    rating_list: RatingList, month: datetime.date, starts: Mapping[int, Any]
) -> dict[int, int]:
    """A rapid or blitz list: the standard rating in force at the period's start of each
    player rated on the list then. One who falls below the floor this period is unrated on
    the next list, where the Rapid and Blitz Regulations count them as rated with that
    standard rating: their next K is the one it gives (20 for 1800 with 103 games), not a
    new player's 40 (counted_state ignores it for everyone still rated)."""
    rated = {pid for pid, start in starts.items() if start.rating is not None}
    if not rated:
        return {}
    standard = RatingList.objects.filter(
        club_id=rating_list.club_id, slug=engine.ListKind.STANDARD.value
    ).first()
    if standard is None:
        return {}
    key = (standard.pk, month)
    in_force = ratings_in_force(lists={standard.pk: standard}, months=[key], fixed_start=False)
    return {
        pid: rating for pid, rating in in_force[key].items() if rating is not None and pid in rated
    }


def _standard_on_next_list(rating_list: RatingList, month: datetime.date) -> dict[int, int]:
    """FIDE's one-off of 1 October 2022 (players.rating.adjustment): for the close of
    September 2022 of a rapid or blitz list (a kind that counts_standard) under FIDE's
    rules by date, each player's rating on the club's standard list of 1 October 2022 (the
    same rule as every rating in force); empty for every other close."""
    if (
        not rating_list.list_kind.counts_standard
        or rating_list.fide_rules != BY_DATE
        or add_months(month, 1) != RAISED_TO_STANDARD_LIST
    ):
        return {}
    standard = RatingList.objects.filter(
        club_id=rating_list.club_id, slug=engine.ListKind.STANDARD.value
    ).first()
    if standard is None:
        return {}
    key = (standard.pk, RAISED_TO_STANDARD_LIST)
    in_force = ratings_in_force(lists={standard.pk: standard}, months=[key], fixed_start=False)
    return {pid: rating for pid, rating in in_force[key].items() if rating is not None}
