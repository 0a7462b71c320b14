"""The admin: every page renders, scoping by club and role, writes through the services."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from players.admin.players import rating_history_svg
from players.models import (
    Club,
    KFactorChange,
    Membership,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingRun,
    Role,
)
from players.services import (
    invitation_create,
    membership_remove,
    player_create,
    rating_list_create,
)
from tests.conftest import built_once_per_module
from tests.players.admin_world import World, build_world, club_of, make_user
from tests.tournaments.helpers import close, make_player, play

pytestmark = pytest.mark.django_db

OUR_MODELS = [
    model for model in admin.site._registry if model._meta.app_label in ("players", "tournaments")
]


# Two clubs with closes, staff of every role, a claim, a job, a webhook and a merge:
# 0.26 s a test on PostgreSQL, for 81 tests, when built for each.
_built_for_module, world = built_once_per_module("world", build_world)


def client_for(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(model: Any, view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# -- every page renders --------------------------------------------------------------------


@pytest.mark.parametrize("model", OUR_MODELS, ids=lambda m: m._meta.model_name)
def test_superuser_sees_every_changelist_and_change_page(world: World, model: Any) -> None:
    client = client_for(world.superuser)
    listing = client.get(url(model, "changelist"))
    assert listing.status_code == 200
    assert listing.context["cl"].result_count > 0
    for obj in model._default_manager.all()[:3]:
        assert client.get(url(model, "change", obj.pk)).status_code == 200


def test_admin_index_lists_the_club_apps_for_club_staff(world: World) -> None:
    response = client_for(world.a.users["viewer"]).get(reverse("admin:index"))
    assert response.status_code == 200
    names = {m["object_name"] for app in response.context["app_list"] for m in app["models"]}
    assert {"Player", "RatingPeriod", "Game", "RatingChange"} <= names
    # Django's own models keep Django's permissions: club staff do not manage accounts.
    assert "User" not in names


def test_non_staff_member_cannot_enter_the_admin(world: World) -> None:
    user = make_user("member_only", staff=False)
    Membership.objects.create(user=user, club=world.a.club, role=Role.OWNER)
    response = client_for(user).get(url(Player, "changelist"))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


# -- scoping -------------------------------------------------------------------------------


def officer_or_owner(world: World, model: Any) -> AbstractBaseUser:
    """Club A's officer, or its owner where only owners may look (invitations)."""
    needed = getattr(admin.site._registry[model], "view_role", Role.VIEWER)
    role = needed if Role.includes(needed, Role.OFFICER) else Role.OFFICER
    user: AbstractBaseUser = world.a.users[role]
    return user


@pytest.mark.parametrize("model", OUR_MODELS, ids=lambda m: m._meta.model_name)
def test_officer_of_a_sees_no_row_of_b(world: World, model: Any) -> None:
    client = client_for(officer_or_owner(world, model))
    response = client.get(url(model, "changelist"))
    assert response.status_code == 200
    shown = list(response.context["cl"].queryset)
    assert shown, "club A has rows of every kind"
    assert {club_of(obj) for obj in shown} == {world.a.club.pk}
    # Not even in a filter or a column: B's name and players do not appear on the page.
    html = response.content.decode()
    assert world.b.club.name not in html
    assert all(player.name not in html for player in world.b.players)
    for obj in model._default_manager.all():
        if club_of(obj) == world.b.club.pk:
            assert client.get(url(model, "change", obj.pk)).status_code == 404


def test_autocomplete_offers_only_own_club_players(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "tournaments", "model_name": "game", "field_name": "white", "term": "B"},
    )
    assert response.status_code == 200
    names = {row["text"] for row in response.json()["results"]}
    assert names
    assert all(name.startswith("A") for name in names)


def test_foreign_key_choices_are_limited_to_own_clubs(world: World) -> None:
    response = client_for(world.a.users["arbiter"]).get(url(Player, "add"))
    choices = set(response.context["adminform"].form.fields["club"].queryset)
    assert choices == {world.a.club}


def test_viewer_sees_but_cannot_change(world: World) -> None:
    client = client_for(world.a.users["viewer"])
    player = world.a.players[0]
    page = client.get(url(Player, "change", player.pk))
    assert page.status_code == 200
    assert page.context["has_change_permission"] is False
    assert client.post(url(Player, "change", player.pk), {"name": "X"}).status_code == 403
    assert client.get(url(Player, "add")).status_code == 403
    player.refresh_from_db()
    assert player.name == "Alice Archer"


