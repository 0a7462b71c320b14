"""The player's own corner on the site: "this is me" on the player page, the officer's
decision on their home page, and the home that then shows every club's ratings, the next
K, the live figures, the games still to be rated, the rating emails' setting and the
history's CSV; in English and German."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from players.models import ClaimStatus, Player, PlayerClaim, Role
from players.services import membership_set, player_update
from tests.pages_data import ClubData, build_club
from tests.test_languages import ENGLISH, GERMAN, names_of, visible_words
from tests.tournaments.helpers import play

pytestmark = pytest.mark.django_db

APRIL = datetime.date(2026, 4, 9)


@dataclass
class Corner:
    river: ClubData  # public
    hill: ClubData  # private
    member: Any  # alice's account, a viewer in both clubs
    officer: Any  # riverside's rating officer


@pytest.fixture
def corner() -> Corner:
    river = build_club(slug="riverside", crowd=2)
    hill = build_club(slug="hilltop", public=False, crowd=2)
    users = get_user_model().objects
    member, officer = users.create_user("alice-c"), users.create_user("rita-officer")
    for data in (river, hill):
        membership_set(club=data.club, user=member, role=Role.VIEWER, by=data.owner)
    membership_set(club=river.club, user=officer, role=Role.OFFICER, by=river.owner)
    # A game of April, a month not closed: live figures and a game still to be rated.
    alice, omar = river.players["alice"], river.players["omar"]
    play(river.club, river.owner, [(alice, omar, "1-0")], date=APRIL)
    return Corner(river, hill, member, officer)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def player_url(data: ClubData, key: str) -> str:
    return f"/clubs/{data.club.slug}/players/{data.players[key].pk}/"


def test_claim_on_the_player_page_decided_on_the_officers_home(corner: Corner) -> None:
    member = signed_in(corner.member)
    page = member.get(player_url(corner.river, "alice")).content.decode()
    assert "This is me" in page
    # A stranger to the club (signed in) gets no button on the same cached page.
    stranger = get_user_model().objects.create_user("stranger")
    assert (
        "This is me"
        not in signed_in(stranger).get(player_url(corner.river, "alice")).content.decode()
    )

    answer = member.post(
        f"/accounts/claims/clubs/riverside/players/{corner.river.players['alice'].pk}/"
    )
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/"
    home = member.get("/accounts/").content.decode()
    assert 'id="my-claims"' in home
    assert "Waiting for an officer" in home
    assert "waits for an officer" in member.get(player_url(corner.river, "alice")).content.decode()

    officer = signed_in(corner.officer)
    officer_home = officer.get("/accounts/").content.decode()
    claim = PlayerClaim.objects.get(user=corner.member)
    assert f'id="claim-{claim.pk}"' in officer_home
    # Hilltop's owner is no officer of riverside: not on their home, and refused.
    hill_owner = signed_in(corner.hill.owner)
    assert f'id="claim-{claim.pk}"' not in hill_owner.get("/accounts/").content.decode()
    refused = hill_owner.post(f"/accounts/claims/{claim.pk}/decide/", {"decision": "approve"})
    assert refused.status_code == 404
    assert PlayerClaim.objects.get(pk=claim.pk).status == ClaimStatus.PENDING

    decided = officer.post(f"/accounts/claims/{claim.pk}/decide/", {"decision": "approve"})
    assert decided.status_code == 302
    assert Player.objects.get(pk=corner.river.players["alice"].pk).user_id == corner.member.pk
    assert f'id="claim-{claim.pk}"' not in officer.get("/accounts/").content.decode()
    assert (
        "This is your player record."
        in member.get(player_url(corner.river, "alice")).content.decode()
    )


def test_a_refused_claim_says_why_and_changes_nothing(corner: Corner) -> None:
    player_update(player=corner.river.players["omar"], by=corner.river.owner, user="rita-officer")
    member = signed_in(corner.member)
    answer = member.post(
        f"/accounts/claims/clubs/riverside/players/{corner.river.players['omar'].pk}/",
        follow=True,
    )
    assert "linked to another member" in answer.content.decode()
    assert not PlayerClaim.objects.exists()
    # A private club the visitor is no member of: 404, as its pages answer.
    outsider = signed_in(get_user_model().objects.create_user("outsider"))
    missing = outsider.post("/accounts/claims/clubs/hilltop/players/1/")
    assert missing.status_code == 404


def test_home_shows_every_clubs_corner(corner: Corner) -> None:
    river_alice, hill_alice = corner.river.players["alice"], corner.hill.players["alice"]
    player_update(player=river_alice, by=corner.river.owner, user="alice-c")
    player_update(player=hill_alice, by=corner.hill.owner, user="alice-c")
    home = signed_in(corner.member).get("/accounts/").content.decode()
    for data, alice in ((corner.river, river_alice), (corner.hill, hill_alice)):
        section = home.split(f'id="corner-{data.club.slug}"', 1)[1].split("</section>", 1)[0]
        rating = alice.ratings.get(rating_list__kind="standard")
        assert f'<span class="rating">{rating.rating}</span>' in section
        assert f"next K {rating.k_factor}" in section
        assert f"/clubs/{data.club.slug}/players/{alice.pk}/history.csv" in section
    river = home.split('id="corner-riverside"', 1)[1].split("</section>", 1)[0]
    assert "live after 2026-04 so far" in river
    assert "1 game still to be rated" in river
    assert "Omar Reyes" in river
    hill = home.split('id="corner-hilltop"', 1)[1].split("</section>", 1)[0]
    assert "No game of yours is waiting to be rated." in hill
    assert re.search(r'id="my-rating-emails">Your rating emails: <a [^>]*>After every close', home)
    csv = signed_in(corner.member).get(f"/clubs/hilltop/players/{hill_alice.pk}/history.csv")
    assert csv.status_code == 200
    assert csv["Content-Type"].startswith("text/csv")


def test_the_corner_and_the_claims_are_in_german(corner: Corner) -> None:
    player_update(player=corner.river.players["alice"], by=corner.river.owner, user="alice-c")
    member = signed_in(corner.member)
    page = member.get(player_url(corner.hill, "alice"), **GERMAN).content.decode()
    assert "Das bin ich" in page
    # A claim in hilltop: the member sees it waiting, hilltop's owner sees it to decide.
    member.post(f"/accounts/claims/clubs/hilltop/players/{corner.hill.players['nina'].pk}/")
    names = names_of(corner.river) | names_of(corner.hill) | {"alice-c", "rita-officer"}
    names |= {"owner-hilltop", "Hilltop"}
    found: dict[str, list[str]] = {}
    for user in (corner.member, corner.hill.owner):
        client = signed_in(user)
        english = visible_words(client.get("/accounts/", **ENGLISH).content.decode(), names)
        german_page = client.get("/accounts/", **GERMAN).content.decode()
        german = set(visible_words(german_page, names))
        same = sorted({word for word in english if word in german})
        if same:
            found[user.get_username()] = same
    assert found == {}
