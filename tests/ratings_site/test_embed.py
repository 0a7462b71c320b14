"""The widgets a club's website frames and the oEmbed answer of the player and list pages
(ratings_site/pages/embed.py, ratings_site/oembed.py): who may frame them, what they show,
that they are the same for everyone and kept in the cache, and every bad parameter named.
"""

from __future__ import annotations

import datetime
import re
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from players.errors import ValidationFailed
from players.models import Club, Role
from players.services import club_update, embed_origins_checked, membership_set
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club
from tests.tournaments.helpers import close, play

pytestmark = pytest.mark.django_db

SITE = "https://riverside-chess.example"
LIST = "/embed/clubs/riverside/lists/standard/"
LIVE = "/embed/clubs/riverside/lists/standard/live/"


def _embedding_club() -> ClubData:
    data = build_club(crowd=4)
    club_update(club=data.club, by=data.owner, embed_origins=[SITE, "http://localhost:8080"])
    return data


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module("data", _embedding_club)


def _player(data: ClubData, name: str = "magnus") -> str:
    return f"/embed/clubs/riverside/players/{data.players[name].pk}/"


def frame_ancestors(response: Any) -> list[str]:
    policy = response["Content-Security-Policy"]
    directive = next(d.strip() for d in policy.split(";") if "frame-ancestors" in d)
    return directive.split()[1:]


def test_widgets_may_be_framed_by_the_clubs_websites_only(client: Client, data: ClubData) -> None:
    for url in (LIST, LIVE, _player(data)):
        for _ in range(2):  # built, then from the cache: the same headers
            response = client.get(url)
            assert response.status_code == 200, url
            assert frame_ancestors(response) == ["'self'", SITE, "http://localhost:8080"]
            assert "X-Frame-Options" not in response
            # The rest of the policy is the site's: no inline script, for one.
            assert "script-src 'self'" in response["Content-Security-Policy"]
            assert response["Cache-Control"] == "public, max-age=60"
    # Every other page keeps 'none' and its X-Frame-Options.
    for url in ("/clubs/riverside/", "/clubs/riverside/lists/standard/", "/clubs/riverside/embed/"):
        response = client.get(url)
        assert frame_ancestors(response) == ["'none'"], url
        assert response["X-Frame-Options"] == "DENY"


def test_a_club_without_websites_is_framed_by_this_site_alone(client: Client) -> None:
    build_club(slug="north", crowd=2)
    response = client.get("/embed/clubs/north/lists/standard/")
    assert response.status_code == 200
    assert frame_ancestors(response) == ["'self'"]


def test_changing_the_websites_retires_the_stored_widget(client: Client, data: ClubData) -> None:
    assert SITE in frame_ancestors(client.get(LIST))
    club_update(club=data.club, by=data.owner, embed_origins=["https://new.example"])
    assert frame_ancestors(client.get(LIST)) == ["'self'", "https://new.example"]


def test_the_list_widget_shows_the_top_of_the_published_list(
    client: Client, data: ClubData
) -> None:
    page = client.get("/clubs/riverside/lists/standard/").content.decode()
    names_on_the_list = re.findall(r'players/\d+/">([^<]+)</a>', page)
    widget = client.get(LIST + "?n=3").content.decode()
    assert (
        re.findall(r'players/\d+/" target="_blank" rel="noopener">([^<]+)</a>', widget)
        == (names_on_the_list[:3])
    )
    assert "Top 3 after 2026-03" in widget
    # Links open this site in a new tab, never inside the club's page.
    assert 'target="_blank"' in widget


