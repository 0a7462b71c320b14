"""The admin's period actions, games and tournaments: services do the work, errors show."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from players.models import Player, RatingChange, RatingPeriod, RatingRun
from players.services import membership_set
from tests.conftest import built_once_per_module
from tests.players.admin_world import World, build_world
from tournaments.models import Game, Tournament

pytestmark = pytest.mark.django_db
CONFIRM_TEMPLATE = "admin/tournaments/ratingperiod/close_confirmation.html"


# The admin tests' two clubs (tests/players/admin_world.py), 0.27 s a test when built for
# each.
_built_for_module, world = built_once_per_module("world", build_world)


def client_for(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(model: Any, view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def run_action(client: Client, action: str, periods: list[RatingPeriod], **extra: Any) -> Any:
    return client.post(
        url(RatingPeriod, "changelist"),
        {"action": action, "_selected_action": [p.pk for p in periods], **extra},
        follow=True,
    )


# -- period actions ----------------------------------------------------------------------


def test_preview_shows_the_table_the_close_would_write(world: World) -> None:
    client = client_for(world.a.users["officer"])
    response = run_action(client, "preview_period", [world.a.open])
    assert response.status_code == 200
    html = response.content.decode()
    assert "Preview of" in html
    assert 'id="preview-table"' in html
    rows = response.context["rows"]
    assert {row.player for row in rows} == {p.name for p in world.a.players}
    # Arthur lost to Anna: the preview has the numbers the close will publish.
    arthur = next(row for row in rows if row.player == "Arthur Ames")
    assert arthur.games == 1
    assert arthur.score == "0.0"
    assert arthur.change is not None
    assert arthur.change < 0
    assert arthur.k_factor == 20
    assert "20: standard" in html
    # Nothing written.
    world.a.open.refresh_from_db()
    assert world.a.open.status == "open"
    assert not RatingChange.objects.filter(period=world.a.open).exists()


def test_close_asks_for_confirmation_and_writes_nothing(world: World) -> None:
    client = client_for(world.a.users["officer"])
    runs = RatingRun.objects.count()
    response = run_action(client, "close_period", [world.a.open])
    assert response.status_code == 200
    assert response.templates[0].name == CONFIRM_TEMPLATE
    html = response.content.decode()
    # What closing will do, from build_world: February has two games (Arthur v Anna,
    # Aaron v Alice), all four players of the list played, and the list it publishes is
    # dated the first of March.
    (item,) = response.context["items"]
    assert (item.games, item.rated_games, item.players_played, item.players_listed) == (2, 2, 4, 4)
    assert "2025-03-01" in html
    # The form posts back the action, the selected period and post=yes; Cancel goes back.
    assert '<input type="hidden" name="action" value="close_period">' in html
    assert f'<input type="hidden" name="_selected_action" value="{world.a.open.pk}">' in html
    assert '<input type="hidden" name="post" value="yes">' in html
    assert f'href="{url(RatingPeriod, "changelist")}"' in html
    assert 'id="confirm-close"' in html
    # Nothing written.
    world.a.open.refresh_from_db()
    assert world.a.open.status == "open"
    assert RatingRun.objects.count() == runs
    assert not RatingChange.objects.filter(period=world.a.open).exists()


def test_close_after_confirmation_publishes(world: World) -> None:
    client = client_for(world.a.users["officer"])
    response = run_action(client, "close_period", [world.a.open], post="yes")
    assert any("closed" in text for text in messages_of(response))
    world.a.open.refresh_from_db()
    assert world.a.open.status == "closed"
    assert RatingChange.objects.filter(period=world.a.open).count() == 4


def test_confirmation_says_which_periods_cannot_be_closed(world: World) -> None:
    client = client_for(world.a.users["officer"])
    response = run_action(client, "close_period", [world.a.closed])
    assert response.status_code == 200
    html = response.content.decode()
    assert "already closed" in html
    # Nothing in the selection can be closed: no button to confirm.
    assert 'id="confirm-close"' not in html
    both = run_action(client, "close_period", [world.a.closed, world.a.open])
    assert [item.period for item in both.context["items"]] == [world.a.closed, world.a.open]
    assert 'id="confirm-close"' in both.content.decode()


def test_preview_then_close_from_the_preview_page(world: World) -> None:
    client = client_for(world.a.users["officer"])
    preview_page = run_action(client, "preview_period", [world.a.open])
    preview = preview_page.context["rows"]
    # The preview is the confirmation: its button posts post=yes.
    assert '<input type="hidden" name="post" value="yes">' in preview_page.content.decode()
    response = run_action(client, "close_period", [world.a.open], post="yes")
    assert any("closed" in text for text in messages_of(response))
    world.a.open.refresh_from_db()
    assert world.a.open.status == "closed"
    assert world.a.open.closed_by == world.a.users["officer"]
    published = {
        row.player.name: row.rating_after
        for row in RatingChange.objects.filter(period=world.a.open).select_related("player")
    }
    assert published == {row.player: row.rating_after for row in preview}


def test_closing_a_closed_period_shows_an_error_not_a_500(world: World) -> None:
    client = client_for(world.a.users["officer"])
    runs = RatingRun.objects.count()
    response = run_action(client, "close_period", [world.a.closed], post="yes")
    assert response.status_code == 200
    assert any("already closed" in text for text in messages_of(response))
    assert RatingRun.objects.count() == runs


def test_preview_needs_exactly_one_period(world: World) -> None:
    client = client_for(world.a.users["officer"])
    response = run_action(client, "preview_period", [world.a.open, world.a.closed])
    assert any("exactly one" in text for text in messages_of(response))


def test_reopen_then_replay(world: World) -> None:
    client = client_for(world.a.users["officer"])
    reopened = run_action(client, "reopen_period", [world.a.closed])
    assert any("reopened" in text for text in messages_of(reopened))
    world.a.closed.refresh_from_db()
    assert world.a.closed.status == "needs_replay"
    again = run_action(client, "reopen_period", [world.a.closed])
    assert any("reopened already" in text for text in messages_of(again))
    replayed = run_action(client, "replay_list", [world.a.closed])
    assert any("replayed" in text for text in messages_of(replayed))
    world.a.closed.refresh_from_db()
    assert world.a.closed.status == "closed"
    nothing = run_action(client, "replay_list", [world.a.closed])
    assert any("Nothing to replay" in text for text in messages_of(nothing))


@pytest.mark.parametrize("role", ["viewer", "arbiter"])
def test_below_officer_cannot_run_period_actions(world: World, role: str) -> None:
    client = client_for(world.a.users[role])
    listing = client.get(url(RatingPeriod, "changelist"))
    action_form = listing.context["action_form"]
    offered = [] if action_form is None else [n for n, _ in action_form.fields["action"].choices]
    assert not {"preview_period", "close_period", "reopen_period", "replay_list"} & set(offered)
    for confirmed in ({}, {"post": "yes"}):
        response = run_action(client, "close_period", [world.a.open], **confirmed)
        assert CONFIRM_TEMPLATE not in [t.name for t in response.templates]
        world.a.open.refresh_from_db()
        assert world.a.open.status == "open"


def test_officer_cannot_act_on_another_clubs_period(world: World) -> None:
    client = client_for(world.a.users["officer"])
    for confirmed in ({}, {"post": "yes"}):
        response = run_action(client, "close_period", [world.b.open], **confirmed)
        assert CONFIRM_TEMPLATE not in [t.name for t in response.templates]
        assert any("None of the selected periods" in text for text in messages_of(response))
        world.b.open.refresh_from_db()
        assert world.b.open.status == "open"


# -- games and tournaments --------------------------------------------------------------


def game_form(world: World, **changes: Any) -> dict[str, Any]:
    a = world.a
    data = {
        "rating_list": a.club.rating_lists.get(kind="standard").pk,
        "tournament": "",
        "date": "2025-02-20",
        "round": "",
        "white": a.players[0].pk,
        "black": a.players[2].pk,
        "result": "1/2-1/2",
        "rated": "on",
    }
    data.update(changes)
    return data


def test_arbiter_adds_a_game_to_the_open_period(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Game, "add"), game_form(world))
    assert response.status_code == 302, response.context and response.context["errors"]
    game = Game.objects.get(white=world.a.players[0], black=world.a.players[2], date="2025-02-20")
    assert game.period == world.a.open
    assert game.club == world.a.club


def test_game_in_a_closed_period_is_refused_with_the_input_kept(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    games = Game.objects.count()
    response = client.post(url(Game, "add"), game_form(world, date="2025-01-25"))
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert any("2025-01 is closed" in e for e in form.non_field_errors())
    assert form["date"].value() == "2025-01-25"
    assert Game.objects.count() == games


def test_game_with_a_player_of_another_club_is_refused(world: World) -> None:
    arbiter = world.a.users["arbiter"]
    outsider = game_form(world, black=world.b.players[0].pk)
    # Not a member of B: B's players are not even choices.
    response = client_for(arbiter).post(url(Game, "add"), outsider)
    assert response.status_code == 200
    assert "black" in response.context["adminform"].form.errors
    # A member of both clubs may pick either club's players; the service refuses the mix.
    membership_set(club=world.b.club, user=arbiter, role="arbiter", by=world.superuser)
    response = client_for(arbiter).post(url(Game, "add"), outsider)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["black"] == ["No such player in this club."]
    assert not Game.objects.filter(black=world.b.players[0], white=world.a.players[0]).exists()


def test_bad_game_input_shows_field_errors(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    response = client.post(url(Game, "add"), game_form(world, date="not a date", result="2-0"))
    assert response.status_code == 200
    assert {"date", "result"} <= set(response.context["adminform"].form.errors)


@pytest.mark.parametrize("day", ["1899-12-31", "9999-12-31", "after-tomorrow"])
def test_a_game_dated_out_of_bounds_is_refused_on_its_date_field(world: World, day: str) -> None:
    if day == "after-tomorrow":
        day = (timezone.localdate() + datetime.timedelta(days=2)).isoformat()
    client = client_for(world.a.users["arbiter"])
    games, periods = Game.objects.count(), RatingPeriod.objects.count()

    response = client.post(url(Game, "add"), game_form(world, date=day))

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert list(form.errors) == ["date"]
    assert form["date"].value() == day
    assert (Game.objects.count(), RatingPeriod.objects.count()) == (games, periods)


def test_changing_a_game_of_a_closed_period_is_refused(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    game = Game.objects.filter(period=world.a.closed).first()
    assert game is not None
    data = game_form(
        world,
        tournament=game.tournament_id,
        date=game.date.isoformat(),
        white=game.white_id,
        black=game.black_id,
        result="0-1",
    )
    response = client.post(url(Game, "change", game.pk), data)
    assert response.status_code == 200
    assert "is closed" in str(response.context["adminform"].form.errors)
    game.refresh_from_db()
    assert game.result != "0-1"


def test_deleting_a_game_of_a_closed_period_shows_a_message(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    game = Game.objects.filter(period=world.a.closed).first()
    assert game is not None
    response = client.post(url(Game, "delete", game.pk), {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert any("Not deleted" in text and "closed" in text for text in messages_of(response))
    assert Game.objects.filter(pk=game.pk).exists()


def tournament_form(world: World, **changes: Any) -> dict[str, Any]:
    data = {
        "club": world.a.club.pk,
        "name": "Spring Rapid",
        "rating_list": world.a.club.rating_lists.get(kind="standard").pk,
        "start_date": "2025-02-14",
        "end_date": "2025-02-16",
        "rounds": "3",
        "city": "Riverside",
    }
    data.update(changes)
    return data


def games_inline(games: list[dict[str, Any]], initial: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = {
        "games-TOTAL_FORMS": str(len(games)),
        "games-INITIAL_FORMS": str(initial),
        "games-MIN_NUM_FORMS": "0",
        "games-MAX_NUM_FORMS": "1000",
        # The entry list's inline, left as it is (shown read-only below the officer).
        "entries-TOTAL_FORMS": "0",
        "entries-INITIAL_FORMS": "0",
        "entries-MIN_NUM_FORMS": "0",
        "entries-MAX_NUM_FORMS": "1000",
    }
    for index, game in enumerate(games):
        data.update({f"games-{index}-{key}": value for key, value in game.items()})
    return data


def test_tournament_add_then_games_inline(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    added = client.post(url(Tournament, "add"), tournament_form(world))
    assert added.status_code == 302, added.context and added.context["errors"]
    tournament = Tournament.objects.get(name="Spring Rapid")
    page = client.get(url(Tournament, "change", tournament.pk))
    assert page.status_code == 200
    assert "games-TOTAL_FORMS" in page.content.decode()
    p = world.a.players
    data = tournament_form(world)
    data.pop("club")
    data.update(
        games_inline(
            [
                {
                    "date": "2025-02-14",
                    "round": "1",
                    "white": p[0].pk,
                    "black": p[1].pk,
                    "result": "1-0",
                    "rated": "on",
                },
                {
                    "date": "2025-02-15",
                    "round": "2",
                    "white": p[2].pk,
                    "black": p[3].pk,
                    "result": "0-1",
                    "rated": "on",
                },
            ]
        )
    )
    saved = client.post(url(Tournament, "change", tournament.pk), data)
    assert saved.status_code == 302, saved.context and saved.context["errors"]
    games = Game.objects.filter(tournament=tournament).order_by("round")
    assert [(g.white, g.result) for g in games] == [(p[0], "1-0"), (p[2], "0-1")]
    assert {g.period for g in games} == {world.a.open}


def test_inline_game_refused_by_the_service_keeps_the_page(world: World) -> None:
    client = client_for(world.a.users["arbiter"])
    tournament = world.a.tournament  # January: its period is closed
    data = tournament_form(
        world,
        name=tournament.name,
        start_date="2025-01-10",
        end_date="2025-01-20",
        rounds="2",
        city="",
    )
    data.pop("club")
    existing = list(Game.objects.filter(tournament=tournament).order_by("id"))
    rows: list[dict[str, Any]] = [
        {
            "id": g.pk,
            "tournament": tournament.pk,
            "date": g.date.isoformat(),
            "round": "",
            "white": g.white_id,
            "black": g.black_id,
            "result": g.result,
            "rated": "on",
        }
        for g in existing
    ]
    p = world.a.players
    rows.append(
        {
            "date": "2025-01-12",
            "round": "",
            "white": p[0].pk,
            "black": p[3].pk,
            "result": "1-0",
            "rated": "on",
        }
    )
    response = client.post(
        url(Tournament, "change", tournament.pk),
        {**data, **games_inline(rows, initial=len(existing))},
    )
    assert response.status_code == 200
    assert "is closed" in str(response.context["errors"])
    assert Game.objects.filter(tournament=tournament).count() == len(existing)


def test_player_list_search_and_filters_render(world: World) -> None:
    client = client_for(world.a.users["viewer"])
    found = client.get(url(Player, "changelist"), {"q": "Alice"})
    assert [p.name for p in found.context["cl"].result_list] == ["Alice Archer"]
    periods = client.get(url(RatingPeriod, "changelist"), {"status__exact": "closed"})
    assert [p.pk for p in periods.context["cl"].result_list] == [world.a.closed.pk]
    changes = client.get(url(RatingChange, "changelist"), {"q": "Arthur"})
    assert {c.player.name for c in changes.context["cl"].result_list} == {"Arthur Ames"}
