"""The head-to-head page: reached from the player page's opponents, the score and every
game between the two with its expected score, and only for two players of the club."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from django.test import Client

from players.rating.expected import expected_from_table
from ratings_site.templatetags.ratings import score
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club
from tournaments.models import Game

pytestmark = pytest.mark.django_db


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module("data", build_club)


def text(response: Any) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_opponents_link_to_the_head_to_head(client: Client, data: ClubData) -> None:
    alice, omar = data.players["alice"], data.players["omar"]
    html = client.get(f"/clubs/riverside/players/{alice.pk}/").content.decode()
    assert f'href="/clubs/riverside/players/{alice.pk}/vs/{omar.pk}/"' in html


def test_head_to_head_score_games_and_expected(client: Client, data: ClubData) -> None:
    alice, omar = data.players["alice"], data.players["omar"]
    games = Game.objects.filter(white__in=[alice, omar], black__in=[alice, omar])
    assert games.exists()
    response = client.get(f"/clubs/riverside/players/{alice.pk}/vs/{omar.pk}/")
    assert response.status_code == 200
    page = text(response)
    assert "Alice Chen against Omar Reyes" in page
    # Every game between them, scored from Alice's side (all were played: no forfeits).
    points = {"1-0": Fraction(1), "0-1": Fraction(0), "1/2-1/2": Fraction(1, 2)}
    alice_points = sum(
        (points[g.result] if g.white_id == alice.pk else 1 - points[g.result] for g in games),
        Fraction(0),
    )
    count = games.count()
    html = response.content.decode()
    summary = re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('id="h2h-score">')[1].split("</p>")[0])
    )
    expected_line = f"Alice Chen {score(alice_points)} – {score(count - alice_points)} Omar Reyes"
    assert summary.startswith(expected_line), summary
    assert f"({count} game{'s' if count != 1 else ''}:" in summary
    # The first game's expected score: FIDE's table at Alice's and Omar's January ratings
    # (the ratings entered: no earlier list). Alice 1650, Omar 1820: 170 apart -> 0.27.
    first = response.content.decode().split('id="h2h-games"')[1].split("</tr>")[1]
    assert "1650 – 1820" in re.sub(r"<[^>]+>", "", first)
    assert f"{float(expected_from_table(-170)):.2f}" in first


def test_head_to_head_needs_two_players_of_the_club(client: Client, data: ClubData) -> None:
    alice = data.players["alice"]
    other = build_club(slug="other")
    stranger = other.players["alice"]
    assert client.get(f"/clubs/riverside/players/{alice.pk}/vs/{stranger.pk}/").status_code == 404
    assert client.get(f"/clubs/riverside/players/{alice.pk}/vs/{alice.pk}/").status_code == 404
    never = data.players["nina"]
    boris = data.players["boris"]
    page = text(client.get(f"/clubs/riverside/players/{never.pk}/vs/{boris.pk}/"))
    assert "have not played each other" in page
