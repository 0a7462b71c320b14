"""Duplicates and merging: the finder's pairs, the merge (one transaction, the replay it
requires, the refusals), through the service, the API and the admin."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.errors import ConflictError
from players.models import (
    Player,
    PlayerMerge,
    RatingChange,
    RatingList,
    RatingPeriod,
    Role,
)
from players.selectors import duplicate_pairs
from players.services import membership_set, player_create
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play
from tournaments.models import Game
from tournaments.services import (
    games_create_bulk,
    list_replay,
    player_merge,
    tournament_create,
)

pytestmark = pytest.mark.django_db

SEPTEMBER = datetime.date(2026, 9, 10)
OCTOBER = datetime.date(2026, 10, 10)


def published(
    club, names=("Viktor Aronsen", "Ola Berg", "Per Dahl")
) -> dict[tuple[str, str], int | None]:  # type: ignore[no-untyped-def]
    """(period, name) -> rating after, for the current published rows of the club."""
    rows = RatingChange.objects.filter(
        rating_list__club=club, current=True, player__name__in=names
    ).select_related("period", "player")
    return {(row.period.label, row.player.name): row.rating_after for row in rows}


def two_months(club, owner, *, split: bool):  # type: ignore[no-untyped-def]
    """Viktor (rated 1800) and Ola and Per; with ``split`` some of Viktor's games are
    entered under a second record ("Aronsen, Viktor", unrated, no birth year)."""
    viktor = make_player(club, owner, "Viktor Aronsen", 1800, birth_year=1990)
    ola = make_player(club, owner, "Ola Berg", 1700)
    per = make_player(club, owner, "Per Dahl", 1600)
    twin = (
        make_player(club, owner, "Aronsen, Viktor", None, rated_games=0, birth_year=None)
        if split
        else viktor
    )
    play(club, owner, [(viktor, ola, "1-0"), (twin, per, "1-0")], date=SEPTEMBER)
    close(club, owner, "2026-09")
    play(club, owner, [(twin, ola, "0-1"), (viktor, per, "1/2-1/2")], date=OCTOBER)
    close(club, owner, "2026-10")
    return viktor, twin


def test_merge_then_replay_equals_having_entered_the_games_under_one_record() -> None:
    owner = make_owner()
    split_club = make_club(owner, "split")
    viktor, twin = two_months(split_club, owner, split=True)
    whole_club = make_club(owner, "whole")
    two_months(whole_club, owner, split=False)
    assert published(split_club) != published(whole_club)

    report = player_merge(kept=viktor, duplicate=twin, by=owner)

    assert report.games_moved == 2
    assert report.needs_replay == {"standard": ["2026-09", "2026-10"]}
    assert not Player.objects.filter(pk=twin.pk).exists()
    assert (
        Game.objects.filter(white=viktor).count() + Game.objects.filter(black=viktor).count() == 4
    )
    statuses = set(
        RatingPeriod.objects.filter(
            rating_list__club=split_club, rating_list__kind="standard"
        ).values_list("status", flat=True)
    )
    assert statuses == {RatingPeriod.Status.NEEDS_REPLAY}
    merge = PlayerMerge.objects.get()
    assert (merge.kept_id, merge.duplicate_id, merge.duplicate_name) == (
        viktor.pk,
        twin.pk,
        "Aronsen, Viktor",
    )
    assert merge.summary["games_moved"] == 2

    list_replay(rating_list=RatingList.objects.get(club=split_club, kind="standard"), by=owner)

    assert published(split_club) == published(whole_club)
    # What the duplicate published stays on record, out of the current history.
    assert RatingChange.objects.filter(player=viktor, current=False).exists()


def test_dry_run_changes_nothing_and_says_what_would_move() -> None:
    owner = make_owner()
    club = make_club(owner)
    viktor, twin = two_months(club, owner, split=True)
    games_before = list(Game.objects.values_list("id", "white_id", "black_id").order_by("id"))

    report = player_merge(kept=viktor, duplicate=twin, by=owner, dry_run=True)

    assert report.dry_run
    assert report.games_moved == 2
    assert report.needs_replay == {"standard": ["2026-09", "2026-10"]}
    assert Player.objects.filter(pk=twin.pk).exists()
    assert (
        list(Game.objects.values_list("id", "white_id", "black_id").order_by("id")) == games_before
    )
    assert not RatingPeriod.objects.exclude(status=RatingPeriod.Status.CLOSED).exists()
    assert not PlayerMerge.objects.exists()


def test_an_open_period_needs_no_replay_and_details_fill_blanks() -> None:
    owner = make_owner()
    club = make_club(owner)
    kept = player_create(club=club, by=owner, name="Viktor Aronsen")
    twin = player_create(
        club=club,
        by=owner,
        name="ARONSEN Viktor",
        birth_year=1990,
        fide_id=1503014,
        federation="NOR",
    )
    other = player_create(club=club, by=owner, name="Ola Berg")
    play(club, owner, [(twin, other, "1-0")], date=OCTOBER)

    report = player_merge(kept=kept, duplicate=twin, by=owner)

    kept.refresh_from_db()
    assert report.needs_replay == {}
    assert (kept.birth_year, kept.fide_id, kept.federation) == (1990, 1503014, "NOR")
    assert report.details_taken == ["birth_year", "federation", "fide_id"]
    assert Game.objects.get().white_id == kept.pk


def test_two_players_of_one_game_cannot_be_merged() -> None:
    owner = make_owner()
    club = make_club(owner)
    a = player_create(club=club, by=owner, name="Viktor Aronsen")
    b = player_create(club=club, by=owner, name="Aronsen, Viktor")
    play(club, owner, [(a, b, "1-0")], date=OCTOBER)

    with pytest.raises(ConflictError, match="played each other"):
        player_merge(kept=a, duplicate=b, by=owner)
    assert Player.objects.filter(pk=b.pk).exists()


def test_two_players_of_one_round_cannot_be_merged() -> None:
    owner = make_owner()
    club = make_club(owner)
    a, b, c, d = (player_create(club=club, by=owner, name=n) for n in "ABCD")
    cup = tournament_create(
        club=club,
        by=owner,
        name="Cup",
        rating_list="standard",
        start_date=OCTOBER,
        end_date=OCTOBER,
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {
                "date": OCTOBER,
                "white": a,
                "black": c,
                "result": "1-0",
                "tournament": cup,
                "round": 1,
            },
            {
                "date": OCTOBER,
                "white": b,
                "black": d,
                "result": "1-0",
                "tournament": cup,
                "round": 1,
            },
        ],
    )
    with pytest.raises(ConflictError, match="both played round 1"):
        player_merge(kept=a, duplicate=b, by=owner)


def test_other_fide_ids_cannot_be_merged() -> None:
    owner = make_owner()
    club = make_club(owner)
    a = player_create(club=club, by=owner, name="Viktor Aronsen", fide_id=1)
    b = player_create(club=club, by=owner, name="Aronsen, Viktor", fide_id=2)
    with pytest.raises(ConflictError, match="different FIDE IDs"):
        player_merge(kept=a, duplicate=b, by=owner)


def test_duplicates_finder_reasons_and_scores() -> None:
    owner = make_owner()
    club = make_club(owner)
    first = player_create(club=club, by=owner, name="Viktor Aronsen", birth_year=1990)
    same = player_create(club=club, by=owner, name="ARONSEN, Viktor", birth_year=1990)
    typo = player_create(club=club, by=owner, name="Aronson, Viktor", birth_year=1990)
    player_create(club=club, by=owner, name="Aronsen, Viktor", birth_year=1971)  # another man
    unknown = player_create(club=club, by=owner, name="Arönsen Viktor")
    player_create(club=club, by=owner, name="Ola Berg", birth_year=1990)

    pairs = {
        (p.player.pk, p.duplicate.pk): (p.reasons, p.score) for p in duplicate_pairs(club=club)
    }

    assert pairs[(first.pk, same.pk)] == (("same name key", "same birth year"), 90)
    assert pairs[(first.pk, unknown.pk)] == (("same name key", "no birth data on one side"), 70)
    reasons, score = pairs[(first.pk, typo.pk)]
    assert reasons[0].startswith("similar names (0.9")
    assert reasons[1] == "same birth year"
    assert 50 <= score < 90
    assert len(pairs) == 6  # first, same, typo pairwise (3) and unknown with first, same, 1971
    assert [p.score for p in duplicate_pairs(club=club)] == sorted(
        (p.score for p in duplicate_pairs(club=club)), reverse=True
    )


@pytest.fixture
def api_world():  # type: ignore[no-untyped-def]
    owner = make_owner()
    club = make_club(owner)
    viktor, twin = two_months(club, owner, split=True)
    users = {}
    for role in ("officer", "arbiter"):
        users[role] = make_owner(f"the-{role}")
        membership_set(club=club, user=users[role], role=Role(role), by=owner)
    other = make_club(owner, "other")
    stranger = player_create(club=other, by=owner, name="Viktor Aronsen")
    return club, viktor, twin, users, stranger


def api_as(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_api_duplicates_and_merge(api_world) -> None:  # type: ignore[no-untyped-def]
    club, viktor, twin, users, stranger = api_world
    base = f"/api/v1/clubs/{club.slug}/players/"

    assert api_as(users["arbiter"]).get(base + "duplicates/").status_code == 403
    listed = api_as(users["officer"]).get(base + "duplicates/")
    assert listed.status_code == 200
    assert listed.json()["results"] == [
        {
            "player": {
                "id": viktor.pk,
                "name": "Viktor Aronsen",
                "birth_date": None,
                "birth_year": 1990,
                "fide_id": None,
            },
            "duplicate": {
                "id": twin.pk,
                "name": "Aronsen, Viktor",
                "birth_date": None,
                "birth_year": None,
                "fide_id": None,
            },
            "reasons": ["same name key", "no birth data on one side"],
            "score": 70,
        }
    ]
    url = f"{base}{viktor.pk}/merge/"
    officer = api_as(users["officer"])
    assert (
        api_as(users["arbiter"]).post(url, {"duplicate": twin.pk}, format="json").status_code == 403
    )
    refused = officer.post(url, {"duplicate": stranger.pk}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"] == {"duplicate": ["No such player in this club."]}
    dry = officer.post(url + "?dry_run=1", {"duplicate": twin.pk}, format="json")
    assert dry.status_code == 200
    assert dry.json()["dry_run"] is True
    assert dry.json()["games_moved"] == 2
    assert Player.objects.filter(pk=twin.pk).exists()
    done = officer.post(url, {"duplicate": twin.pk}, format="json")
    assert done.status_code == 200
    assert done.json()["needs_replay"] == {"standard": ["2026-09", "2026-10"]}
    assert not Player.objects.filter(pk=twin.pk).exists()
    assert api_as(users["officer"]).get(base + "duplicates/").json()["results"] == []


def test_api_merge_refusal_is_409(api_world) -> None:  # type: ignore[no-untyped-def]
    club, viktor, twin, users, _stranger = api_world
    play(club, users["officer"], [(viktor, twin, "1-0")], date=datetime.date(2026, 11, 5))

    response = api_as(users["officer"]).post(
        f"/api/v1/clubs/{club.slug}/players/{viktor.pk}/merge/",
        {"duplicate": twin.pk},
        format="json",
    )

    assert response.status_code == 409
    assert "played each other" in response.json()["error"]["message"]


def test_admin_duplicates_page_previews_then_merges(api_world) -> None:  # type: ignore[no-untyped-def]
    club, viktor, twin, users, _stranger = api_world
    officer = users["officer"]
    officer.is_staff = True
    officer.save()
    client = Client()
    client.force_login(officer)
    players_page = client.get("/admin/players/player/").content.decode()
    assert "/admin/tournaments/tournament/duplicates/" in players_page
    url = f"/admin/tournaments/tournament/duplicates/?club={club.pk}"

    page = client.get(url).content.decode()
    assert 'id="duplicate-pairs"' in page
    assert "same name key; no birth data on one side" in page
    preview = client.post(url, {"kept": viktor.pk, "duplicate": twin.pk}).content.decode()
    assert 'id="merge-preview"' in preview
    assert "Games that move: 2" in preview
    assert Player.objects.filter(pk=twin.pk).exists()
    done = client.post(url, {"kept": viktor.pk, "duplicate": twin.pk, "confirm": "on"}, follow=True)
    assert "Merged Aronsen, Viktor into Viktor Aronsen: 2 games moved." in done.content.decode()
    assert not Player.objects.filter(pk=twin.pk).exists()


def test_admin_duplicates_page_is_for_officers(api_world) -> None:  # type: ignore[no-untyped-def]
    _club, _viktor, _twin, users, _stranger = api_world
    arbiter = users["arbiter"]
    arbiter.is_staff = True
    arbiter.save()
    client = Client()
    client.force_login(arbiter)
    assert client.get("/admin/tournaments/tournament/duplicates/").status_code == 403


def test_admin_shows_each_merge_read_only_to_its_clubs_members(api_world) -> None:  # type: ignore[no-untyped-def]
    club, viktor, twin, users, stranger = api_world
    staff = {role: users[role] for role in ("officer", "arbiter")}
    owner = club.memberships.get(role=Role.OWNER).user
    viewer = make_owner("the-viewer")
    membership_set(club=club, user=viewer, role=Role.VIEWER, by=owner)
    outsider = make_owner("other-owner")
    membership_set(club=stranger.club, user=outsider, role=Role.OWNER, by=owner)
    for user in (*staff.values(), viewer, outsider):
        user.is_staff = True
        user.save()
    officer = Client()
    officer.force_login(staff["officer"])
    officer.post(
        f"/admin/tournaments/tournament/duplicates/?club={club.pk}",
        {"kept": viktor.pk, "duplicate": twin.pk, "confirm": "on"},
    )
    merge = PlayerMerge.objects.get()
    changelist = "/admin/players/playermerge/"
    page = f"{changelist}{merge.pk}/change/"

    for user in (staff["officer"], staff["arbiter"], viewer):
        client = Client()
        client.force_login(user)
        listing = client.get(changelist)
        assert listing.status_code == 200
        assert list(listing.context["cl"].queryset) == [merge]
        shown = client.get(page)
        assert shown.status_code == 200
        html = shown.content.decode()
        assert f"Aronsen, Viktor (#{twin.pk})" in html
        assert "2 games, 0 byes, 2 published rows" in html
        assert "standard: 2026-09, 2026-10" in html
        assert shown.context["has_change_permission"] is False
        assert shown.context["has_delete_permission"] is False
        assert client.get(f"{changelist}add/").status_code == 403
        assert client.post(page, {"duplicate_name": "X"}).status_code == 403
        assert client.post(f"{page[: -len('change/')]}delete/", {"post": "yes"}).status_code == 403
    assert (merge.via, merge.by) == ("admin", staff["officer"])
    # Staff of another club see no merge of this one, not even that it exists.
    client = Client()
    client.force_login(outsider)
    assert list(client.get(changelist).context["cl"].queryset) == []
    assert client.get(page).status_code == 404
    assert PlayerMerge.objects.get().duplicate_name == "Aronsen, Viktor"
