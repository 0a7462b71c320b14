"""The close's read step: a period's inputs from the database, in a fixed number of
queries, as the plain values a rating system plans from (``PeriodInputs``).

What it reads: the players on the list and their state at the start of the period
(``start.py``), the period's games (as columns), its tournaments' dates and, for
tournaments that began in an earlier month, the list published before that month.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
import psycopg.sql
from django.db import connection

from players import rating as engine
from players.models import (
    RatingList,
    RatingPeriod,
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
from players.selectors import ratings_in_force, with_fixed_start
from tournaments.models import Game, Tournament
from tournaments.services.close.start import (
    StartRows,
    column_lists,
    player_starts,
    with_states,
)

logger = logging.getLogger(__name__)

# A period with fewer games reads them on the close's own connection: a second connection
# (``_GamesBeside``) costs a new server process and a thread, 10-20 ms of the machine's CPU
# measured per close of a 50-player club (a fifth of it), while reading 20,000 games
# takes the server about as long as opening that connection.
BESIDE_GAMES = 20_000


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

    Only for a period of ``BESIDE_GAMES`` games or more, and a transaction that has written
    nothing (``read_inputs``' ``untouched``): the second connection sees what this
    transaction's snapshot sees of the others, not this transaction's own writes. If the
    second connection cannot be had (no connection left, a role to assume), the games are
    read here, as without it."""

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


def _many_games(period: RatingPeriod) -> bool:
    """Whether ``period`` has ``BESIDE_GAMES`` games or more: an index scan that stops
    there, however many games a federation's month has."""
    games = Game.objects.filter(period=period).order_by().values("pk")
    return games[BESIDE_GAMES - 1 : BESIDE_GAMES].exists()


def _result_values(codes: Any) -> list[str]:
    return _RESULTS[codes].tolist()  # type: ignore[no-any-return]


def _tournament_values(ids: Any) -> list[int | None]:
    values = ids.astype(object)
    values[ids == 0] = None
    return values.tolist()  # type: ignore[no-any-return]


def read_inputs(
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    untouched: bool = False,
    start: StartRows | None = None,
    starts: dict[int, PlayerStart] | None = None,
) -> PeriodInputs:
    """The period's inputs. ``untouched``: the caller's transaction is the outermost and
    has written nothing yet (``beside_possible`` said so before it began), so on
    PostgreSQL a period of ``BESIDE_GAMES`` games or more gets them through a second
    connection in its snapshot (``_GamesBeside``) while this one reads the rest.
    ``start``: the period's start rows as the caller kept them (``start_rows``), else read
    now; ``starts``: the players' starts made from them, kept too (``starts_kept``)."""
    month = period.month
    beside = (
        _GamesBeside(period)
        if untouched and connection.vendor == "postgresql" and _many_games(period)
        else None
    )
    try:
        games: PeriodGames | Callable[[], PeriodGames] = (
            period_games(period) if beside is None else beside.games
        )
        if starts is None:
            starts = player_starts(rating_list, month, games, start)
        if rating_list.rating_system.keeps_state:
            starts = with_states(rating_list, month, starts)
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
    starts = player_starts(rating_list, month, playing)
    if rating_list.rating_system.keeps_state:
        starts = with_states(rating_list, month, starts)
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
