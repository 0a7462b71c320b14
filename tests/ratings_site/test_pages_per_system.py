"""What the player page and the period report say comes from the list's rating system:
the same month of games on a FIDE, a club Elo and a Glicko-2 list, each page stated.

FIDE: 2000 beats 1600, a difference of 400 (8.1.2: 0.92), K 20: +1.60.
Elo (the formula, no 400-point rule, K 20): E = 1 / (1 + 10^-1) = 0.91, +1.82.
Glicko-2 (Glickman's example): 1500 / RD 200 beats 1400 / RD 30 and loses to 1550 / RD 100
and 1700 / RD 300: E = 0.639, 0.432, 0.303; r' 1464, RD' 151.52.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.test import Client

from players.models import Club, Player, RatingList
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.services import games_create_bulk, period_close

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def section(page: str, slug: str) -> str:
    """The text of one list's section of the player page (its heading to the next)."""
    part = page.split(f'id="list-{slug}"', 1)[1].split("</section>", 1)[0]
    return text(part)


def standing(page: str, label: str) -> str:
    """The text of one list's current-rating block."""
    block = page.split('class="figures standings"', 1)[1].split("</dl>", 1)[0]
    for item in block.split("<div>")[1:]:
        if f"<dt>{label}</dt>" in item:
            return text(item)
    raise AssertionError(f"no standing {label!r}")


def month_of(club: Club, owner: Any, slug: str, games: list[tuple[Player, Player, str]]) -> None:
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"list": slug, "date": OCT, "white": w, "black": b, "result": r} for w, b, r in games
        ],
    )
    period_close(period=period_of(club, "2026-10", slug), by=owner)


def public_club(owner: Any, slug: str) -> Club:
    return club_create(name=f"Club {slug}", slug=slug, public=True, by=owner)


def entered(club: Club, owner: Any, name: str, **entry: Any) -> Player:
    return player_create(club=club, by=owner, name=name, ratings=[entry])


def test_a_fide_list_explains_each_game_by_the_table_and_k(client: Client) -> None:
    owner = make_owner()
    club = public_club(owner, "fide-club")
    strong = entered(club, owner, "Strong", list="standard", rating=2000, rated_games=50)
    weak = entered(club, owner, "Weak", list="standard", rating=1600, rated_games=50)
    month_of(club, owner, "standard", [(strong, weak, "1-0")])

    page = client.get(f"/clubs/fide-club/players/{strong.pk}/").content.decode()
    assert "K 20" in standing(page, "Standard")
    history = section(page, "standard")
    # The period row: K column; the game line: the table's 0.92 and K x (1 - 0.92).
    assert " K " in history
    assert "2026-10 2000 ▲ +2 up 2 2002 20 1 1 0.92" in history
    assert "Weak white 1 1600 0.92 +1.60" in history
    assert "Glicko" not in page


def test_an_elo_list_explains_each_game_by_the_formula(client: Client) -> None:
    owner = make_owner()
    club = public_club(owner, "elo-club")
    rating_list_create(club=club, by=owner, slug="club-elo", kind="rapid", system="elo")
    strong = entered(club, owner, "Strong", list="club-elo", rating=2000, rated_games=50)
    weak = entered(club, owner, "Weak", list="club-elo", rating=1600, rated_games=50)
    month_of(club, owner, "club-elo", [(strong, weak, "1-0")])

    page = client.get(f"/clubs/elo-club/players/{strong.pk}/").content.decode()
    label = RatingList.objects.get(club=club, slug="club-elo").label
    assert "K 20" in standing(page, label)
    history = section(page, "club-elo")
    assert "Weak white 1 1600 0.91 +1.82" in history
    assert "2026-10 2000 ▲ +2 up 2 2002 20 1 1 0.91" in history
    assert "Glicko" not in page


@pytest.fixture
def glicko() -> tuple[Club, Player]:
    owner = make_owner()
    club = public_club(owner, "glicko-club")
    rating_list_create(
        club=club,
        by=owner,
        slug="online",
        name="Online",
        kind="blitz",
        system="glicko2",
        glicko_rd_max=400,
    )
    me = entered(club, owner, "Me", list="online", rating=1500, rd=200, volatility=0.06)
    a = entered(club, owner, "A", list="online", rating=1400, rd=30)
    b = entered(club, owner, "B", list="online", rating=1550, rd=100)
    c = entered(club, owner, "C", list="online", rating=1700, rd=300)
    month_of(club, owner, "online", [(me, a, "1-0"), (b, me, "1-0"), (me, c, "0-1")])
    return club, me


