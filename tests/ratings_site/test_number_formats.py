"""Numbers on the pages (issue 24, point 7): ratings and rating changes never carry a
thousands separator, in any language and whatever USE_THOUSAND_SEPARATOR says; one table
writes fractions of points one way (glyphs, or decimals throughout); the decimal mark
follows the page's language."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import translation

from players.models import Club
from ratings_site.pages.engine_text import engine_text
from ratings_site.templatetags.ratings import figure, points, signed
from ratings_site.templatetags.tournament_pages import standings_rows


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("grouping", [False, True])
def test_ratings_and_changes_are_never_grouped(language: str, grouping: bool) -> None:
    with override_settings(USE_THOUSAND_SEPARATOR=grouping), translation.override(language):
        assert figure(Decimal(2345), 0) == "2345"
        assert figure(1848.4, 0) == "1848"
        assert signed(1398) == "+1398"
        assert signed(-1398) == "−1398"
        # Engine sentences (notes, the calculator's summary) read the same.
        assert "1512" in engine_text("capped at 1,512 (computed 1,530)")
        assert "1.512" not in engine_text("capped at 1,512 (computed 1,530)")


def test_decimals_follow_the_language() -> None:
    with translation.override("en"):
        assert figure(Decimal("15.19")) == "15.19"
        assert signed(Decimal("8.4"), 2) == "+8.40"
    with translation.override("de"):
        assert figure(Decimal("15.19")) == "15,19"
        assert signed(Decimal("8.4"), 2) == "+8,40"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(17, 2), "8½"),
        (Fraction(13, 4), "3¼"),
        (Fraction(3, 4), "¾"),
        (Fraction(1, 2), "½"),
        (Fraction(1, 4), "¼"),
        (Decimal("10.75"), "10¾"),
        (4, "4"),
        (0, "0"),
    ],
)
def test_points_in_glyphs(value: Any, shown: str) -> None:
    assert points(value) == shown


def test_points_as_decimals_when_the_table_asks() -> None:
    with translation.override("en"):
        assert points(Fraction(17, 2), True) == "8.50"
        assert points(Fraction(13, 4), True) == "3.25"
    with translation.override("de"):
        assert points(Fraction(13, 4), True) == "3,25"


def _row(rank: int, name: str, score: Fraction, sb: Fraction) -> SimpleNamespace:
    tiebreaks = SimpleNamespace(
        score=score,
        buchholz_cut1=Fraction(6),
        buchholz=Fraction(13, 2),
        sonneborn_berger=sb,
        wins=2,
        direct_encounter=None,
    )
    return SimpleNamespace(
        standing=SimpleNamespace(rank=rank, shared=False, tiebreaks=tiebreaks),
        player=SimpleNamespace(pk=rank, name=name, title=""),
        rating=1848,
        performance=2013,
        change=12,
        change_note="",
    )


#: The tournament of the views below: its list shows names given first, no period yet.
GIVEN_FIRST = SimpleNamespace(rating_list=SimpleNamespace(name_order="given_surname"))


def _cells(html: str) -> str:
    return " ".join(re.findall(r">([^<>]*)<", html))


def test_standings_write_sonneborn_berger_like_the_points() -> None:
    """Before: SB "3.25" beside "8½" in the same table."""
    club = Club(slug="riverside", name="Riverside")
    view = SimpleNamespace(
        tournament=GIVEN_FIRST,
        period=None,
        rows=[
            _row(1, "Ann", Fraction(17, 2), Fraction(13, 4)),
            _row(2, "Bob", Fraction(8), Fraction(49, 2)),
        ],
    )
    html = standings_rows(view, club)
    cells = _cells(html)
    assert "8½" in cells
    assert "3¼" in cells
    assert "24½" in cells
    assert "3.25" not in cells
    # The rating is written as the lists write it.
    assert "1848" in cells
    assert "1,848" not in cells


def test_standings_finer_than_a_quarter_are_decimals_throughout() -> None:
    club = Club(slug="riverside", name="Riverside")
    view = SimpleNamespace(
        tournament=GIVEN_FIRST,
        period=None,
        rows=[
            _row(1, "Ann", Fraction(17, 2), Fraction(13, 8)),
            _row(2, "Bob", Fraction(8), Fraction(3, 2)),
        ],
    )
    with translation.override("en"):
        cells = _cells(standings_rows(view, club))
    assert "½" not in cells
    assert "8.50" in cells
    assert "1.63" in cells  # 13/8, half up at the second place


@pytest.mark.django_db
def test_german_calculator_writes_ratings_without_a_separator(client: Client) -> None:
    response = client.get(
        "/calculator/?rating=1500&k=20&opponent_rating=1848&result=1",
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "1.500" not in html
    assert "1,500" not in html
    assert "Wertung von 1500" in html
