"""A club's whole history through export_club and import_club (club_archive).

The round trip: a demo club with closed periods, a replay (replaced rating changes), K
history and an override, a Glicko-2 list, a merge, an invitation and the audit trail is
exported, imported under a new slug into the same database and into a fresh SQLite
database (another process), and every API answer and page of each copy equals the
original's, ids aside (tests/tournaments/club_answers.py). Then what the import refuses.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from players import services as player_services
from players.errors import ValidationFailed
from players.jobs import job_start
from players.models import (
    Club,
    Invitation,
    KFactorChange,
    Membership,
    Player,
    PlayerMerge,
    PlayerRating,
    RatingChange,
    RatingPeriod,
    RatingRun,
    add_months,
    month_start,
)
from players.models.clubs import HistoricalPlayer  # type: ignore[attr-defined]
from tests.api.conftest import build_club
from tests.conftest import migrated_copy
from tests.tournaments.club_answers import (
    COVERED,
    NOT_CARRIED,
    club_answers,
    club_get_routes,
    differences,
)
from tournaments import services
from tournaments.jobs import CLOSE
from tournaments.models import Game, TournamentEntry
from tournaments.services.club_archive import (
    FORMAT_VERSION,
    MANIFEST,
    ArchiveError,
    club_export,
    club_import,
    club_tables,
)

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def demo_club() -> Club:
    """The demo club, plus what the demo does not do: a Glicko-2 list with a closed
    period, a K override, a reopen and replay, a merge, an open invitation."""
    call_command("load_demo", stdout=StringIO())
    club = Club.objects.get(slug="riverside")
    admin = get_user_model().objects.get(username="admin")
    last_month = add_months(month_start(django_today()), -1)
    arena = player_services.rating_list_create(
        club=club, by=admin, slug="arena", kind="blitz", system="glicko2", name="Arena"
    )
    # Players made after the list (a list added to a club with players leaves them off
    # it: the close then fails on their games; reported, not this test's subject).
    roster = [
        player_services.player_create(club=club, by=admin, name=f"Arena Player {i}")
        for i in range(8)
    ]
    services.games_create_bulk(
        club=club,
        by=admin,
        games=[
            {
                "list": "arena",
                "date": last_month.replace(day=5),
                "white": roster[i],
                "black": roster[i + 1],
                "result": "1-0",
            }
            for i in range(0, 8, 2)
        ],
    )
    # Closed as clubs close their months (the API, the admin, the worker): by a job, so
    # the run names a job, which the archive does not carry.
    job = job_start(
        kind=CLOSE,
        club=club,
        by=admin,
        params={"period": RatingPeriod.objects.get(rating_list=arena, month=last_month).pk},
    )
    assert RatingRun.objects.filter(job=job).exists()
    player_services.k_override_set(
        player_rating=PlayerRating.objects.get(player=roster[0], rating_list__slug="standard"),
        k=30,
        note="coach's request",
        by=admin,
    )
    standard = club.rating_lists.get(slug="standard")
    reopened = standard.periods.filter(status="closed").order_by("month")[8]
    services.period_reopen(period=reopened, by=admin)
    services.list_replay(rating_list=standard, by=admin)
    duplicate = player_services.player_create(club=club, by=admin, name="Aronsen, Viktor")
    today = django_today()
    services.games_create_bulk(
        club=club,
        by=admin,
        games=[
            {
                "list": "standard",
                "date": today.replace(day=1),
                "white": duplicate,
                "black": roster[3],
                "result": "1/2-1/2",
            }
        ],
    )
    services.player_merge(
        kept=club.players.get(name="Viktor Aronsen"), duplicate=duplicate, by=admin
    )
    player_services.invitation_create(
        club=club, by=admin, role="viewer", email="new@example.org", accept_url=lambda s: s
    )
    # The club's website, which may frame its widgets.
    player_services.club_update(
        club=club, by=owner_of(club), embed_origins=["https://riverside-chess.example"]
    )
    # A tournament still to be played, with its entry list (the forecasts' field).
    coming = services.tournament_create(
        club=club,
        by=admin,
        name="Riverside Rapidplay",
        rating_list="standard",
        start_date=today,
        end_date=today,
    )
    services.tournament_entries_set(
        tournament=coming, by=admin, player_ids=[p.pk for p in roster[:4]]
    )
    # What the round trip must carry is there.
    assert RatingChange.objects.filter(rating_list__club=club, current=False).exists()
    assert KFactorChange.objects.filter(player__club=club, reason="manual").exists()
    assert PlayerRating.objects.filter(rating_list=arena, state__rd__isnull=False).exists()
    assert PlayerMerge.objects.filter(club=club).exists()
    assert HistoricalPlayer.objects.filter(club=club, history_type="-").exists()
    assert TournamentEntry.objects.filter(tournament__club=club).count() == 4
    assert Club.objects.get(pk=club.pk).embed_origins == ["https://riverside-chess.example"]
    return club


def django_today() -> Any:
    from django.utils import timezone

    return timezone.localdate()


def export_bytes(club: Club) -> bytes:
    out = io.BytesIO()
    club_export(club=club, out=out)
    return out.getvalue()


def owner_of(club: Club) -> Any:
    return Membership.objects.filter(club=club, role="owner").order_by("pk").first().user  # type: ignore[union-attr]


def test_the_walk_covers_every_club_route() -> None:
    assert club_get_routes() == COVERED | NOT_CARRIED


def test_round_trip_into_this_and_a_fresh_database(tmp_path: Path, migrated_sqlite: Path) -> None:
    club = demo_club()
    original = club_answers(club, user=owner_of(club))
    path = tmp_path / "riverside.zip"
    call_command("export_club", "riverside", "--output", str(path), stdout=StringIO())

    owner = owner_of(club).username
    members = set(club.memberships.values_list("user__username", "role"))

    # The same database, beside the original: new slug and name (both unique here).
    out = StringIO()
    call_command(
        "import_club",
        str(path),
        "--slug",
        "riverside-copy",
        "--name",
        "Riverside copy",
        "--owner",
        owner,
        stdout=out,
    )
    copy = Club.objects.get(slug="riverside-copy")
    answers = club_answers(copy, user=owner_of(copy))
    expected = json.loads(json.dumps(original).replace("Riverside Chess Club", "Riverside copy"))
    diffs = differences(without_members(answers), without_members(expected))
    assert not diffs, "\n".join(diffs)
    # The one role restored is the owner named; the other members are invited to theirs.
    assert set(copy.memberships.values_list("user__username", "role")) == {(owner, "owner")}
    invited = {(name, role) for name, role in members if name != owner}
    assert (
        set(
            Invitation.objects.filter(club=copy, user__isnull=False, accepted__isnull=True)
            .exclude(pk__in=[i.pk for i in club_invitations_copied(club, copy)])
            .values_list("username", "role")
        )
        == invited
    )
    assert f"Invited: {sorted(invited)[0][0]}" in out.getvalue()
    for invitation in Invitation.objects.filter(club=copy, user__isnull=False):
        player_services.invitation_accept_mine(invitation_id=invitation.pk, user=invitation.user)
    assert set(copy.memberships.values_list("user__username", "role")) == members

    # A fresh SQLite database in another process, with the members' accounts only.
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": os.environ.get(
            "DJANGO_SETTINGS_MODULE", "ratings_site.settings.base"
        ),
    }

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    # A new database as `migrate` leaves it (the run's migrated template, copied).
    migrated_copy(migrated_sqlite, tmp_path / "fresh.sqlite3")
    # The same accounts (staff and superuser flags too: the pages show them the admin).
    accounts = [
        f"{name}:{int(staff)}:{int(superuser)}"
        for name, staff, superuser in get_user_model().objects.values_list(
            "username", "is_staff", "is_superuser"
        )
    ]
    run(
        "-c",
        "import django, sys; django.setup()\n"
        "from django.contrib.auth import get_user_model\n"
        "for account in sys.argv[1:]:\n"
        "    name, staff, superuser = account.split(':')\n"
        "    get_user_model().objects.create_user(\n"
        "        username=name, is_staff=staff == '1', is_superuser=superuser == '1')",
        *accounts,
    )
    restored = run("manage.py", "import_club", str(path), "--owner", owner)
    lost = [
        line
        for line in restored.splitlines()
        if line.startswith("Not restored") and "players.invitation.digest" not in line
    ]
    assert not lost, lost
    assert f"Owner: {owner}" in restored
    fresh = json.loads(
        run(
            "-c",
            "import django; django.setup()\n"
            "from tests.tournaments.club_answers import main; main()",
            "riverside",
        )
    )
    original = json.loads(json.dumps(original))
    diffs = differences(without_members(fresh), without_members(original))
    assert not diffs, "\n".join(diffs)


def without_members(answers: dict[str, Any]) -> dict[str, Any]:
    """The answers but those that list members and invitations, which a restore changes on
    purpose (no role is restored; the members are invited); the tests check them apart."""
    return {
        key: value
        for key, value in answers.items()
        if not key.startswith(("member/", "invitation/"))
    }


def club_invitations_copied(club: Club, copy: Club) -> list[Invitation]:
    """The copy's invitations that came from the archive (as many as the original has,
    the oldest ids: they are written before the restore invites the members)."""
    return list(Invitation.objects.filter(club=copy).order_by("pk")[: club.invitations.count()])


def small_club() -> Club:
    return build_club("north", public=False).club


def test_every_table_of_the_club_is_in_the_file() -> None:
    club = small_club()
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(export_bytes(club))).read(MANIFEST))
    assert manifest["format_version"] == FORMAT_VERSION
    labels = {entry["model"] for entry in manifest["tables"]}
    assert {t.label for t in club_tables()} == labels
    for label in (
        "players.club",
        "players.player",
        "players.ratingchange",
        "players.kfactorchange",
        "players.ratingrun",
        "players.membership",
        "players.invitation",
        "players.playermerge",
        "players.historicalplayer",
        "tournaments.game",
        "tournaments.historicalgame",
    ):
        assert label in labels
    assert "players.job" not in labels
    entry = next(e for e in manifest["tables"] if e["model"] == "players.player")
    assert entry["rows"] == Player.objects.filter(club=club).count()
    # Members by username, not by id.
    members = zipfile.ZipFile(io.BytesIO(export_bytes(club))).read(
        "tables/players.membership.jsonl"
    )
    users = {json.loads(line)["user"] for line in members.splitlines()}
    assert users == set(club.memberships.values_list("user__username", flat=True))


def tampered(data: bytes, name: str, change: Any) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            content = source.read(info.filename)
            target.writestr(info.filename, change(content) if info.filename == name else content)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {t.label: t.model._base_manager.count() for t in club_tables()}


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        (
            "tables/players.player.jsonl",
            lambda b: b.replace(b'"name": "', b'"name": "X', 1),
            "checksum does not match",
        ),
        (
            MANIFEST,
            lambda b: b.replace(
                f'"format_version": {FORMAT_VERSION}'.encode(), b'"format_version": 99'
            ),
            "format version 99",
        ),
        (MANIFEST, lambda b: b"not json", "not JSON"),
    ],
)
def test_a_damaged_file_is_refused_and_nothing_stored(name: str, change: Any, message: str) -> None:
    data = tampered(export_bytes(small_club()), name, change)
    before = counts()
    with pytest.raises(ArchiveError, match=message) as refused:
        club_import(file=io.BytesIO(data), slug="north-copy", name="North copy")
    assert refused.value.fields.keys() == {"file"}
    assert counts() == before


def test_a_newer_schema_is_refused() -> None:
    def newer(b: bytes) -> bytes:
        manifest = json.loads(b)
        manifest["source"]["migrations"]["players"].append("9999_from_the_future")
        return json.dumps(manifest).encode()

    data = export_bytes(small_club())
    source = zipfile.ZipFile(io.BytesIO(data))
    # The manifest's own checksum is not in it: only the members'.
    data = tampered(data, MANIFEST, newer)
    assert source.namelist()
    with pytest.raises(ArchiveError, match="9999_from_the_future"):
        club_import(file=io.BytesIO(data), slug="north-copy", name="North copy")


def test_a_taken_slug_or_name_is_refused() -> None:
    data = export_bytes(small_club())
    before = counts()
    with pytest.raises(ValidationFailed, match="slug") as refused:
        club_import(file=io.BytesIO(data))
    assert refused.value.fields.keys() == {"slug"}
    with pytest.raises(ValidationFailed, match="name"):
        club_import(file=io.BytesIO(data), slug="north-copy")
    with pytest.raises(CommandError, match="is taken"):
        call_command("import_club", str(_write(data)), stdout=StringIO())
    assert counts() == before


def _write(data: bytes) -> Path:
    with tempfile.NamedTemporaryFile(suffix=".zip", delete=False) as handle:
        handle.write(data)
    return Path(handle.name)


def test_members_unknown_here_are_skipped_and_reported() -> None:
    club = small_club()
    Invitation.objects.create(
        club=club, user=owner_of(club), role="viewer", digest="d" * 64, expires=django_now()
    )
    data = export_bytes(club)
    viewer = Membership.objects.get(club=club, user__username="north-viewer").user
    viewer_name = viewer.username
    # The user is gone from this instance; the export of the club still names them.
    Membership.objects.filter(user=viewer).delete()
    Player.objects.filter(user=viewer).update(user=None)
    viewer.delete()
    report = club_import(file=io.BytesIO(data), slug="north-copy", name="North copy")
    copy = Club.objects.get(slug="north-copy")
    # No owner named: no one has a role; every member here is invited to theirs.
    assert not copy.memberships.exists()
    original_members = set(club.memberships.values_list("user__username", "role"))
    assert (
        set(
            Invitation.objects.filter(club=copy, created_by=None)
            .exclude(username="")
            .values_list("username", "role")
        )
        == original_members
    )
    assert sorted(report.invited) == sorted(f"{name}: {role}" for name, role in original_members)
    assert any(f"players.membership.user: no user {viewer_name}" in line for line in report.skipped)
    # The invitation's secret is the original's: the copy's got a new one.
    assert Invitation.objects.filter(club=copy).count() == (
        club.invitations.count() + len(report.invited)
    )
    assert not Invitation.objects.filter(club=copy, digest="d" * 64).exists()
    assert any("players.invitation.digest" in line for line in report.skipped)


def django_now() -> Any:
    from django.utils import timezone

    return timezone.now()


def test_games_and_ids_are_remapped() -> None:
    club = small_club()
    data = export_bytes(club)
    club_import(file=io.BytesIO(data), slug="north-copy", name="North copy")
    copy = Club.objects.get(slug="north-copy")
    original = list(
        Game.objects.filter(club=club)
        .order_by("pk")
        .values_list("white__name", "black__name", "tournament__name", "period__month")
    )
    copied = Game.objects.filter(club=copy).order_by("pk")
    assert (
        list(copied.values_list("white__name", "black__name", "tournament__name", "period__month"))
        == original
    )
    assert not copied.filter(white__club=club).exists()
    assert not set(copied.values_list("pk", flat=True)) & set(
        Game.objects.filter(club=club).values_list("pk", flat=True)
    )


def job_closed_club(slug: str = "north") -> Club:
    """A club whose latest month was closed as every club's are: by a job (the API's, the
    admin's and the worker's path), so its run names the job, which the archive leaves out."""
    world = build_club(slug, public=False)
    period = RatingPeriod.objects.get(
        rating_list__club=world.club, rating_list__kind="standard", status="open"
    )
    job = job_start(
        kind=CLOSE, club=world.club, by=owner_of(world.club), params={"period": period.pk}
    )
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert RatingRun.objects.filter(rating_list__club=world.club, job=job).exists()
    return world.club


def test_a_club_closed_by_jobs_restores_beside_itself() -> None:
    club = job_closed_club()
    club_import(file=io.BytesIO(export_bytes(club)), slug="north-copy", name="North copy")
    copy = Club.objects.get(slug="north-copy")
    assert RatingRun.objects.filter(rating_list__club=copy).count() == (
        RatingRun.objects.filter(rating_list__club=club).count()
    )
    # The job is not the copy's: the run keeps its work, not a reference to the queue.
    assert not RatingRun.objects.filter(rating_list__club=copy, job__isnull=False).exists()