def test_the_live_widget_shows_a_game_and_the_list_widget_does_not(
    client: Client, data: ClubData
) -> None:
    magnus, boris = data.players["magnus"], data.players["boris"]
    before_list = client.get(LIST).content
    assert "Boris Duda" not in client.get(LIVE).content.decode()
    play(data.club, data.owner, [(boris, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    live = client.get(LIVE + "?n=50").content.decode()
    assert "Boris Duda" in live
    assert "2026-04" in live
    # The published widget stays as it was (a game publishes nothing), from the cache.
    assert client.get(LIST).content == before_list
    close(data.club, data.owner, "2026-04")
    assert "after 2026-04" in client.get(LIST).content.decode()


def test_the_player_card(client: Client, data: ClubData) -> None:
    card = client.get(_player(data)).content.decode()
    assert "Magnus Berg" in card
    assert "Riverside Chess Club" in card
    assert "after 2026-03" in card
    assert "rank 1" in card
    assert "peak" in card
    assert "rated games" in card


def test_a_widget_is_the_same_for_a_member_and_sets_no_cookie(
    client: Client, data: ClubData, django_assert_max_num_queries: Any
) -> None:
    member = get_user_model()._default_manager.create_user("member", password="x-Passw0rd-x")
    membership_set(club=data.club, user=member, role=Role.OFFICER, by=data.owner)
    anonymous = client.get(_player(data))
    signed_in = Client()
    signed_in.force_login(member)
    assert signed_in.cookies, "signed in: the browser holds a session cookie"
    with django_assert_max_num_queries(0):  # the anonymous answer, from the cache
        response = signed_in.get(_player(data))
    assert response.content == anonymous.content
    assert "Set-Cookie" not in response.headers
    assert not response.cookies
    assert "private" not in response["Cache-Control"]
    # It varies by the visitor's language, not by their cookies (a proxy keeps one copy).
    assert "cookie" not in response.get("Vary", "").lower()
    assert "Accept-Language" in response["Vary"]
    with_token = Client(HTTP_AUTHORIZATION="Token not-even-checked").get(_player(data))
    assert with_token.content == anonymous.content
    assert with_token["Cache-Control"] == "public, max-age=60"
    # A page of the site, by contrast, is the member's own.
    assert "private" in signed_in.get("/clubs/riverside/")["Cache-Control"]


def test_a_private_club_has_no_widgets(client: Client) -> None:
    build_club(slug="quiet", public=False, crowd=2)
    response = client.get("/embed/clubs/quiet/lists/standard/")
    # Never the sign-in page: it would sit inside the club's page.
    assert response.status_code == 404
    assert "No public club quiet." in response.content.decode()
    assert frame_ancestors(response) == ["'none'"]
    assert client.get("/embed/clubs/nowhere/lists/standard/").status_code == 404


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("theme=pink", "theme"),
        ("accent=%23112233", "accent"),
        ("accent=red", "accent"),
        ("accent=12345", "accent"),
        ("n=0", "n"),
        ("n=51", "n"),
        ("n=ten", "n"),
        ("header=no", "header"),
    ],
)
def test_a_bad_parameter_is_named_in_the_frame(
    client: Client, data: ClubData, query: str, field: str
) -> None:
    response = client.get(f"{LIST}?{query}")
    assert response.status_code == 400
    text = response.content.decode()
    assert f"{field}: " in text
    # Shown where the site's maintainer looks: inside the frame, which their site may show.
    assert SITE in frame_ancestors(response)


def test_unknown_lists_and_players_are_404_in_the_frame(client: Client, data: ClubData) -> None:
    assert client.get("/embed/clubs/riverside/lists/bullet/").status_code == 404
    assert client.get("/embed/clubs/riverside/players/999999/").status_code == 404
    other = build_club(slug="north", crowd=2)
    # Another club's player under this club's address is not this club's.
    stranger = other.players["magnus"].pk
    assert client.get(f"/embed/clubs/riverside/players/{stranger}/").status_code == 404


def test_the_look_follows_the_parameters(client: Client, data: ClubData) -> None:
    plain = client.get(LIST).content.decode()
    assert 'class="widget theme-light"' in plain
    assert "--accent" not in plain
    styled = client.get(LIST + "?theme=dark&accent=1A7F37&header=0&n=2").content.decode()
    assert 'class="widget theme-dark" style="--accent: #1a7f37"' in styled
    assert "widget-title" not in styled
    assert styled.count("<tr>") == 3  # the heading row and two players


def test_the_origins_are_checked_and_named() -> None:
    assert embed_origins_checked(["HTTPS://Club.Example.org/", "https://club.example.org:443"]) == [
        "https://club.example.org"
    ]
    assert embed_origins_checked(["http://127.0.0.1:8000", "https://[::1]:9000"]) == [
        "http://127.0.0.1:8000",
        "https://[::1]:9000",
    ]
    for bad in (
        "club.example.org",
        "https://club.example.org/page",
        "https://*.example.org",
        "javascript:alert(1)",
        "https://a.example; script-src *",
        "https://user@club.example.org",
        "ftp://club.example.org",
        "https://club.example.org:99999",
        "https://bücher.example",
        "\ud800",
        3,
    ):
        with pytest.raises(ValidationFailed) as refused:
            embed_origins_checked(["https://fine.example", bad])
        assert refused.value.fields["embed_origins"][0].startswith("Entry 2, ")
    with pytest.raises(ValidationFailed):
        embed_origins_checked("https://club.example.org")
    with pytest.raises(ValidationFailed, match="At most 20"):
        embed_origins_checked([f"https://s{i}.example" for i in range(21)])


def test_the_owner_sets_the_websites_through_the_api(data: ClubData) -> None:
    api = APIClient()
    api.force_authenticate(data.owner)
    url = "/api/v1/clubs/riverside/"
    assert api.get(url).json()["embed_origins"] == [SITE, "http://localhost:8080"]
    answer = api.patch(url, {"embed_origins": ["https://a.example/"]}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["embed_origins"] == ["https://a.example"]
    bad = api.patch(url, {"embed_origins": ["https://a.example/x"]}, format="json")
    assert bad.status_code == 400
    assert "embed_origins" in bad.json()["error"]["fields"]
    assert Club.objects.get(slug="riverside").embed_origins == ["https://a.example"]
    # An officer may not: the owner's setting.
    officer = get_user_model()._default_manager.create_user("officer-o")
    membership_set(club=data.club, user=officer, role=Role.OFFICER, by=data.owner)
    api.force_authenticate(officer)
    refused = api.patch(url, {"embed_origins": ["https://evil.example"]}, format="json")
    assert refused.status_code == 403
    assert Club.objects.get(slug="riverside").embed_origins == ["https://a.example"]


def test_the_owner_sets_the_websites_in_the_admin(data: ClubData) -> None:
    data.owner.is_staff = True
    data.owner.save(update_fields=["is_staff"])
    browser = Client()
    browser.force_login(data.owner)
    url = f"/admin/players/club/{data.club.pk}/change/"
    page = browser.get(url).content.decode()
    assert f"{SITE}\nhttp://localhost:8080</textarea>" in page
    form = {"name": data.club.name, "public": "on", "embed_origins": "https://b.example\n\n"}
    inline = {
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
    }
    saved = browser.post(url, {**form, **inline})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Club.objects.get(pk=data.club.pk).embed_origins == ["https://b.example"]
    refused = browser.post(url, {**form, "embed_origins": "https://b.example/page", **inline})
    assert refused.status_code == 200
    assert "is not a website&#x27;s origin" in refused.content.decode()
    assert Club.objects.get(pk=data.club.pk).embed_origins == ["https://b.example"]


def test_the_embed_page_gives_each_widgets_line(client: Client, data: ClubData) -> None:
    page = client.get("/clubs/riverside/embed/").content.decode()
    assert "http://testserver/embed/clubs/riverside/lists/standard/?n=10" in page
    assert "http://testserver/embed/clubs/riverside/lists/standard/live/?n=10" in page
    assert "/static/embed.js" in page
    assert SITE in page
    assert 'href="/clubs/riverside/embed/"' in client.get("/clubs/riverside/").content.decode()


# -- oEmbed ---------------------------------------------------------------------------------


def _oembed(client: Client, url: str, **more: str) -> Any:
    query = "&".join([f"url={quote(url, safe='')}", *(f"{k}={v}" for k, v in more.items())])
    return client.get(f"/api/v1/oembed/?{query}")


def test_oembed_of_a_player_and_a_list(client: Client, data: ClubData) -> None:
    magnus = data.players["magnus"].pk
    answer = _oembed(client, f"http://testserver/clubs/riverside/players/{magnus}/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["type"] == "rich"
    assert body["version"] == "1.0"
    assert body["title"] == "Magnus Berg"
    assert body["author_name"] == "Riverside Chess Club"
    assert body["author_url"] == "http://testserver/clubs/riverside/"
    assert f'src="http://testserver/embed/clubs/riverside/players/{magnus}/"' in body["html"]
    assert 'src="http://testserver/static/embed.js"' in body["html"]
    assert (body["width"], body["height"]) == (420, 220)
    listed = _oembed(
        client, "http://testserver/clubs/riverside/lists/standard/", maxwidth="300"
    ).json()
    assert 'src="http://testserver/embed/clubs/riverside/lists/standard/"' in listed["html"]
    assert listed["width"] == 300
    live = _oembed(client, "http://testserver/clubs/riverside/lists/standard/live/").json()
    assert "/embed/clubs/riverside/lists/standard/live/" in live["html"]
    # The pages name the endpoint for consumers to find.
    page = client.get(f"/clubs/riverside/players/{magnus}/").content.decode()
    assert (
        'type="application/json+oembed" href="/api/v1/oembed/?url=http%3A%2F%2Ftestserver' in page
    )


def test_oembed_refuses_what_has_no_embed(client: Client, data: ClubData) -> None:
    build_club(slug="quiet", public=False, crowd=2)
    for url in (
        "https://elsewhere.example/clubs/riverside/lists/standard/",
        "http://testserver/clubs/riverside/tournaments/",
        "http://testserver/api/v1/clubs/riverside/players/1/",
        "http://testserver/clubs/quiet/lists/standard/",
        "http://testserver/clubs/riverside/players/999999/",
        "http://testserver/clubs/riverside/lists/bullet/",
        "http://testserver/no/such/page/",
    ):
        answer = _oembed(client, url)
        assert answer.status_code == 404, url
        assert answer.json()["error"]["code"] == "not_found"
    assert _oembed(client, "http://testserver/clubs/riverside/", format="xml").status_code == 501
    bad = client.get("/api/v1/oembed/?url=not-a-url&maxwidth=0")
    assert bad.status_code == 400
    assert set(bad.json()["error"]["fields"]) == {"url", "maxwidth"}
    assert client.get("/api/v1/oembed/").json()["error"]["fields"].keys() == {"url"}
