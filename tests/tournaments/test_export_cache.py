"""The list's download (``export.csv``, ``export.txt``) from the cache of public views: an
anonymous visitor of a public club gets the stored bytes of the club's current generation,
as the API's ``ratings.csv``; a change or a club made private retires them, and a member
gets the file afresh."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from players.http.cache import STALE_HEADER
from players.services import club_update, player_update
from tests.pages_data import ClubData, build_club, refreshed
from tournaments import views_exports

pytestmark = pytest.mark.django_db

CSV = "/clubs/riverside/lists/standard/export.csv"
TXT = "/clubs/riverside/lists/standard/export.txt"


@pytest.fixture
def data(settings: Any) -> ClubData:
    settings.PUBLISHED_CACHE_SECONDS = 600
    return build_club(crowd=4)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The formats of the files built (not served from the cache)."""
    formats: list[str] = []
    build = views_exports.list_export

    def counted(**kwargs: Any) -> str:
        formats.append(kwargs["format"])
        return build(**kwargs)

    monkeypatch.setattr(views_exports, "list_export", counted)
    return formats


def test_a_download_twice_the_second_is_the_stored_bytes(
    data: ClubData, built: list[str], django_assert_max_num_queries: Any
) -> None:
    first = Client().get(CSV)
    assert first.status_code == 200
    with django_assert_max_num_queries(0):
        again = Client().get(CSV)
    assert built == ["csv"]
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"] == "text/csv; charset=utf-8"
    assert again["Content-Disposition"] == first["Content-Disposition"]
    assert first["Content-Disposition"].startswith('attachment; filename="riverside-standard-')
    assert STALE_HEADER not in again
    # Another format: its own entry.
    text = Client().get(TXT)
    assert text.status_code == 200
    assert text.content != first.content
    assert Client().get(TXT).content == text.content
    assert built == ["csv", "txt"]


def test_the_stored_file_is_the_same_in_every_language(data: ClubData, built: list[str]) -> None:
    english = Client().get(CSV, HTTP_ACCEPT_LANGUAGE="en")
    german = Client().get(CSV, HTTP_ACCEPT_LANGUAGE="de")
    assert german.content == english.content
    assert built == ["csv"]


def test_a_change_retires_the_stored_file(data: ClubData, built: list[str]) -> None:
    first = Client().get(CSV)
    player_update(player=data.players["magnus"], by=data.owner, name="Magnus Renamed")
    # The next visitor is given the previous file, marked, and the new one is made once
    # it is delivered: the visitor after has it, built once.
    again = refreshed(Client(), CSV)
    assert built == ["csv", "csv"]
    assert b"Magnus Renamed" in again.content
    assert b"Magnus Renamed" not in first.content


def test_a_club_made_private_is_not_served_from_the_cache(data: ClubData, built: list[str]) -> None:
    assert Client().get(CSV).status_code == 200
    club_update(club=data.club, by=data.owner, public=False)
    assert Client().get(CSV).status_code == 404
    # Its members still get the file, built for them and never stored for anyone else.
    member = Client()
    member.force_login(data.owner)
    assert member.get(CSV).status_code == 200
    assert Client().get(CSV).status_code == 404
    assert built == ["csv", "csv"]


def test_a_private_club_s_file_is_never_stored(settings: Any, built: list[str]) -> None:
    settings.PUBLISHED_CACHE_SECONDS = 600
    data = build_club(public=False, crowd=2)
    member = Client()
    member.force_login(data.owner)
    assert member.get(CSV).status_code == 200
    club_update(club=data.club, by=data.owner, public=True)
    assert Client().get(CSV).status_code == 200
    assert built == ["csv", "csv"]


def test_errors_are_not_stored(data: ClubData) -> None:
    assert Client().get(CSV + "?period=1999-01").status_code == 404
    assert Client().get(CSV + "?period=1999-01").status_code == 404
    assert Client().get(CSV + "?period=soon").status_code == 400
