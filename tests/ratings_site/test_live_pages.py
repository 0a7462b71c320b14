"""The pages' live view: the rating list's "live" tab and the player page's live block,
marked as not published with the real period, fresh after every game entered."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client

from players.services import club_create, player_create, rating_list_create
from tests.ratings_site.test_pages_per_system import text
from tests.tournaments.helpers import close, make_owner, make_player, play
from tournaments.services import game_create

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
NOTICE = "Not published; the close of 2026-10 may differ if games are added or corrected."


@pytest.fixture
def fide_club() -> dict:
    owner = make_owner()
    club = club_create(name="Pub", slug="pub", public=True, by=owner)
    players = {
        "strong": make_player(club, owner, "Strong", 2000),
        "weak": make_player(club, owner, "Weak", 1600),
        "new": make_player(club, owner, "Newcomer", None, rated_games=0),
    }
    play(
        club,
        owner,
        [(players["strong"], players["weak"], "1-0"), (players["new"], players["weak"], "1-0")],
        date=OCT,
    )
    return {"owner": owner, "club": club, **players}


def test_the_live_tab_ranks_live_ratings_and_says_they_are_not_published(
    client: Client, fide_club: dict
) -> None:
    page = client.get("/clubs/pub/lists/standard/live/").content.decode()
    body = text(page)
    assert NOTICE in body
    listing = text(page.split('id="live-list"', 1)[1].split("</table>", 1)[0])
    assert "Rank Player Rating Live Change K Games" in listing
    # FIDE: 2000 beats 1600 (D 400: 0.92), K 20: +1.6 -> +2.
    assert "1 Strong 2000 2002 ▲ +2 up 2 20 1" in listing
    # The newcomer's way to a first rating, in the engine's words.
    assert "Newcomer unrated 1 games against rated opponents; a first rating needs 5" in listing
    # Both views link to each other.
    assert 'href="/clubs/pub/lists/standard/live/" aria-current="page"' in page
    published = client.get("/clubs/pub/lists/standard/").content.decode()
    assert 'href="/clubs/pub/lists/standard/live/"' in published


def test_a_glicko2_live_tab_shows_rd_not_k(client: Client) -> None:
    owner = make_owner()
    club = club_create(name="Online", slug="online", public=True, by=owner)
    rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")
    a = player_create(
        club=club, by=owner, name="Ash", ratings=[{"list": "online", "rating": 1500, "rd": 200}]
    )
    b = player_create(
        club=club, by=owner, name="Beech", ratings=[{"list": "online", "rating": 1400, "rd": 30}]
    )
    play(club, owner, [(a, b, "1-0")], date=OCT, kind="online")
    page = client.get("/clubs/online/lists/online/live/").content.decode()
    listing = text(page.split('id="live-list"', 1)[1].split("</table>", 1)[0])
    assert "Live Change RD Games" in listing
    assert " K " not in listing
    footer = page.split('class="site-footer"', 1)[1]
    assert "Glicko-2" in footer
    assert "FIDE" not in footer


def test_the_player_page_shows_the_live_figure_and_its_games(
    client: Client, fide_club: dict
) -> None:
    strong = fide_club["strong"]
    page = client.get(f"/clubs/pub/players/{strong.pk}/").content.decode()
    live = text(page.split('class="live-section"', 1)[1].split("</section>", 1)[0])
    assert NOTICE in live
    assert "In force: 2000 · live after 2026-10 so far: 2002 ▲ +2" in live
    assert "Weak white 1 1600 0.92 +1.60" in live

    newcomer = fide_club["new"]
    page = client.get(f"/clubs/pub/players/{newcomer.pk}/").content.decode()
    live = text(page.split('class="live-section"', 1)[1].split("</section>", 1)[0])
    assert "a first rating needs 5" in live
    assert "pooled" in live


def test_a_game_entered_shows_on_the_next_visit(client: Client, fide_club: dict) -> None:
    url = "/clubs/pub/lists/standard/live/"
    before = text(client.get(url).content.decode())
    assert "for the 2 games entered so far" in before
    game_create(
        club=fide_club["club"],
        by=fide_club["owner"],
        list="standard",
        date=OCT,
        white=fide_club["weak"].pk,
        black=fide_club["strong"].pk,
        result="1-0",
    )
    after = text(client.get(url).content.decode())
    assert "for the 3 games entered so far" in after
    assert "Strong 2000 2002" not in after


def test_after_the_close_nothing_is_live(client: Client, fide_club: dict) -> None:
    close(fide_club["club"], fide_club["owner"], "2026-10")
    body = text(client.get("/clubs/pub/lists/standard/live/").content.decode())
    assert "No games are waiting for a close" in body
    page = client.get(f"/clubs/pub/players/{fide_club['strong'].pk}/").content.decode()
    assert "live-section" not in page


def test_a_private_clubs_live_tab_is_for_members(client: Client) -> None:
    owner = make_owner()
    club_create(name="Hidden", slug="hidden", public=False, by=owner)
    response = client.get("/clubs/hidden/lists/standard/live/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    client.force_login(owner)
    assert client.get("/clubs/hidden/lists/standard/live/").status_code == 200


def test_a_search_too_long_is_a_400_naming_the_field(client: Client, fide_club: dict) -> None:
    response = client.get("/clubs/pub/lists/standard/live/", {"q": "x" * 101})
    assert response.status_code == 400
    assert "q:" in text(response.content.decode())
    found = text(client.get("/clubs/pub/lists/standard/live/", {"q": "weak"}).content.decode())
    assert "Weak" in found
    assert "Strong 2000" not in found