def test_a_glicko2_page_shows_rd_volatility_and_glicko2_expected_scores(
    client: Client, glicko: tuple[Club, Player]
) -> None:
    """Issue 24: the page read an empty K as "unrated" and explained every game as a FIDE
    first rating ("toward a first rating, pooled (FIDE 8.2)")."""
    club, me = glicko
    page = client.get(f"/clubs/{club.slug}/players/{me.pk}/").content.decode()
    label = RatingList.objects.get(club=club, slug="online").label
    current = standing(page, label)
    assert "1464" in current
    assert "± 303" in current  # two RDs of 151.52
    assert re.search(r"Glicko-2: RD 151\.52, volatility 0\.0599\d\d", current)
    assert "K " not in current
    history = section(page, "online")
    # The period row shows RD after the period where FIDE and Elo show K.
    assert "2026-10 1500 ▼ −36 down 36 1464 151.52 3 1" in history
    # Each game: the opponent's RD and Glicko-2's expected score (Glickman: 0.639, 0.432,
    # 0.303), and its share of the change (the three add up to about -36).
    assert "A white 1 1400 30.00 0.64 +" in history
    assert "B black 0 1550 100.00 0.43 −" in history
    assert "C white 0 1700 300.00 0.30 −" in history
    shares = [float(s.replace("−", "-")) for s in re.findall(r"0\.\d\d ([+−]\d+\.\d\d)", history)]
    assert len(shares) == 3
    assert sum(shares) == pytest.approx(-36, abs=1)
    for fide_wording in ("FIDE 8.2", "toward a first rating", "pooled", "K factor"):
        assert fide_wording not in text(page)


def test_the_period_report_shows_the_systems_columns(
    client: Client, glicko: tuple[Club, Player]
) -> None:
    club, _ = glicko
    report = text(client.get(f"/clubs/{club.slug}/lists/online/periods/2026-10/").content.decode())
    assert "Games Score RD" in report
    assert "Me 1500 ▼ −36 down 36 1464 3 1 151.52" in report
    assert "K factors differ" not in report

    owner = make_owner("fide-owner")
    fide = public_club(owner, "fide-report")
    strong = entered(fide, owner, "Strong", list="standard", rating=2000, rated_games=50)
    weak = entered(fide, owner, "Weak", list="standard", rating=1600, rated_games=50)
    month_of(fide, owner, "standard", [(strong, weak, "1-0")])
    fide_report = text(
        client.get("/clubs/fide-report/lists/standard/periods/2026-10/").content.decode()
    )
    assert "Games Score K" in fide_report
    assert "Strong 2000 ▲ +2 up 2 2002 1 1 20" in fide_report
    assert "K factors differ" in fide_report


def test_the_rating_list_shows_the_systems_columns_and_names_it_in_the_footer(
    client: Client, glicko: tuple[Club, Player]
) -> None:
    """The list page showed a K column on Glicko-2 lists, and every page's footer named
    FIDE's regulations, a Glicko-2 list's too."""
    club, _ = glicko
    page = client.get(f"/clubs/{club.slug}/lists/online/").content.decode()
    listing = text(page.split('id="rating-list"', 1)[1].split("</table>", 1)[0])
    assert "Rating Change RD Games" in listing
    assert " K " not in listing
    assert "Me 1464 ▼ −36 down 36 151.52 3" in listing
    footer = text(page.split('class="site-footer"', 1)[1].split("</footer>", 1)[0])
    assert "FIDE" not in footer
    assert "Glicko-2" in footer

    owner = make_owner("fide-list-owner")
    fide = public_club(owner, "fide-list")
    strong = entered(fide, owner, "Strong", list="standard", rating=2000, rated_games=50)
    weak = entered(fide, owner, "Weak", list="standard", rating=1600, rated_games=50)
    month_of(fide, owner, "standard", [(strong, weak, "1-0")])
    fide_page = client.get("/clubs/fide-list/lists/standard/").content.decode()
    fide_listing = text(fide_page.split('id="rating-list"', 1)[1].split("</table>", 1)[0])
    assert "Rating Change K Games" in fide_listing
    assert "Strong 2002 ▲ +2 up 2 20 1" in fide_listing
    assert "FIDE Rating Regulations" in fide_page.split('class="site-footer"', 1)[1]
    # A page of no one list names no system.
    home = client.get("/").content.decode()
    assert "FIDE Rating Regulations" not in home.split('class="site-footer"', 1)[1]
