"""The published list as CSV (``ratings.csv`` and ``ratings/?format=csv``): streamed from
plain rows, the same bytes the serializer and renderer made, a fixed number of queries,
and served from the cache of public views as the stored bytes."""

from __future__ import annotations

import datetime
import time
from typing import Any

import pytest
from django.test import Client

from players.http.cache import REBUILD_SECONDS
from players.models import RatingList, RatingPeriod
from players.selectors import published_list
from players.services import player_update
from tests.pages_data import ClubData, build_club
from tournaments.api import ratings_csv
from tournaments.api.periods import RatingRowSerializer

pytestmark = pytest.mark.django_db

CSV = "/api/v1/clubs/riverside/lists/standard/ratings.csv"
FORMAT_CSV = "/api/v1/clubs/riverside/lists/standard/ratings/?format=csv"


@pytest.fixture
def data() -> ClubData:
    club = build_club(crowd=12)
    # Cells a spreadsheet would misread, and a club's own "inactive" mark.
    player_update(player=club.players["magnus"], by=club.owner, name="@Magnus Berg")
    player_update(player=club.crowd[0], by=club.owner, active=False)
    return club


@pytest.fixture
def cache_on(settings: Any) -> None:
    settings.PUBLISHED_CACHE_SECONDS = 600


def _serialized(rating_list: RatingList, period: RatingPeriod | None = None) -> bytes:
    """What the view answered before it streamed: the serializer's rows, rendered."""
    from django.db.models import F, Window
    from django.db.models.functions import Rank

    rows = published_list(rating_list=rating_list, period=period).annotate(
        rank=Window(Rank(), order_by=F("rating_after").desc())
    )
    context = {"name_order": rating_list.name_order}
    return ratings_csv.RatingsCSVRenderer().render(
        RatingRowSerializer(rows, many=True, context=context).data
    )


def test_the_streamed_csv_is_the_serializers_byte_for_byte(data: ClubData) -> None:
    rating_list = RatingList.objects.get(club=data.club, kind="standard")
    # February: the Winter Open's first ratings.
    february = RatingPeriod.objects.get(rating_list=rating_list, month=datetime.date(2026, 2, 1))
    expected = _serialized(rating_list, february)
    for url in (CSV + "?period=2026-02", FORMAT_CSV + "&period=2026-02"):
        response = Client().get(url, HTTP_ACCEPT="*/*")
        assert response.status_code == 200
        assert response.streaming
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        body = b"".join(response.streaming_content)  # type: ignore[arg-type]
        assert body == expected
    lines = expected.decode().splitlines()
    assert len(lines) > 10
    assert any(",'@Magnus Berg," in line for line in lines)  # never a formula
    assert any(line.split(",")[10] == "first_rating" for line in lines[1:])
    assert any("inactive" in line.split(",")[10] for line in lines[1:])


def test_the_csv_costs_the_same_queries_whatever_the_rows(
    data: ClubData, django_assert_max_num_queries: Any
) -> None:
    rating_list = RatingList.objects.get(club=data.club, kind="standard")
    listed = published_list(rating_list=rating_list).count()
    assert listed > 10
    # Club, list, period, the rows: never a query per row.
    with django_assert_max_num_queries(8):
        response = Client().get(CSV)
        lines = b"".join(response.streaming_content).count(b"\n")  # type: ignore[arg-type]
    assert lines == listed + 1


def test_a_cached_csv_is_the_stored_bytes_not_a_new_rendering(
    data: ClubData,
    cache_on: None,
    monkeypatch: pytest.MonkeyPatch,
    django_assert_max_num_queries: Any,
) -> None:
    rendered: list[int] = []
    chunks = ratings_csv.csv_chunks

    def counted(*args: Any, **kwargs: Any) -> Any:
        rendered.append(1)
        return chunks(*args, **kwargs)

    monkeypatch.setattr(ratings_csv, "csv_chunks", counted)
    first = Client().get(CSV)
    body = b"".join(first.streaming_content)  # type: ignore[arg-type]
    assert rendered == [1]
    with django_assert_max_num_queries(0):
        again = Client().get(CSV)
    assert rendered == [1]
    assert not again.streaming
    assert again.content == body
    assert again["Content-Type"] == first["Content-Type"]
    assert again["Content-Disposition"] == 'attachment; filename="riverside-standard-ratings.csv"'


@pytest.mark.django_db(transaction=True)
def test_a_csv_stream_cut_short_is_not_stored(data: ClubData, cache_on: None) -> None:
    response = Client().get(CSV)
    # The client went away after the first chunk: the server closes the response, as
    # every WSGI server does (transactional, since the close ends the request and with it
    # the connection). Left to the garbage collector instead, the stream kept its claim on
    # the rebuild and the next request waited REBUILD_SECONDS (5 s on PostgreSQL) for it.
    next(iter(response.streaming_content))  # type: ignore[arg-type]
    response.close()
    started = time.monotonic()
    again = Client().get(CSV)
    assert again.streaming  # computed again, not a half file from the cache
    # The close released the rebuild: the next request computed without waiting for it.
    assert time.monotonic() - started < REBUILD_SECONDS


def test_a_list_with_nothing_published_is_the_header_alone(data: ClubData) -> None:
    response = Client().get("/api/v1/clubs/riverside/lists/blitz/ratings.csv")
    assert response.status_code == 200
    assert response.getvalue() == (",".join(ratings_csv.COLUMNS) + "\n").encode()
