"""An archive cannot escape its club: edited archives whose checksums and counts are
recomputed (so they verify) are refused, naming the table, the line and the field, or are
restored without a change to any other club; and reading is bounded whatever the file says.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import tracemalloc
import zipfile
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Club, Invitation, Membership, Player, RatingRun
from tests.api.conftest import build_club, make_user
from tests.conftest import built_once_per_module
from tests.tournaments.test_club_archive import export_bytes, job_closed_club
from tournaments.services.club_archive import MANIFEST, ArchiveError, club_import, club_tables
from tournaments.services.club_archive.tables import MAX_LINE_BYTES, _related

pytestmark = pytest.mark.django_db

Rows = list[dict[str, Any]]


def read_rows(data: bytes, label: str) -> Rows:
    text = zipfile.ZipFile(io.BytesIO(data)).read(f"tables/{label}.jsonl")
    return [json.loads(line) for line in text.splitlines()]


def rewritten(
    data: bytes,
    tables: dict[str, Callable[[Rows], Rows]] | None = None,
    manifest: Callable[[dict[str, Any]], None] | None = None,
    raw: dict[str, bytes] | None = None,
) -> bytes:
    """The archive with some tables' rows changed and the manifest's counts and checksums
    RECOMPUTED, as an attacker would: the edit verifies."""
    source = zipfile.ZipFile(io.BytesIO(data))
    head = json.loads(source.read(MANIFEST))
    contents: dict[str, bytes] = {}
    for entry in head["tables"]:
        content = source.read(entry["file"])
        change = (tables or {}).get(entry["model"])
        if change is not None:
            rows = change([json.loads(line) for line in content.splitlines()])
            content = b"".join(json.dumps(row).encode() + b"\n" for row in rows)
        content = (raw or {}).get(entry["model"], content)
        entry["rows"] = content.count(b"\n")
        entry["sha256"] = hashlib.sha256(content).hexdigest()
        contents[entry["file"]] = content
    if manifest is not None:
        manifest(head)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for name, content in contents.items():
            target.writestr(name, content)
        target.writestr(MANIFEST, json.dumps(head))
    return out.getvalue()


def each(change: Callable[[dict[str, Any]], None], only: int | None = 0) -> Callable[[Rows], Rows]:
    def apply(rows: Rows) -> Rows:
        for index, row in enumerate(rows):
            if only is None or index == only:
                change(row)
        return rows

    return apply


def snapshot(exclude_slug: str) -> dict[str, Any]:
    """Every row of every club but the restored one, memberships and invitations too, and
    every user's flags."""
    copy = Club.objects.filter(slug=exclude_slug).first()
    out: dict[str, Any] = {}
    for table in club_tables():
        rows = table.model._base_manager.all()
        if copy is not None:
            rows = rows.exclude(**{table.club_path: copy.pk})
        out[table.label] = sorted(map(repr, rows.values_list()))
    out["users"] = sorted(
        get_user_model().objects.values_list("username", "is_staff", "is_superuser")
    )
    return out


def restore(data: bytes, **kwargs: Any) -> Any:
    return club_import(file=io.BytesIO(data), slug="copy", name="Copy", **kwargs)


def _build_two_clubs() -> tuple[Club, Club, bytes]:
    mine = job_closed_club("north")
    other = build_club("south", public=True).club
    return mine, other, export_bytes(mine)


# 0.4 s a test on PostgreSQL, for 32 tests, when built for each.
_built_for_module, two_clubs = built_once_per_module("two_clubs", _build_two_clubs)


