"""One name order everywhere a person is named: the list's own (``name_order``).

A TRF import stores names as FIDE writes them ("Alves, Pedro"); a list that shows names
given first shows "Pedro Alves" on every page, in the API's games, in the rating e-mail and
in the exports other than TRF (which always carries "Surname, Given")."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from players.models import RatingList, Role
from players.services import membership_set, player_update
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.exports import list_history_csv
from tournaments.models import Game
from tournaments.services import (
    game_update,
    list_replay,
    period_close,
    period_reopen,
    tournament_create,
)

pytestmark = pytest.mark.django_db
DAY = datetime.date(2026, 3, 7)


def world(order: str) -> dict[str, Any]:
    owner = make_owner()
    owner.email = "owner@example.org"
    owner.is_staff = True  # the admin's preview of the close
    owner.save()
    club = make_club(owner)
    club.public = True
    club.save(update_fields=["public"])
    RatingList.objects.filter(club=club).update(name_order=order)
    pedro = make_player(club, owner, "Alves, Pedro", 1600)
    anna = make_player(club, owner, "Berg, Anna", 1500)
    member = make_owner("pedro")
    member.email = "pedro@example.org"
    member.save()
    membership_set(club=club, user=member, role=Role.VIEWER, by=owner)
    player_update(player=pedro, by=owner, user=member.username)
    cup = tournament_create(
        club=club,
        by=owner,
        name="Spring Cup",
        rating_list="standard",
        start_date=DAY,
        end_date=DAY,
        rounds=1,
        city="Riverside",
    )
    play(club, owner, [(pedro, anna, "1-0")], date=DAY, tournament=cup)
    return {
        "owner": owner,
        "member": member,
        "club": club,
        "pedro": pedro,
        "anna": anna,
        "cup": cup,
    }


def places(w: dict[str, Any], capture: Any) -> dict[str, str]:
    """Every place Pedro is named, by name of the place."""
    officer = Client()
    officer.force_login(w["owner"])
    period = period_of(w["club"], "2026-03")
    preview = officer.post(
        reverse("admin:players_ratingperiod_changelist"),
        {"action": "preview_period", "_selected_action": [period.pk]},
        follow=True,
    )
    assert 'id="preview-table"' in preview.content.decode()
    with capture(execute=True):
        period_close(period=period_of(w["club"], "2026-03"), by=w["owner"])
    pedro, anna, cup = w["pedro"], w["anna"], w["cup"]
    anonymous = Client()
    signed_in = Client()
    signed_in.force_login(w["member"])
    api = APIClient()
    api.force_authenticate(w["owner"])
    base = "/clubs/club"
    return {
        "tournament page": anonymous.get(f"{base}/tournaments/{cup.pk}/").content.decode(),
        "player page": anonymous.get(f"{base}/players/{pedro.pk}/").content.decode(),
        "player widget": anonymous.get(f"/embed{base}/players/{pedro.pk}/").content.decode(),
        "list widget": anonymous.get(f"/embed{base}/lists/standard/?n=50").content.decode(),
        "oembed": anonymous.get(
            f"/api/v1/oembed/?url=http://testserver{base}/players/{pedro.pk}/"
        ).content.decode(),
        "head to head": anonymous.get(f"{base}/players/{pedro.pk}/vs/{anna.pk}/").content.decode(),
        "club home": anonymous.get(f"{base}/").content.decode(),
        "list page": anonymous.get(f"{base}/lists/standard/").content.decode(),
        "search": anonymous.get("/players/?q=alves").content.decode(),
        "member home": signed_in.get("/accounts/").content.decode(),
        "API games": api.get("/api/v1/clubs/club/games/").content.decode(),
        "e-mail": next(m.body for m in mail.outbox if m.to == ["pedro@example.org"]),
        "admin preview": preview.content.decode(),
        "list history CSV": list_history_csv(rating_list=cup.rating_list),
    }


@pytest.mark.parametrize(
    ("order", "pedro", "anna"),
    [
        ("given_surname", "Pedro Alves", "Anna Berg"),
        ("surname_given", "Alves, Pedro", "Berg, Anna"),
    ],
)
def test_every_place_names_a_player_as_the_list_does(
    order: str, pedro: str, anna: str, django_capture_on_commit_callbacks: Any
) -> None:
    found = places(world(order), django_capture_on_commit_callbacks)
    assert [place for place, text in found.items() if pedro not in text] == []
    # The other form of either name, anywhere (Anna is Pedro's opponent on his pages).
    other = {"Pedro Alves": "Alves, Pedro", "Alves, Pedro": "Pedro Alves"}[pedro]
    other_anna = {"Anna Berg": "Berg, Anna", "Berg, Anna": "Anna Berg"}[anna]
    assert [place for place, text in found.items() if other in text or other_anna in text] == []
    assert "Spring Cup" in found["tournament page"]
    assert anna in found["tournament page"]
    assert anna in found["head to head"]


@pytest.mark.parametrize(
    ("order", "pedro"), [("given_surname", "Pedro Alves"), ("surname_given", "Alves, Pedro")]
)
def test_a_replay_report_names_players_as_the_list_does(order: str, pedro: str) -> None:
    w = world(order)
    period = period_of(w["club"], "2026-03")
    period_close(period=period, by=w["owner"])
    period_reopen(period=period, by=w["owner"])
    game = Game.objects.get(white=w["pedro"])
    game_update(game=game, by=w["owner"], result="0-1")
    run = list_replay(rating_list=period.rating_list, by=w["owner"])
    lines = run.report.splitlines()[1:]
    assert lines, run.report
    assert all(
        line.startswith(("Pedro Alves", "Anna Berg", "Alves, Pedro", "Berg, Anna"))
        for line in lines
    )
    assert any(line.startswith(pedro) for line in lines), run.report
    assert {"given_surname": "Alves, Pedro", "surname_given": "Pedro Alves"}[
        order
    ] not in run.report