def test_arbiter_cannot_manage_members_or_lists(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    assert client.get(url(Membership, "add")).status_code == 403
    rating_list = world.a.club.rating_lists.get(kind="standard")
    page = client.get(url(type(rating_list), "change", rating_list.pk))
    assert page.context["has_change_permission"] is False


def test_computed_rows_are_read_only_even_for_superusers(world: World) -> None:
    client = client_for(world.superuser)
    for model in (PlayerRating, KFactorChange):
        assert client.get(url(model, "add")).status_code == 403
        obj = model._default_manager.first()
        page = client.get(url(model, "change", obj.pk))
        assert page.context["has_change_permission"] is False
        assert page.context["has_delete_permission"] is False


# -- writes through the services ----------------------------------------------------------


def player_form(club: Club, **changes: Any) -> dict[str, Any]:
    data = {
        "club": club.pk,
        "name": "Nina Newcombe",
        "birth_date": "",
        "birth_year": "2001",
        "sex": "F",
        "federation": "ENG",
        "title": "",
        "fide_id": "",
        "active": "on",
    }
    inline_prefixes = ("ratings", "rating_changes", "k_changes")
    for prefix in inline_prefixes:
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    data.update(changes)
    return data


def test_arbiter_adds_a_player_through_the_service(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Player, "add"), player_form(world.a.club))
    assert response.status_code == 302, response.context and response.context["errors"]
    player = Player.objects.get(name="Nina Newcombe")
    # player_create puts the player on every list of the club, with the K the rules give.
    ratings = PlayerRating.objects.filter(player=player)
    assert ratings.count() == 3
    assert {r.k_factor for r in ratings} == {40}


def test_adding_a_player_takes_the_ratings_they_bring(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    page = client.get(url(Player, "add")).content.decode()
    assert "Blitz rating the player brings" in page
    assert 'name="blitz_rating"' in page
    data = player_form(
        world.a.club, standard_rating="1850", standard_rated_games="45", rapid_rated_games=""
    )
    response = client.post(url(Player, "add"), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    player = Player.objects.get(name="Nina Newcombe")
    ratings = {r.rating_list.kind: r for r in PlayerRating.objects.filter(player=player)}
    standard = ratings["standard"]
    # Born 2001, 45 rated games, under 2400: K 20 from the start.
    assert (standard.rating, standard.rated_games, standard.entry_rating, standard.k_factor) == (
        1850,
        45,
        1850,
        20,
    )
    assert (ratings["rapid"].rating, ratings["rapid"].k_factor) == (None, 40)


def test_a_bad_entered_rating_is_a_field_error_and_stores_nothing(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    data = player_form(world.a.club, standard_rating="5000", rapid_rated_games="-1")
    response = client.post(url(Player, "add"), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert set(errors) == {"standard_rating", "rapid_rated_games"}
    assert not Player.objects.filter(name="Nina Newcombe").exists()


def glicko2_list(world: World, **rules: Any) -> RatingList:
    return rating_list_create(
        club=world.a.club,
        by=world.superuser,
        slug="online",
        name="Online arena",
        kind="blitz",
        system="glicko2",
        **rules,
    )


def test_adding_a_player_offers_every_list_of_the_club_with_glicko2_fields(
    world: World,
) -> None:
    glicko2_list(world, glicko_rd_start=300.0)
    client = client_for(world.a.users["arbiter"])
    page = client.get(url(Player, "add")).content.decode()
    assert "Online arena rating the player brings" in page
    for field in ("online_rating", "online_rd", "online_volatility", "standard_rating"):
        assert f'name="{field}"' in page
    # A Glicko-2 list has no rated-games count nor 2400 mark; the FIDE lists keep theirs.
    assert 'name="online_rated_games"' not in page
    assert 'name="blitz_rated_games"' in page
    assert "starting RD (300)" in page
    data = player_form(world.a.club, online_rating="1720", online_rd="120", online_volatility="")
    response = client.post(url(Player, "add"), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    player = Player.objects.get(name="Nina Newcombe")
    online = PlayerRating.objects.get(player=player, rating_list__slug="online")
    # Volatility left empty: the paper's 0.06.
    assert (online.rating, online.state["rd"], online.state["volatility"]) == (1720, 120.0, 0.06)
    assert PlayerRating.objects.filter(player=player).count() == 4


def test_a_glicko2_player_left_empty_starts_at_the_lists_defaults(world: World) -> None:
    glicko2_list(world, glicko_rd_start=300.0)
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Player, "add"), player_form(world.a.club))
    assert response.status_code == 302, response.context and response.context["errors"]
    online = PlayerRating.objects.get(player__name="Nina Newcombe", rating_list__slug="online")
    assert (online.rating, online.state["rd"], online.state["volatility"]) == (1500, 300.0, 0.06)


@pytest.mark.parametrize(
    ("entered", "field", "message"),
    [
        ({"online_rd": "400"}, "online_rd", "at most the list's 350"),
        ({"online_rd": "0"}, "online_rd", "Above 0"),
        ({"online_volatility": "1.5"}, "online_volatility", "at most 1"),
        ({"online_volatility": "x"}, "online_volatility", "Enter a number"),
        ({"online_rating": "9000"}, "online_rating", "less than or equal"),
    ],
)
def test_bad_glicko2_entries_are_field_errors_and_store_nothing(
    world: World, entered: dict[str, str], field: str, message: str
) -> None:
    glicko2_list(world)
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Player, "add"), player_form(world.a.club, **entered))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert set(errors) == {field}
    assert message in " ".join(errors[field])
    assert not Player.objects.filter(name="Nina Newcombe").exists()


def test_a_row_for_another_clubs_list_is_refused(world: World) -> None:
    # The superuser sees both clubs' lists; club B has no "online" list.
    glicko2_list(world)
    client = client_for(world.superuser)
    response = client.post(url(Player, "add"), player_form(world.b.club, online_rd="100"))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert set(errors) == {"online_rd"}
    assert "has no such list" in " ".join(errors["online_rd"])
    assert not Player.objects.filter(name="Nina Newcombe").exists()


def test_an_arbiter_sees_no_list_of_a_club_they_do_not_serve(world: World) -> None:
    rating_list_create(
        club=world.b.club, by=world.superuser, slug="b-only", kind="rapid", system="glicko2"
    )
    page = client_for(world.a.users["arbiter"]).get(url(Player, "add")).content.decode()
    assert 'name="b-only_rating"' not in page


def test_bad_player_input_shows_field_errors(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Player, "add"), player_form(world.a.club, name="", birth_year="x"))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert set(errors) >= {"name", "birth_year"}


