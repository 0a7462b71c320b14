"""The K history in time order: the row entered when a player joined carries the first
month its K applied to, so the last row is the K in force (API, admin, player page).

The issue's case: a player added today (the list has no closed period, so the row was
dated this month) with games two months ago; that close lifts them to 2400, K 20 -> 10 from
last month. The history read "this month: - -> 20" after "last month: 20 -> 10"."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from players.models import KFactorChange, Player, PlayerRating, add_months, month_label
from tests.api.conftest import client_for
from tests.players.admin_world import make_user
from tests.tournaments.helpers import close, make_club, make_player, play

pytestmark = pytest.mark.django_db


class Case:
    def __init__(self) -> None:
        self.owner = make_user("owner", superuser=True)
        self.club = make_club(self.owner, slug="k")
        self.this = timezone.localdate().replace(day=1)
        self.played = add_months(self.this, -2)
        self.ada = make_player(self.club, self.owner, "Ada", 2390)
        bea = make_player(self.club, self.owner, "Bea", 2390)
        play(self.club, self.owner, [(self.ada, bea, "1-0")], date=self.played.replace(day=10))
        close(self.club, self.owner, month_label(self.played))

    def months(self, player: Player) -> list[tuple[str, int | None, int]]:
        return [
            (month_label(k.effective_month), k.old_k, k.new_k)
            for k in KFactorChange.objects.filter(
                player=player, current=True, rating_list__slug="standard"
            ).order_by("effective_month", "id")
        ]


@pytest.fixture
def case() -> Case:
    return Case()


def test_the_entry_row_carries_the_month_of_the_first_games(case: Case) -> None:
    played, after = month_label(case.played), month_label(add_months(case.played, 1))
    assert case.months(case.ada) == [(played, None, 20), (after, 20, 10)]
    in_force = PlayerRating.objects.get(player=case.ada, rating_list__slug="standard").k_factor
    assert in_force == 10


def test_the_api_k_history_ends_with_the_k_in_force(case: Case) -> None:
    answer = client_for(case.owner).get(f"/api/v1/clubs/k/players/{case.ada.pk}/k-history/")
    assert answer.status_code == 200
    body = answer.json()
    rows = body["results"] if isinstance(body, dict) else body
    assert [(r["period"], r["old_k_factor"], r["k_factor"]) for r in rows] == [
        (month_label(case.played), None, 20),
        (month_label(add_months(case.played, 1)), 20, 10),
    ]
    in_force = PlayerRating.objects.get(player=case.ada, rating_list__slug="standard")
    assert rows[-1]["k_factor"] == in_force.k_factor


def _months_in(html: str) -> list[str]:
    return re.findall(r"\b\d{4}-\d{2}\b(?!-)", html)


def test_the_player_page_and_the_admin_list_the_k_history_oldest_first(case: Case) -> None:
    client = Client()
    client.force_login(case.owner)
    expected = [month_label(case.played), month_label(add_months(case.played, 1))]

    page = client.get(reverse("player", args=["k", case.ada.pk])).content.decode()
    tables = [t.split("</table>", 1)[0] for t in page.split('class="k-history"')[1:]]
    (standard,) = [t for t in tables if "standard list" in t.split("</caption>")[0].lower()]
    assert _months_in(standard.split("<tbody>", 1)[1]) == expected

    admin = client.get(reverse("admin:players_player_change", args=[case.ada.pk]))
    html = admin.content.decode()
    inline = html.split("K factor history", 1)[1].split("</fieldset>", 1)[0]
    rows = [row for row in inline.split("<tr")[1:] if "tandard" in row]
    assert [_months_in(row)[0] for row in rows] == expected


def test_a_player_without_games_keeps_the_lists_next_period(case: Case) -> None:
    late = make_player(case.club, case.owner, "Cleo", 1500)
    # The list's next period after the close of the month played.
    assert case.months(late) == [(month_label(add_months(case.played, 1)), None, 20)]


def test_the_data_migration_moves_the_existing_rows_back(case: Case) -> None:
    # A row as the old code wrote it: the month the player was created.
    KFactorChange.objects.filter(player=case.ada, old_k__isnull=True).update(
        effective_month=case.this
    )
    migration: Any = importlib.import_module("players.migrations.0028_k_history_entry_months")
    migration.date_entry_rows(apps, connection.schema_editor())
    played = month_label(case.played)
    assert case.months(case.ada)[0] == (played, None, 20)
    assert case.months(case.ada)[-1][2] == 10
