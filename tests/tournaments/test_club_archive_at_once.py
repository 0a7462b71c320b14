"""The restore's fast paths take what its row-at-a-time rules take, and nothing else:

- a column checked whole (``values.column_check``) returns exactly the values checked one
  at a time, or is unsure (then the rows are taken one at a time);
- a chunk checked a column at a time (``at_once.ChunkAtOnce``) restores an edited archive
  exactly as the row-at-a-time restore does: the same refusal, or the same report and rows;
- lines read in blocks are the file's lines, a line too long named by its number;
- orjson decodes what Python's decoder decodes (and hands it what it does not read);
- a chunk written behind the restore (``players.bulk.copy_behind``) is in its transaction,
  and the database's refusal in the thread is raised in the caller's.
"""

from __future__ import annotations

import datetime
import io
import itertools
import json
import math
import re
import zipfile
from decimal import Decimal
from typing import Any

import pytest
from django.db import DataError, connection, models, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.bulk import copy_behind
from players.models import Club, Player
from tests.conftest import built_once_per_module
from tests.tournaments.test_club_archive_escape import (
    REFERENCES,
    _build_two_clubs,
    each,
    read_rows,
    rewritten,
)
from tournaments.models import Game
from tournaments.services.club_archive import ArchiveError, club_import, club_tables, fast
from tournaments.services.club_archive import reading as reading_module
from tournaments.services.club_archive.at_once import ChunkAtOnce
from tournaments.services.club_archive.reading import Entry, row_chunks
from tournaments.services.club_archive.values import Refused, Unsure, column_check, value_check

# The escape tests' two clubs, built once for this module too.
_built_for_module, two_clubs = built_once_per_module("two_clubs", _build_two_clubs)

pytestmark = pytest.mark.django_db

SLUGS = itertools.count()


# --- a column checked whole -------------------------------------------------------------

VALUE_FIELDS = sorted(
    {
        (table.label, f.name): f
        for table in club_tables()
        for f in table.fields
        if not f.is_relation and not f.primary_key
    }.items()
)

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63) - 5, 2**63 + 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "\ud800",
            "2024-01-31",
            "2024-1-31",
            "2024-01-31T10:00:00+00:00",
            "2024-01-31 10:00:00.5Z",
            "\uff12\uff10\uff12\uff14-01-31",
            "10:00",
            "1500.5",
            "-3e2",
            "infinity",
            "2024-01-31\n2024-01-31",
            "0c8a3c5e-1f5a-4c2b-9d7e-2f0b8a6c1d3e",
            "1-0",
            "fide",
            "standard",
            "x" * 300,
        ]
    ),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _one_at_a_time(f: models.Field[Any, Any], values: list[Any], parse: bool) -> list[Any] | None:
    check = value_check(f, parse=parse)
    try:
        return [check(v) for v in values]
    except Refused:
        return None


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    field=st.sampled_from([f for _, f in VALUE_FIELDS]),
    parse=st.booleans(),
)
def test_a_column_checked_whole_takes_what_its_values_take(
    data: st.DataObject, field: models.Field[Any, Any], parse: bool
) -> None:
    # Mostly values of the column's own kind (a column that passes), some of any kind.
    own = _own_values(field)
    values = data.draw(
        st.lists(st.one_of(own, ODD_VALUES) if own is not None else ODD_VALUES, max_size=6)
    )
    expected = _one_at_a_time(field, values, parse)
    try:
        got = column_check(field, parse=parse)(values)
    except Unsure:
        return  # the rows are then taken one at a time
    assert expected is not None, f"{field}: {values!r} taken whole, refused one at a time"
    assert got == expected


@pytest.mark.parametrize("value", [0, 20240131, 1.5])
def test_a_number_where_a_date_belongs_is_refused_not_a_crash(value: Any) -> None:
    """Found by the property above: on SQLite (the date parsed here) a number in a date
    column raised a TypeError from ``fromisoformat``, a traceback instead of a refusal."""
    date = Player._meta.get_field("birth_date")
    with pytest.raises(Refused, match="is not a DateField value"):
        value_check(date, parse=True)(value)  # type: ignore[arg-type]


def _own_values(f: models.Field[Any, Any]) -> st.SearchStrategy[Any] | None:
    if f.choices:
        return st.sampled_from([key for key, _ in f.flatchoices])
    if isinstance(f, models.BooleanField):
        return st.booleans()
    if isinstance(f, models.IntegerField):
        return st.integers(-5, 3000)
    if isinstance(f, models.DateTimeField):
        return st.datetimes(timezones=st.just(datetime.UTC)).map(lambda d: d.isoformat())
    if isinstance(f, models.DateField):
        return st.dates().map(lambda d: d.isoformat())
    if isinstance(f, models.DecimalField):
        return st.decimals(min_value=-3000, max_value=3000, places=1).map(str)
    if isinstance(f, models.CharField | models.TextField):
        return st.text(max_size=8)
    return None


