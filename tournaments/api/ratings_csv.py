"""The published list as CSV (``ratings.csv``, and ``ratings/?format=csv``): one row per
player, best first.

``csv_stream`` writes the rows as the database sends them (``values_list``, a few
thousand at a time): no model instance nor serializer per row, and the first bytes leave
before the last row is read. ``RatingsCSVRenderer`` is the content negotiation's name for
the format, and renders the serializer's rows the same way (the streamed file equals it
byte for byte: tests/api/test_ratings_csv.py).
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import io
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from psycopg import pq as psycopg_pq
from rest_framework import renderers
from rest_framework.request import Request

from players.http.renderers import JSONRenderer
from players.models import RatingChange, month_label
from players.names import display_name
from tournaments.interchange.text import csv_cell

COLUMNS = (
    "rank",
    "player",
    "name",
    "title",
    "federation",
    "rating",
    "change",
    "k_factor",
    "games",
    "rated_games",
    "flags",
    "period",
)
CONTENT_TYPE = "text/csv; charset=utf-8"
# Bytes gathered before a chunk is sent: large enough that the writes stay few.
CHUNK = 64 * 1024


class RatingsCSVRenderer(renderers.BaseRenderer):
    """The published list as CSV, one row per player, best first."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    columns = COLUMNS

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        for row in data if isinstance(data, list) else []:
            values = {**row, "flags": ";".join(row.get("flags", []))}
            # Text cells on one line and never a formula (names are typed by users).
            writer.writerow([_csv_value(values[c]) for c in self.columns])
        return out.getvalue().encode("utf-8")


class CSVOnlyView:
    """For a view whose URL names CSV (``renderer_classes``: its one CSV renderer): a
    client's Accept header does not turn it into a 406, and the schema documents the
    errors in the one JSON shape (handle_exception answers them as JSON), the success
    alone as CSV."""

    renderer_classes: list[type[renderers.BaseRenderer]]
    is_schema_view: bool

    def get_renderers(self) -> list[renderers.BaseRenderer]:
        if self.is_schema_view:
            return [JSONRenderer()]
        chosen: list[renderers.BaseRenderer] = super().get_renderers()  # type: ignore[misc]
        return chosen

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[renderers.BaseRenderer, str]:
        renderer = self.renderer_classes[0]()
        return renderer, renderer.media_type


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    return csv_cell(value) if isinstance(value, str) else value


# The rank is no column read: ``csv_chunks`` counts it from the rows' order.
_FIELDS = (
    "player_id",
    "player__name",
    "player__title",
    "player__federation",
    "rating_after",
    "change",
    "k_next",
    "games",
    "rated_games_after",
    "event",
    "inactive",
    "player__active",
    "period__month",
)


# Rows fetched from the database at a time.
FETCH_ROWS = 2000


def _fetched(rows: QuerySet[Any]) -> Iterator[list[tuple[Any, ...]]]:
    """``rows`` (a ``values_list``) as the database sends them, ``FETCH_ROWS`` at a time.

    The query's own SQL, without Django's ``iterator()``: on PostgreSQL that declared a
    cursor WITH HOLD (outside a transaction the whole result is first written aside on
    the server) and converted each value in Python; a 5,000-row list spent half its time
    there. Here PostgreSQL sends the rows in chunks as the query yields them (psycopg's
    ``stream``, libpq 17 or newer) and the process holds one chunk at a time (a plain
    cursor would receive all 200,000 rows, 65 MB, before the first). The connection is
    busy until the stream ends or is closed (the response closes it when the client goes
    away); nothing else reads from it meanwhile. Elsewhere (SQLite) a plain cursor.

    The values are the driver's: booleans may come as 0 and 1, and dates as ISO text on
    SQLite (``csv_chunks`` reads them so; the CSV equals the serializer's on both,
    tests/api/test_ratings_csv.py)."""
    sql, params = rows.query.sql_with_params()
    connection = connections[rows.db]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and psycopg_pq.version() >= 170000:
            # Logged and counted as Django's own queries are (DEBUG, the tests).
            logged = getattr(cursor, "debug_sql", None)
            with logged(sql, params) if logged is not None else contextlib.nullcontext():
                streamed = cursor.cursor.stream(sql, params, size=FETCH_ROWS)
                batch = list(itertools.islice(streamed, FETCH_ROWS))
            while batch:
                yield batch
                batch = list(itertools.islice(streamed, FETCH_ROWS))
            return
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(FETCH_ROWS):
            yield batch


def csv_chunks(rows: QuerySet[RatingChange], *, name_order: str) -> Iterator[bytes]:
    """``rows`` (``published_list``, best first) as the CSV's bytes, a chunk at a time: the
    serializer's values (RatingRowSerializer), written as the renderer does.

    The rank (RANK() over the rating, best first: tied players share it, the next rank
    skips) is counted here from the rows' order rather than read from a window in the
    query: at 200,000 rows the window took a quarter of the query's time."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    if rows.query.is_empty():
        # Nothing published yet (``published_list``'s none(): no annotations to read).
        yield out.getvalue().encode("utf-8")
        return
    if tuple(rows.query.order_by[:1]) != ("-rating_after",):
        raise ValueError("csv_chunks counts ranks from rows ordered best first.")
    position, rank, previous = 0, 0, None
    first = RatingChange.Event.FIRST_RATING
    # One meaning of "inactive" everywhere: FIDE's twelve months without a rated game, or
    # the club's own "active" box unticked (as the serializer's flags).
    flags = {
        (False, False): "",
        (True, False): "first_rating",
        (False, True): "inactive",
        (True, True): "first_rating;inactive",
    }
    # Titles, federations and months are few: each cell is made once.
    cells: dict[Any, str] = {}

    def cell(text: str) -> str:
        found = cells.get(text)
        if found is None:
            found = cells[text] = csv_cell(text)
        return found

    labels: dict[Any, str] = {}
    for batch in _fetched(rows.values_list(*_FIELDS)):
        lines = []
        for (
            player,
            name,
            title,
            federation,
            rating,
            change,
            k,
            games,
            rated,
            event,
            inactive,
            active,
            month,
        ) in batch:
            position += 1
            if rating != previous:
                rank, previous = position, rating
            label = labels.get(month)
            if label is None:
                label = labels[month] = cell(_month_label(month))
            # csv writes None (no change, no K) as an empty cell, as the renderer does.
            lines.append(
                (
                    rank,
                    player,
                    csv_cell(display_name(name, name_order)),
                    cell(title),
                    cell(federation),
                    rating,
                    change,
                    k,
                    games,
                    rated,
                    flags[event == first, bool(inactive or not active)],
                    label,
                )
            )
        writer.writerows(lines)
        if out.tell() >= CHUNK:
            yield out.getvalue().encode("utf-8")
            out.seek(0)
            out.truncate()
    yield out.getvalue().encode("utf-8")


def _month_label(month: datetime.date | str) -> str:
    """A period's label from the driver's value (SQLite's is the ISO text)."""
    if isinstance(month, str):
        month = datetime.date.fromisoformat(month)
    return month_label(month)


def csv_stream(rows: QuerySet[RatingChange], *, name_order: str) -> StreamingHttpResponse:
    return StreamingHttpResponse(csv_chunks(rows, name_order=name_order), content_type=CONTENT_TYPE)
