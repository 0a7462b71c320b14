"""The published list as CSV (``ratings.csv``, and ``ratings/?format=csv``): one row per
player, best first.

``csv_stream`` writes the rows as the database sends them (``values_list``, a few
thousand at a time): no model instance nor serializer per row, and the first bytes leave
before the last row is read. ``RatingsCSVRenderer`` is the content negotiation's name for
the format, and renders the serializer's rows the same way (the streamed file equals it
byte for byte: tests/api/test_ratings_csv.py).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from rest_framework import renderers
from rest_framework.request import Request

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
            return [renderers.JSONRenderer()]
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


_FIELDS = (
    "rank",
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


def csv_chunks(rows: QuerySet[RatingChange], *, name_order: str) -> Iterator[bytes]:
    """``rows`` (``published_list`` with its ``rank``) as the CSV's bytes, a chunk at a
    time: the serializer's values (RatingRowSerializer), written as the renderer does."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    first = RatingChange.Event.FIRST_RATING
    labels: dict[Any, str] = {}
    if rows.query.is_empty():
        # Nothing published yet (``published_list``'s none(): no annotations to read).
        yield out.getvalue().encode("utf-8")
        return
    for row in rows.values_list(*_FIELDS).iterator(chunk_size=2000):
        (rank, player, name, title, federation, rating, change, k, games, rated) = row[:10]
        event, inactive, active, month = row[10:]
        # One meaning of "inactive" everywhere: FIDE's twelve months without a rated
        # game, or the club's own "active" box unticked (as the serializer's flags).
        flags = ";".join(
            flag
            for flag, on in (("first_rating", event == first), ("inactive", inactive or not active))
            if on
        )
        label = labels.get(month) or labels.setdefault(month, month_label(month))
        writer.writerow(
            (
                rank,
                player,
                csv_cell(display_name(name, name_order)),
                csv_cell(title),
                csv_cell(federation),
                rating,
                "" if change is None else change,
                "" if k is None else k,
                games,
                rated,
                csv_cell(flags),
                csv_cell(label),
            )
        )
        if out.tell() >= CHUNK:
            yield out.getvalue().encode("utf-8")
            out.seek(0)
            out.truncate()
    yield out.getvalue().encode("utf-8")


def csv_stream(rows: QuerySet[RatingChange], *, name_order: str) -> StreamingHttpResponse:
    return StreamingHttpResponse(csv_chunks(rows, name_order=name_order), content_type=CONTENT_TYPE)