def test_service_refusal_becomes_a_field_error_with_input_kept(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    # The form accepts both fields; the service refuses a year that contradicts the date.
    data = player_form(world.a.club, birth_date="2001-05-04", birth_year="1999")
    response = client.post(url(Player, "add"), data)
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.errors["birth_year"] == ["Does not match the birth date."]
    assert form["name"].value() == "Nina Newcombe"
    assert not Player.objects.filter(name="Nina Newcombe").exists()


def test_arbiter_cannot_add_a_player_to_another_club(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Player, "add"), player_form(world.b.club))
    assert response.status_code == 200
    assert "club" in response.context["adminform"].form.errors
    assert not Player.objects.filter(name="Nina Newcombe").exists()


def test_player_change_goes_through_the_service(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    player = world.a.players[0]
    data = player_form(world.a.club, name="Alice Archer-Smith", birth_year="1980")
    data.pop("club")
    data.update(
        {
            "ratings-TOTAL_FORMS": "3",
            "ratings-INITIAL_FORMS": "3",
            "rating_changes-TOTAL_FORMS": "1",
            "rating_changes-INITIAL_FORMS": "1",
            "k_changes-TOTAL_FORMS": str(KFactorChange.objects.filter(player=player).count()),
            "k_changes-INITIAL_FORMS": str(KFactorChange.objects.filter(player=player).count()),
        }
    )
    response = client.post(url(Player, "change", player.pk), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    player.refresh_from_db()
    assert player.name == "Alice Archer-Smith"


def test_deleting_a_player_with_games_is_refused(world: World) -> None:
    client = client_for(world.a.users["officer"])
    player = world.a.players[0]
    response = client.post(url(Player, "delete", player.pk), {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert "Cannot delete player" in response.content.decode()
    assert Player.objects.filter(pk=player.pk).exists()


def test_deleting_a_player_with_published_history_is_refused_by_the_service(
    world: World,
) -> None:
    # No games, so Django's delete page allows it; the service still refuses, because the
    # player is on a published list. (The row is arranged directly: a close writes such
    # "no rated games" rows only for players who were on the list before it.)
    player = player_create(club=world.a.club, by=world.superuser, name="Quiet Quentin")
    history_only = player_create(club=world.a.club, by=world.superuser, name="History Only")
    RatingChange.objects.create(
        period=world.a.closed,
        player=history_only,
        rating_list=world.a.closed.rating_list,
        run=RatingRun.objects.filter(rating_list=world.a.closed.rating_list).first(),
        event="no_rated_games",
    )
    client = client_for(world.a.users["officer"])
    refused = client.post(url(Player, "delete", history_only.pk), {"post": "yes"}, follow=True)
    assert refused.status_code == 200
    assert any("published ratings" in text for text in messages_of(refused))
    assert Player.objects.filter(pk=history_only.pk).exists()
    done = client.post(url(Player, "delete", player.pk), {"post": "yes"}, follow=True)
    assert done.status_code == 200
    assert not Player.objects.filter(pk=player.pk).exists()


def test_only_the_superuser_adds_a_member_directly(world: World) -> None:
    """An owner invites (the account joins when it accepts); the site's superuser may still
    add a member, say a club's first owner."""
    newcomer = make_user("helper")
    owner = client_for(world.a.users["owner"])
    assert owner.get(url(Membership, "add")).status_code == 403
    refused = owner.post(
        url(Membership, "add"), {"user": "helper", "club": world.a.club.pk, "role": "arbiter"}
    )
    assert refused.status_code == 403
    assert not Membership.objects.filter(user=newcomer).exists()

    admin = client_for(world.superuser)
    response = admin.post(
        url(Membership, "add"), {"user": "helper", "club": world.a.club.pk, "role": "owner"}
    )
    assert response.status_code == 302
    assert Membership.objects.get(user=newcomer, club=world.a.club).role == "owner"


def test_last_owner_cannot_step_down(world: World) -> None:
    owner = world.a.users["owner"]
    # The club's creator is an owner too; once they leave, owner_a is the last one.
    membership_remove(club=world.a.club, user=world.superuser, by=owner)
    client = client_for(owner)
    membership = Membership.objects.get(user=owner, club=world.a.club)
    response = client.post(url(Membership, "change", membership.pk), {"role": "viewer"})
    assert response.status_code == 200
    assert "Last owner." in str(response.context["adminform"].form.errors)
    membership.refresh_from_db()
    assert membership.role == "owner"


def list_form(rating_list: RatingList, **changes: Any) -> dict[str, Any]:
    data = {
        "expected_method": rating_list.expected_method,
        "apply_400_rule": "on" if rating_list.apply_400_rule else "",
        "k_policy": rating_list.k_policy,
        "fixed_k": rating_list.fixed_k or "",
        "floor": rating_list.floor or "",
        "first_rating_policy": rating_list.first_rating_policy,
        "starting_rating": rating_list.starting_rating or "",
        "name_order": rating_list.name_order,
        "fide_rules": rating_list.fide_rules,
        "glicko_tau": rating_list.glicko_tau,
        "glicko_rd_start": rating_list.glicko_rd_start,
        "glicko_rd_min": rating_list.glicko_rd_min,
        "glicko_rd_max": rating_list.glicko_rd_max,
    }
    data.update(changes)
    return data


def test_owner_changes_list_rules_through_the_service(world: World) -> None:
    client = client_for(world.a.users["owner"])
    rating_list = world.a.club.rating_lists.get(kind="rapid")
    page = url(RatingList, "change", rating_list.pk)
    refused = client.post(page, list_form(rating_list, k_policy="fixed", fixed_k=""))
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors
    saved = client.post(page, list_form(rating_list, floor="", apply_400_rule=""))
    assert saved.status_code == 302
    rating_list.refresh_from_db()
    assert (rating_list.floor, rating_list.apply_400_rule, rating_list.preset) == (None, False, "")
    officer = client_for(world.a.users["officer"]).post(page, list_form(rating_list, floor="1000"))
    assert officer.status_code == 403


def test_owner_adds_a_glicko2_list_in_the_admin(world: World) -> None:
    owner = world.a.users["owner"]
    client = client_for(owner)
    add = url(RatingList, "add")
    form = {
        "club": world.a.club.pk,
        "slug": "arena",
        "name": "Arena",
        "kind": "blitz",
        "system": "glicko2",
        "glicko_tau": "0.6",
        "glicko_rd_start": "300",
        "glicko_rd_min": "40",
        "glicko_rd_max": "350",
    }
    refused = client.post(add, {**form, "glicko_rd_min": "400"})
    assert refused.status_code == 200
    assert "lowest RD" in str(refused.context["adminform"].form.errors)
    assert not world.a.club.rating_lists.filter(slug="arena").exists()
    assert client.post(add, form).status_code == 302
    added = world.a.club.rating_lists.get(slug="arena")
    assert (added.system, added.glicko_tau, added.glicko_rd_min) == ("glicko2", 0.6, 40)
    assert added.preset == ""
    officer = client_for(world.a.users["officer"]).post(add, {**form, "slug": "other"})
    assert officer.status_code == 403


# -- K override ------------------------------------------------------------------------------


def k_override_post(rows: list[PlayerRating], **fields: str) -> dict[str, Any]:
    return {
        "action": "set_k_override",
        "_selected_action": [r.pk for r in rows],
        "apply": "1",
        **fields,
    }


def test_officer_sets_a_k_override_with_a_note(world: World) -> None:
    client = client_for(world.a.users["officer"])
    row = PlayerRating.objects.get(player=world.a.players[0], rating_list__kind="standard")
    first = client.post(
        url(PlayerRating, "changelist"),
        {"action": "set_k_override", "_selected_action": [row.pk]},
    )
    assert first.status_code == 200
    assert "Set a K override" in first.content.decode()
    no_note = client.post(url(PlayerRating, "changelist"), k_override_post([row], k="30"))
    assert no_note.status_code == 200
    assert "note" in no_note.context["form"].errors
    done = client.post(
        url(PlayerRating, "changelist"),
        k_override_post([row], k="30", note="Returning after a long break"),
        follow=True,
    )
    assert any("K override saved" in text for text in messages_of(done))
    row.refresh_from_db()
    assert (row.k_override, row.k_factor, row.k_reason) == (30, 30, "manual")
    assert KFactorChange.objects.filter(player=row.player, reason="manual", new_k=30).exists()


def test_arbiter_has_no_k_override_action(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    page = client.get(url(PlayerRating, "changelist"))
    action_form = page.context["action_form"]
    offered = [] if action_form is None else [n for n, _ in action_form.fields["action"].choices]
    assert "set_k_override" not in offered
    row = PlayerRating.objects.get(player=world.a.players[0], rating_list__kind="standard")
    client.post(url(PlayerRating, "changelist"), k_override_post([row], k="30", note="n"))
    row.refresh_from_db()
    assert row.k_override is None


# -- player page ------------------------------------------------------------------------------


def test_player_page_shows_history_inlines_and_chart(world: World) -> None:
    player = world.a.players[0]
    response = client_for(world.a.users["viewer"]).get(url(Player, "change", player.pk))
    html = response.content.decode()
    assert "<svg" in html
    assert "Rating history" in html
    assert "rating history (published rows)" in html.lower()
    assert "K factor history" in html
    assert "2025-01" in html


def test_rating_history_svg_draws_one_line_per_list() -> None:
    svg = rating_history_svg(
        {
            "Standard": [(datetime.date(2025, 1, 1), 1800), (datetime.date(2025, 2, 1), 1822)],
            "Rapid <b>": [(datetime.date(2025, 2, 1), 1750)],
        }
    )
    assert svg.count("<polyline") == 2
    assert "2025-01: 1800" in svg
    assert "2025-02: 1822" in svg
    assert "Rapid &lt;b&gt;" in svg  # labels are escaped
    assert "No published ratings" in rating_history_svg({})


@pytest.mark.parametrize("model", OUR_MODELS, ids=lambda m: m._meta.model_name)
def test_changelists_cost_the_same_queries_for_more_rows(world: World, model: Any) -> None:
    client = client_for(officer_or_owner(world, model))
    with CaptureQueriesContext(connection) as before:
        assert client.get(url(model, "changelist")).status_code == 200
    # More rows of every kind: players, games, a closed period with its changes and K rows.
    a = world.a
    newcomers = [make_player(a.club, world.superuser, f"Zed {n}", 1700 + n) for n in range(3)]
    play(
        a.club,
        world.superuser,
        [(newcomers[0], newcomers[1], "1-0"), (newcomers[2], a.players[0], "0-1")],
        date=datetime.date(2025, 2, 20),
    )
    close(a.club, world.superuser, "2025-02")
    for n in range(2):
        invitation_create(
            club=a.club,
            by=world.superuser,
            role=Role.ARBITER,
            email=f"more{n}@a.example",
            accept_url=str,
        )
    with CaptureQueriesContext(connection) as after:
        assert client.get(url(model, "changelist")).status_code == 200
    assert len(after.captured_queries) == len(before.captured_queries)


def test_superuser_creates_a_club_with_its_lists(world: World) -> None:
    client = client_for(world.superuser)
    data = {
        "name": "Castle Club",
        "slug": "castle",
        "public": "on",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = client.post(url(Club, "add"), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    club = Club.objects.get(slug="castle")
    assert set(club.rating_lists.values_list("kind", flat=True)) == {"standard", "rapid", "blitz"}
    taken = client.post(url(Club, "add"), {**data, "name": "Another"})
    assert "slug" in taken.context["adminform"].form.errors
    # Only superusers create clubs; an owner edits theirs but cannot add one.
    assert client_for(world.a.users["owner"]).get(url(Club, "add")).status_code == 403
