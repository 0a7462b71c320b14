"""The list exports' names: no CSV cell a formula, no control character in the CSV or
the TXT (the file's and the API's), and names in the order the list chooses (the TXT always
Surname, Given as FIDE's list)."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.models import RatingList
from players.services import player_update, rating_list_update
from tests.tournaments.export_world import SEPTEMBER, event, two_player_club
from tests.tournaments.helpers import close
from tournaments.exports import list_export

pytestmark = pytest.mark.django_db


@pytest.fixture
def club_world():  # type: ignore[no-untyped-def]
    return two_player_club()


@pytest.fixture
def published(club_world):  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=viktor, by=owner, name='=HYPERLINK("http://x")\nViktor')
    player_update(player=ola, by=owner, name="Ola Berg", federation="NOR")
    event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])
    close(club, owner, "2026-09")
    return owner, club


def test_list_csv_and_txt_carry_no_control_character_and_no_formula(published) -> None:  # type: ignore[no-untyped-def]
    _owner, club = published
    rating_list = RatingList.objects.get(club=club, kind="standard")
    period = rating_list.periods.get()

    rows = list(
        csv.reader(io.StringIO(list_export(rating_list=rating_list, period=period, format="csv")))
    )
    names = [row[2] for row in rows[1:]]
    assert '\'=HYPERLINK("http://x") Viktor' in names
    txt = list_export(rating_list=rating_list, period=period, format="txt")
    assert len(txt.splitlines()) == 3  # header and two players, nothing split


def test_api_csv_escapes_formulas_and_line_breaks(published) -> None:  # type: ignore[no-untyped-def]
    owner, club = published
    client = APIClient()
    client.force_authenticate(owner)
    response = client.get(f"/api/v1/clubs/{club.slug}/lists/standard/ratings/?format=csv")

    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.getvalue().decode())))
    assert len(rows) == 3
    assert {row[2] for row in rows[1:]} == {"Ola Berg", '\'=HYPERLINK("http://x") Viktor'}


def test_names_follow_the_lists_order_setting(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])
    close(club, owner, "2026-09")
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/v1/clubs/{club.slug}/lists/standard/"

    def names() -> set[str]:
        rows = api.get(url + "ratings/").json()["results"]
        return {row["name"] for row in rows}

    assert names() == {"Viktor Aronsen", "Ola Berg"}  # the default: Given Surname
    response = api.patch(url, {"name_order": "surname_given"}, format="json")
    assert response.status_code == 200
    assert response.json()["name_order"] == "surname_given"
    assert response.json()["preset"] == "FIDE standard"  # a display choice keeps the preset
    assert names() == {"Aronsen, Viktor", "Berg, Ola"}
    rating_list = RatingList.objects.get(club=club, kind="standard")
    period = rating_list.periods.get()
    rows = list(
        csv.reader(io.StringIO(list_export(rating_list=rating_list, period=period, format="csv")))
    )
    assert {row[2] for row in rows[1:]} == {"Aronsen, Viktor", "Berg, Ola"}
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/lists/standard/").content.decode()
    assert "Aronsen, Viktor" in page
    assert api.patch(url, {"name_order": "backwards"}, format="json").status_code == 400
    rating_list_update(rating_list=rating_list, by=owner, name_order="given_surname")
    assert names() == {"Viktor Aronsen", "Ola Berg"}
    # The TXT follows FIDE's list: Surname, Given whatever the setting.
    txt = list_export(rating_list=rating_list, period=period, format="txt")
    assert "Aronsen, Viktor" in txt
    assert "Berg, Ola" in txt
