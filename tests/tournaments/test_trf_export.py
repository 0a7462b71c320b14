"""The TRF export: the rating in force at the tournament's start, not today's; names
Surname, Given whatever the list shows; no line break from any text; the headers read from
an imported TRF written back."""

from __future__ import annotations

import pytest

from players.services import player_update
from tests.tournaments.export_world import OCTOBER, SEPTEMBER, event, two_player_club
from tests.tournaments.helpers import close
from tests.tournaments.import_world import build_import_world, read
from tournaments.exports import tournament_trf
from tournaments.interchange import parse_trf
from tournaments.models import Tournament
from tournaments.services import (
    tournament_update,
)
from tournaments.services.imports import import_trf

pytestmark = pytest.mark.django_db


@pytest.fixture
def club_world():  # type: ignore[no-untyped-def]
    return two_player_club()


def trf_ratings(text: str) -> dict[str, int | None]:
    return {player.name: player.rating for player in parse_trf(text.encode()).players}


def test_trf_writes_the_rating_in_force_at_the_start_not_todays(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    september = event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "0-1")])
    close(club, owner, "2026-09")
    viktor.refresh_from_db()
    today = {r.player_id: r.rating for r in viktor.ratings.all()} | {
        r.player_id: r.rating for r in ola.ratings.all()
    }
    assert today[viktor.pk] != 1800  # the close moved them

    # Written a year later, the September file still carries September's ratings.
    assert trf_ratings(tournament_trf(tournament=september)) == {
        "Aronsen, Viktor": 1800,
        "Berg, Ola": 1700,
    }
    october = event(club, owner, "October Cup", OCTOBER, [(viktor, ola, "1-0")])
    assert trf_ratings(tournament_trf(tournament=october)) == {
        "Aronsen, Viktor": today[viktor.pk],
        "Berg, Ola": today[ola.pk],
    }


def test_trf_names_are_surname_first_whatever_the_list_shows(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=ola, by=owner, name="Ola Berg")
    september = event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])

    names = [
        player.name for player in parse_trf(tournament_trf(tournament=september).encode()).players
    ]

    assert sorted(names) == ["Aronsen, Viktor", "Berg, Ola"]


def test_no_line_break_reaches_a_trf(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=viktor, by=owner, name="Viktor\r\nAronsen")
    september = event(
        club,
        owner,
        "Autumn\r\nOpen\n001 forged",
        SEPTEMBER,
        [(viktor, ola, "1-0")],
        city="Oslo\x0b\u2028N",
    )

    text = tournament_trf(tournament=september)

    lines = text.split("\r\n")
    assert lines[-1] == ""
    assert all("\n" not in line and "\r" not in line for line in lines)
    assert [line[:3] for line in lines[:-1]].count("001") == 2
    parsed = parse_trf(text.encode())
    assert parsed.name == "Autumn Open 001 forged"
    assert parsed.city == "Oslo N"
    assert sorted(player.name for player in parsed.players) == ["Aronsen, Viktor", "Berg, Ola"]


def test_trf_headers_survive_the_round_trip() -> None:
    world = build_import_world("headers")
    import_trf(
        club=world.club,
        rating_list="standard",
        data=read("round_robin_trf26.trf"),
        by=world.arbiter,
    )
    tournament = Tournament.objects.get(club=world.club)
    assert (tournament.federation, tournament.tournament_type, tournament.time_control) == (
        "SWE",
        "Round robin",
        "90 min + 30 sec/move",
    )
    tournament_update(tournament=tournament, by=world.users["owner"], arbiter="Sven Larsson (IA)")

    parsed = parse_trf(tournament_trf(tournament=tournament).encode())

    assert (parsed.federation, parsed.tournament_type, parsed.time_control) == (
        "SWE",
        "Round robin",
        "90 min + 30 sec/move",
    )
    assert parsed.extra_headers["102"] == ("Sven Larsson (IA)",)
    assert parsed.extra_headers["142"] == ("5",)