def test_the_columns_of_a_real_archive_are_taken_whole(
    two_clubs: tuple[Club, Club, bytes],
) -> None:
    """Not a path that is always unsure: every value column of a restored club's archive
    passes whole (the rows of the large tables are never taken one at a time)."""
    archive = two_clubs[2]
    checked = 0
    for (label, name), f in VALUE_FIELDS:
        rows = read_rows(archive, label)
        if rows and name in rows[0] and not isinstance(f, models.JSONField):
            values = [row[name] for row in rows]
            assert column_check(f, parse=not fast.server_parses(f))(values) == [
                value_check(f, parse=not fast.server_parses(f))(v) for v in values
            ], f"{label}.{name}"
            checked += 1
    assert checked > 20


# --- a chunk checked a column at a time, against a row at a time ------------------------


@pytest.fixture
def chunks_at_once(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Which chunks were taken a column at a time (True) or a row at a time (False)."""
    taken: list[bool] = []
    real = ChunkAtOnce.rows

    def rows(self: ChunkAtOnce, chunk: list[dict[str, Any]]) -> Any:
        out = real(self, chunk)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(ChunkAtOnce, "rows", rows)
    return taken


def _without_new_ids(message: str) -> str:
    """A refusal by the database's own rules names the rows by the ids this restore gave
    them, which PostgreSQL's sequences make differ from one restore to the next (a
    rolled-back restore keeps the ids it drew): those numbers are left out of the
    comparison, the rest of the message is compared whole."""
    if "break a rule of this database" not in message:
        return message
    return re.sub(r"\d+", "#", message)


def _restored(archive: bytes, *, at_once: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    slug = f"copy-{next(SLUGS)}"
    with monkeypatch.context() as patch:
        if not at_once:
            patch.setattr(ChunkAtOnce, "applies", staticmethod(lambda table: False))
        try:
            report = club_import(file=io.BytesIO(archive), slug=slug, name=slug)
        except ArchiveError as error:
            return ("refused", _without_new_ids(error.message))
    club = Club.objects.get(slug=slug)
    players = sorted(
        Player.objects.filter(club=club).values_list("name", "birth_year", "sex", "title")
    )
    games = sorted(
        Game.objects.filter(club=club).values_list(
            "white__name", "black__name", "result", "date", "period__month", "rated"
        )
    )
    return (
        "restored",
        report.tables,
        sorted(report.skipped),
        sorted(report.invited),
        players,
        games,
    )


def test_an_archive_is_restored_a_column_at_a_time(
    two_clubs: tuple[Club, Club, bytes],
    chunks_at_once: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    archive = two_clubs[2]
    fast_way = _restored(archive, at_once=True, monkeypatch=monkeypatch)
    assert chunks_at_once
    assert all(chunks_at_once)
    assert fast_way == _restored(archive, at_once=False, monkeypatch=monkeypatch)
    assert fast_way[0] == "restored"
    assert fast_way[5]  # games


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_an_edited_archive_is_restored_the_same_either_way(
    two_clubs: tuple[Club, Club, bytes],
    monkeypatch: pytest.MonkeyPatch,
    data: st.DataObject,
) -> None:
    """Every reference (and some values) edited as an attacker would: a column at a time
    and a row at a time refuse with the same message or restore the same club."""
    _, other, archive = two_clubs
    fields = [*REFERENCES, ("tournaments.game", "result"), ("tournaments.game", "date")]
    label, field = data.draw(st.sampled_from(fields), label="field")
    rows = read_rows(archive, label)
    if not rows:
        return
    value = data.draw(
        st.sampled_from(
            [
                *Player.objects.filter(club=other).values_list("pk", flat=True)[:2],
                other.pk,
                0,
                10**9,
                rows[0].get(field),
                rows[-1].get(field),
                None,
                "1",
                1.5,
                True,
                [],
                "north-owner",
                "2024-02-30",
                "½-½",
            ]
        ),
        label="value",
    )
    index = data.draw(st.integers(0, len(rows) - 1), label="row")
    edited = rewritten(archive, {label: each(lambda row: row.update({field: value}), only=index)})
    assert _restored(edited, at_once=True, monkeypatch=monkeypatch) == _restored(
        edited, at_once=False, monkeypatch=monkeypatch
    )


# --- lines read in blocks ---------------------------------------------------------------


def _member(content: bytes) -> tuple[zipfile.ZipFile, Entry]:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("tables/t.jsonl", content)
    entry = Entry(model="t", file="tables/t.jsonl", rows=0, sha256="", fields=[])
    return zipfile.ZipFile(io.BytesIO(out.getvalue())), entry


@pytest.mark.parametrize("block", [1, 3, 7, 64])
def test_lines_read_in_blocks_are_the_files_lines(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(reading_module, "_BLOCK", block)
    monkeypatch.setattr(reading_module, "MAX_LINE_BYTES", 12)
    monkeypatch.setattr(reading_module, "CHUNK", 2)
    rows = [{"a": i} for i in range(5)] + [{"b": "1234"}]  # the last line is 12 bytes
    content = b"".join(json.dumps(row, separators=(",", ":")).encode() + b"\n" for row in rows)
    zf, entry = _member(content)
    chunks = list(row_chunks(zf, entry))
    assert [first for first, _ in chunks] == [1, 3, 5]
    assert [row for _, chunk in chunks for row in chunk] == rows


@pytest.mark.parametrize("block", [1, 5, 64])
@pytest.mark.parametrize(
    ("content", "number"),
    [
        (b'{"a":1}\n{"b":"1234567"}\n{"c":3}\n', 2),  # 13 bytes: one too many
        (b'{"a":1}\n{"a":2}\n{"c":3}', 3),  # cut off: no line break at its end
        (b'{"a":1}\n' + b"x" * 40, 2),  # a long line at the end, cut off
    ],
)
def test_a_line_too_long_or_cut_off_is_named_by_its_number(
    monkeypatch: pytest.MonkeyPatch, block: int, content: bytes, number: int
) -> None:
    monkeypatch.setattr(reading_module, "_BLOCK", block)
    monkeypatch.setattr(reading_module, "MAX_LINE_BYTES", 12)
    zf, entry = _member(content)
    with pytest.raises(ArchiveError, match=rf"^file: t line {number}: longer than 12 bytes"):
        list(row_chunks(zf, entry))


# --- orjson, and Python's decoder behind it ---------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": NaN}',
        b'{"a": -Infinity}',
        b'{"a": 123456789012345678901234567890}',
        b'{"a": -9223372036854775809}',
        b'{"a": 18446744073709551616}',
        b'{"a": 9223372036854775807}',
        b'{"a": "\\ud800"}',
        b'{"a": 1, "a": 2}',
        b'{"a": 1.5e400}',
        b'{"a": "\xc3\xa9 \\u00e9"}',
    ],
)
def test_orjson_decodes_as_pythons_decoder(line: bytes) -> None:
    got = fast.lines_decode([line, b'{"b": 2}'])
    expected = [json.loads(line), {"b": 2}]
    assert repr(got) == repr(expected)  # NaN compares unequal to itself: compared as text
    assert isinstance(got[0]["a"], type(expected[0]["a"]))
    if isinstance(expected[0]["a"], float) and not math.isnan(expected[0]["a"]):
        assert got[0]["a"] == expected[0]["a"]


# --- a COPY behind its caller ------------------------------------------------------------


def test_chunks_written_behind_are_in_the_transaction(
    two_clubs: tuple[Club, Club, bytes],
) -> None:
    club = two_clubs[0]
    fields = ["club", "name", "name_key", "birth_year"]
    with transaction.atomic():
        with copy_behind(Player, fields) as writer:
            for chunk in range(3):
                writer.write([(club.pk, f"Behind {chunk}-{i}", "", 1990) for i in range(50)])
        assert Player.objects.filter(name__startswith="Behind ").count() == 150


def test_a_refusal_behind_is_raised_in_the_callers_thread(
    two_clubs: tuple[Club, Club, bytes],
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite writes each chunk at once: no thread, nothing behind")
    club = two_clubs[0]
    with (
        pytest.raises(DataError),
        transaction.atomic(),
        copy_behind(Player, ["club", "name", "name_key", "birth_date"]) as writer,
    ):
        writer.write([(club.pk, "Behind", "", "2024-02-30")])
    # The connection is the caller's again, and usable.
    assert Player.objects.filter(club=club).exists()


def test_decimals_and_dates_left_to_the_server_are_checked_whole() -> None:
    """A column of Decimals whose text the server reads: the form is checked whole."""
    f = models.DecimalField(max_digits=7, decimal_places=1)
    check = column_check(f, parse=False)
    assert check(["1500.5", "-3", "2e3"]) == ["1500.5", "-3", "2e3"]
    for bad in (
        ["1500.5", "NaN"],
        ["1500.5", "1\n2"],
        ["\u0661\u0665\u0660\u0660"],
        [Decimal("1.5")],
    ):
        with pytest.raises(Unsure):
            check(bad)