def test_a_player_of_another_club_is_refused(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, other, data = two_clubs
    data = rewritten(data, {"players.player": each(lambda row: row.update(club=other.pk))})
    before = snapshot("copy")
    with pytest.raises(
        ArchiveError, match=r"players.player line 1, field club: .* not the archive"
    ):
        restore(data)
    assert snapshot("copy") == before
    assert not Club.objects.filter(slug="copy").exists()


def test_a_membership_in_another_club_is_refused(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, other, data = two_clubs
    make_user("eve")

    def eve_owner(rows: Rows) -> Rows:
        return [*rows, {**rows[0], "id": 999_999, "user": "eve", "club": other.pk, "role": "owner"}]

    before = snapshot("copy")
    with pytest.raises(ArchiveError, match=r"players.membership line \d+, field club"):
        restore(rewritten(data, {"players.membership": eve_owner}))
    assert snapshot("copy") == before
    assert not Membership.objects.filter(user__username="eve").exists()


def test_an_owner_in_the_archive_is_only_invited(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, _, data = two_clubs
    make_user("eve")
    operator = make_user("operator")

    def eve_owner(rows: Rows) -> Rows:
        return [*rows, {**rows[0], "id": 999_999, "user": "eve", "role": "owner"}]

    before = snapshot("copy")
    report = restore(rewritten(data, {"players.membership": eve_owner}), owner=operator)
    assert snapshot("copy") == before
    copy = Club.objects.get(slug="copy")
    assert list(copy.memberships.values_list("user__username", "role")) == [("operator", "owner")]
    assert "eve: owner" in report.invited
    assert Invitation.objects.filter(club=copy, user__username="eve", accepted=None).exists()
    assert not Membership.objects.filter(user__username="eve").exists()


@pytest.mark.parametrize(
    ("label", "field", "value"),
    [
        ("tournaments.game", "white", "other player"),
        ("tournaments.game", "period", 987_654),
        ("players.ratingchange", "run", 987_654),
        ("players.playerrating", "rating_list", "other list"),
        ("players.ratinglist", "kind", "bogus"),
        ("players.ratinglist", "system", "\ud800"),
        ("players.player", "id", "a string"),
        ("players.player", "user", 7),
        ("players.player", "name", "\ud800"),
        ("players.player", "birth_year", 10**30),
        ("players.player", "created", "not a time"),
    ],
)
def test_a_reference_outside_the_archive_is_refused(
    two_clubs: tuple[Club, Club, bytes], label: str, field: str, value: Any
) -> None:
    _, other, data = two_clubs
    if value == "other player":
        value = Player.objects.filter(club=other).values_list("pk", flat=True).first()
    elif value == "other list":
        value = other.rating_lists.values_list("pk", flat=True).first()
    data = rewritten(data, {label: each(lambda row: row.update({field: value}))})
    before = snapshot("copy")
    with pytest.raises(ArchiveError, match=rf"{label} line 1, field {field}: "):
        restore(data)
    assert snapshot("copy") == before


def test_the_same_id_twice_is_refused(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, _, data = two_clubs
    data = rewritten(data, {"players.player": lambda rows: [*rows, rows[0]]})
    with pytest.raises(ArchiveError, match=r"players.player line \d+, field id: .*earlier row"):
        restore(data)


def test_a_job_reference_is_dropped(two_clubs: tuple[Club, Club, bytes]) -> None:
    mine, _, data = two_clubs
    # Written empty by the export; a file that names a job anyway has it dropped.
    assert all(row["job"] is None for row in read_rows(data, "players.ratingrun"))
    job = RatingRun.objects.filter(rating_list__club=mine, job__isnull=False).first()
    assert job is not None
    data = rewritten(data, {"players.ratingrun": each(lambda r: r.update(job=str(job.job_id)))})
    restore(data)
    assert not RatingRun.objects.filter(rating_list__club__slug="copy", job__isnull=False).exists()


def test_a_manifest_slug_that_differs_from_the_club_row_is_refused(
    two_clubs: tuple[Club, Club, bytes],
) -> None:
    _, _, data = two_clubs
    data = rewritten(data, manifest=lambda m: m["club"].update(slug="elsewhere"))
    with pytest.raises(ArchiveError, match=r"players\.club line 1, field slug: 'north', but"):
        restore(data)


def test_a_line_that_is_not_json_is_one_line_from_the_command(
    two_clubs: tuple[Club, Club, bytes], tmp_path: Path
) -> None:
    _, _, data = two_clubs
    path = tmp_path / "bad.zip"
    path.write_bytes(rewritten(data, raw={"players.player": b'{"id": 1,\n'}))
    with pytest.raises(CommandError, match=r"^file: players.player line 1: not JSON\.$"):
        call_command(
            "import_club", str(path), "--slug", "copy", "--name", "Copy", stdout=StringIO()
        )


def test_json_nested_too_deep_is_refused(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, _, data = two_clubs
    data = rewritten(data, raw={"players.player": b"[" * 200_000 + b"\n"})
    with pytest.raises(ArchiveError, match=r"players\.player line 1: not JSON"):
        restore(data)


def test_a_version_1_archive_is_read_and_its_job_ids_dropped(
    two_clubs: tuple[Club, Club, bytes],
) -> None:
    """Version 1 wrote a run's job id, which broke the restore anywhere but beside the
    original (and there named the original's job); read now, it is dropped."""
    mine, _, data = two_clubs
    job_ids = {
        str(run.pk): str(run.job_id)
        for run in RatingRun.objects.filter(rating_list__club=mine, job__isnull=False)
    }

    def as_version_1(rows: Rows) -> Rows:
        for row in rows:
            row["job"] = job_ids.get(str(row["id"]))
        return rows

    data = rewritten(
        data,
        {"players.ratingrun": as_version_1},
        manifest=lambda m: m.update(format_version=1),
    )
    restore(data)
    copy = RatingRun.objects.filter(rating_list__club__slug="copy")
    assert copy.count() == RatingRun.objects.filter(rating_list__club=mine).count()
    assert not copy.filter(job__isnull=False).exists()


def test_more_rows_than_the_manifest_says_are_refused(two_clubs: tuple[Club, Club, bytes]) -> None:
    _, _, data = two_clubs
    data = rewritten(data, manifest=lambda m: m["tables"][0].update(rows=0))
    with pytest.raises(ArchiveError, match="more rows than the manifest"):
        restore(data)


def test_a_600_mb_line_is_refused_at_the_limit(two_clubs: tuple[Club, Club, bytes]) -> None:
    """A small zip holding one 600 MB line: refused at the line limit, in little memory."""
    _, _, data = two_clubs
    source = zipfile.ZipFile(io.BytesIO(data))
    head = json.loads(source.read(MANIFEST))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for entry in head["tables"]:
            if entry["model"] == "players.player":
                with target.open(entry["file"], "w", force_zip64=True) as member:
                    block = b"x" * (1 << 20)
                    for _ in range(600):
                        member.write(block)
                    member.write(b"\n")
            else:
                target.writestr(entry["file"], source.read(entry["file"]))
        target.writestr(MANIFEST, json.dumps(head))
    assert len(out.getvalue()) < 2_000_000
    tracemalloc.start()
    try:
        with pytest.raises(
            ArchiveError, match=f"players.player.jsonl line 1: longer than {MAX_LINE_BYTES}"
        ):
            club_import(file=out, slug="copy", name="Copy")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The reader held a block of the line, never the line.
    assert peak < 8 * MAX_LINE_BYTES


# --- the property: whatever the edit, refused or confined to the new club -----------------


def _reference_fields() -> list[tuple[str, str]]:
    """Every field of every table that names a row: ids, foreign keys, plain ids, and a
    list's registry names."""
    found = [("players.ratinglist", "kind"), ("players.ratinglist", "system")]
    for table in club_tables():
        for f in table.fields:
            if f.primary_key or _related(f) is not None or f.name in ("id", "duplicate_id"):
                found.append((table.label, f.name))
    return sorted(set(found))


REFERENCES = _reference_fields()
SLUGS = itertools.count()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_an_edited_archive_is_refused_or_stays_in_its_club(
    two_clubs: tuple[Club, Club, bytes], data: st.DataObject
) -> None:
    _, other, archive = two_clubs
    label, field = data.draw(st.sampled_from(REFERENCES), label="reference")
    rows = read_rows(archive, label)
    if not rows:
        return
    ids: dict[str, list[Any]] = {
        "another club's": [
            *Player.objects.filter(club=other).values_list("pk", flat=True)[:3],
            *other.rating_lists.values_list("pk", flat=True)[:2],
            other.pk,
        ],
        "missing": [0, -1, 10**9],
        "user": ["south-owner", "north-owner", "nobody", 1],
        "odd": [None, "1", 1.5, True, [], {}],
    }
    value = data.draw(st.sampled_from([v for values in ids.values() for v in values]))
    index = data.draw(st.integers(0, len(rows) - 1), label="row")
    edits: dict[str, Any] = {label: each(lambda row: row.update({field: value}), only=index)}
    if data.draw(st.booleans(), label="slug changed too"):
        edits["players.club"] = each(lambda row: row.update(slug="south"))
    # The counts: the manifest's count of the edited table off by one (the rest recomputed).
    off_by = data.draw(st.sampled_from([0, 0, 0, -1, 1]), label="count off by")

    def count(manifest: dict[str, Any]) -> None:
        for entry in manifest["tables"]:
            if entry["model"] == label:
                entry["rows"] += off_by

    archive = rewritten(archive, edits, manifest=count)
    slug = f"copy-{next(SLUGS)}"
    before = snapshot(slug)
    refused: list[str] = []
    try:
        club_import(file=io.BytesIO(archive), slug=slug, name=slug)
    except ArchiveError as error:
        refused.append(error.message)
    assert not any("\n" in message for message in refused)
    assert snapshot(slug) == before
    # Whoever the archive names, no one but an owner the operator names holds a role.
    assert not Membership.objects.filter(club__slug=slug).exists()


@pytest.mark.parametrize(
    ("label", "field", "value"),
    [
        # What PostgreSQL's own input reads but no row could be read back as (the server
        # parses these columns' text itself there: club_archive/fast.server_parses).
        ("players.ratingperiod", "month", "infinity"),
        ("players.ratingperiod", "month", "today"),
        ("players.ratingperiod", "month", "10000-01-01"),
        ("players.ratingperiod", "month", "2026-01-01 BC"),
        ("players.ratingperiod", "month", ["2026-01-01"]),
        ("players.ratingchange", "score", "NaN"),
        ("players.ratingchange", "score", True),
    ],
)
def test_a_date_or_decimal_not_in_the_archives_form_is_refused(
    two_clubs: tuple[Club, Club, bytes], label: str, field: str, value: Any
) -> None:
    _, _, data = two_clubs
    data = rewritten(data, {label: each(lambda r: r.update({field: value}))})
    before = snapshot("copy")
    with pytest.raises(ArchiveError, match=rf"^file: {label} line 1, field {field}: .* is not a "):
        restore(data)
    assert snapshot("copy") == before


@pytest.mark.parametrize(
    ("label", "field", "value"),
    [
        ("players.ratingperiod", "month", "2026-02-30"),
        ("players.ratingperiod", "month", "2026-13-01"),
    ],
)
def test_a_well_formed_value_the_column_cannot_hold_is_one_line(
    two_clubs: tuple[Club, Club, bytes], label: str, field: str, value: Any
) -> None:
    """Checked by the field (SQLite) or by the server's own input (PostgreSQL, a DataError):
    either way one line naming the table, and nothing written."""
    _, _, data = two_clubs
    data = rewritten(data, {label: each(lambda r: r.update({field: value}))})
    before = snapshot("copy")
    with pytest.raises(ArchiveError, match=rf"^file: {label}[: ]") as refused:
        restore(data)
    assert "\n" not in str(refused.value)
    assert snapshot("copy") == before
