"""The admin's "Import tournament file" page."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.tournaments.import_world import ImportWorld, build_import_world, counts, read
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

URL = "/admin/tournaments/tournament/import/"


@pytest.fixture
def world() -> ImportWorld:
    world = build_import_world()
    for user in world.users.values():
        user.is_staff = True
        user.save()
    return world


def admin_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload(client: Client, world: ImportWorld, name: str, **extra: Any) -> Any:
    data = {
        "club": world.club.pk,
        "rating_list": "standard",
        "format": "trf",
        "file": SimpleUploadedFile(name, read(name)),
        **extra,
    }
    return client.post(URL, data, follow=True)


def test_the_tournament_list_links_to_the_import_page(world: ImportWorld) -> None:
    client = admin_client(world.arbiter)
    page = client.get("/admin/tournaments/tournament/")
    assert page.status_code == 200
    assert URL in page.content.decode()
    form = client.get(URL)
    assert form.status_code == 200
    assert 'enctype="multipart/form-data"' in form.content.decode()


def test_arbiter_imports_and_sees_the_report(world: ImportWorld) -> None:
    response = upload(admin_client(world.arbiter), world, "swiss_9_rounds.trf")

    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="import-report"' in html
    assert "Riverton Autumn Open 2026: created 48 games (5 not rated), 12 new players" in html
    tournament = Tournament.objects.get()
    assert f"/admin/tournaments/tournament/{tournament.pk}/change/" in html
    assert "full-point bye (F)" in html


def test_dry_run_in_the_admin_stores_nothing(world: ImportWorld) -> None:
    before = counts()
    response = upload(admin_client(world.arbiter), world, "swiss_9_rounds.trf", dry_run="on")
    assert "Dry run: nothing was stored" in response.content.decode()
    assert counts() == before


def test_errors_are_messages_with_line_numbers(world: ImportWorld) -> None:
    before = counts()
    response = upload(admin_client(world.arbiter), world, "trf_contradiction.trf")
    messages = [str(m) for m in response.context["messages"]]
    assert messages[0].startswith("The file has 1 error(s); nothing was stored.")
    assert "line 9: round 2: results disagree" in messages[1]
    assert counts() == before


def test_viewer_has_no_import_page_and_no_link(world: ImportWorld) -> None:
    client = admin_client(world.users["viewer"])
    assert client.get(URL).status_code == 403
    assert URL not in client.get("/admin/tournaments/tournament/").content.decode()


def test_clubs_offered_are_where_the_user_is_arbiter(world: ImportWorld) -> None:
    other = build_import_world("elsewhere")
    client = admin_client(world.arbiter)
    response = upload(client, world, "swiss_9_rounds.trf", club=other.club.pk)
    assert "club" in response.context["form"].errors
    assert Tournament.objects.count() == 0


def test_a_list_the_club_added_is_offered_and_imported_into(world: ImportWorld) -> None:
    # A Glicko-2 list added by the owner: the form offers it by its slug, and the file's
    # games are rated on it.
    from players.services import rating_list_create

    rating_list_create(
        club=world.club, by=world.users["owner"], slug="arena", kind="blitz", system="glicko2"
    )
    client = admin_client(world.arbiter)
    assert 'value="arena"' in client.get(URL).content.decode()
    response = upload(client, world, "swiss_9_rounds.trf", rating_list="arena")
    assert 'id="import-report"' in response.content.decode()
    assert Tournament.objects.get().rating_list.slug == "arena"
