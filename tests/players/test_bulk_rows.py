"""players.bulk: rows written without model instances read back as the ORM wrote them."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy
import pytest
from django.contrib.auth import get_user_model
from django.db import DataError, IntegrityError, models, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from players import bulk
from players.bulk import audit as bulk_audit
from players.bulk import copy_value, insert_columns, insert_rows, insert_rows_returning_ids
from players.bulk import copying as bulk_copying
from players.bulk.fields import json_text
from players.models import Club, Player
from players.models.audit import Via, audit_context
from players.services import club_create


def test_copy_value_writes_copys_text_format() -> None:
    assert copy_value(None) == "\\N"
    assert (copy_value(True), copy_value(False)) == ("t", "f")
    assert copy_value(1500) == "1500"
    assert copy_value(Decimal("12.50")) == "12.50"
    assert copy_value(datetime.date(2026, 10, 3)) == "2026-10-03"
    # A tab, a line break or a backslash in text would end the value or the row, or
    # start an escape: each is escaped.
    assert copy_value("a\tb\nc\rd\\e") == "a\\tb\\nc\\rd\\\\e"


@pytest.mark.django_db
def test_text_with_tabs_line_breaks_and_backslashes_reads_back_unchanged() -> None:
    owner = get_user_model().objects.create_user("bulk-owner")
    club: Club = club_create(name="Bulk", slug="bulk", by=owner)
    awkward = "Tab\there, line\nbreak, back\\slash, \\N, NULL"

    insert_rows(
        Player,
        ("club", "name", "name_key", "birth_date", "fide_id", "active"),
        [(club.pk, awkward, "x", datetime.date(1990, 1, 2), None, False)],
    )

    player = Player.objects.get(club=club)
    assert (player.name, player.birth_date, player.fide_id, player.active) == (
        awkward,
        datetime.date(1990, 1, 2),
        None,
        False,
    )


@pytest.mark.django_db
def test_ids_come_back_in_the_order_of_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = get_user_model().objects.create_user("bulk-owner")
    club: Club = club_create(name="Bulk", slug="bulk", by=owner)
    names = [f"Player {index}" for index in range(2500, 0, -1)]  # more than one batch
    monkeypatch.setattr(bulk_copying, "_IDS_PER_QUERY", 1000)  # PostgreSQL: ids taken in three

    ids = insert_rows_returning_ids(Player, ("club", "name"), [(club.pk, n) for n in names])

    assert dict(Player.objects.filter(club=club).values_list("pk", "name")) == dict(
        zip(ids, names, strict=True)
    )
    # Fields not named get their defaults.
    assert set(Player.objects.filter(club=club).values_list("active", "sex")) == {(True, "")}


@pytest.mark.django_db
def test_audit_rows_by_id_cover_every_id_across_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = get_user_model().objects.create_user("ids-owner")
    club: Club = club_create(name="Ids", slug="ids", by=owner)
    insert_rows(
        Player, ("club", "name", "name_key"), [(club.pk, f"P{i}", f"p{i}") for i in range(5)]
    )
    ids = list(Player.objects.filter(club=club).order_by("id").values_list("id", flat=True))
    # Two ids a statement: five ids need three, none left out or copied twice.
    monkeypatch.setattr(bulk_audit, "_MAX_IDS", 2)

    count = bulk.history_rows_copy_ids(Player, ids, by_id=owner.pk)

    rows = Player.history.filter(club_id=club.pk)
    assert count == 5
    assert sorted(rows.values_list("id", flat=True)) == ids
    assert set(rows.values_list("history_type", "via", "history_user")) == {
        ("~", "command", owner.pk)
    }


@pytest.mark.django_db
@pytest.mark.parametrize("insert", [insert_rows, insert_rows_returning_ids])
def test_a_field_left_out_without_a_default_or_a_field_unknown_is_refused(
    insert: Callable[..., object],
) -> None:
    owner = get_user_model().objects.create_user("refused-owner")
    club: Club = club_create(name="Refused", slug="refused", by=owner)

    with pytest.raises(ValueError, match=r"^Player\.club has no default: name it$"):
        insert(Player, ("name",), [("Nobody's",)])
    with pytest.raises(ValueError, match=r"^Player has no field 'nope'$"):
        insert(Player, ("club", "name", "nope"), [(club.pk, "Nobody", 1)])
    assert not Player.objects.filter(club=club).exists()


@pytest.mark.django_db
def test_rows_given_as_columns_and_their_audit_rows_read_back_as_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = get_user_model().objects.create_user("columns-owner")
    club: Club = club_create(name="Columns", slug="columns", by=owner)
    names = ["Plain", "Tab\there, line\nbreak, back\\slash, \\N", "Émile"]
    days = [None, datetime.date(1990, 1, 2)]
    name_codes = numpy.array([0, 1, 2, 1, 0, 2, 2])
    day_codes = numpy.array([1, 0, 0, 1, 1, 0, 1])
    # Three rows a chunk, and ids taken three at a time: seven rows need three of each.
    monkeypatch.setattr(bulk_copying, "COPY_CHUNK", 3)
    monkeypatch.setattr(bulk_copying, "_IDS_PER_QUERY", 3)

    with audit_context(via=Via.IMPORT, user_id=owner.pk):
        count = insert_columns(
            Player,
            ("club", "name", "name_key", "birth_date"),
            7,
            [
                (numpy.zeros(7, dtype=numpy.int32), [club.pk]),
                (name_codes, names),
                (name_codes, [name.lower() for name in names]),
                (day_codes, days),
            ],
            by_id=None,
        )

    expected = [
        (names[n], names[n].lower(), days[d]) for n, d in zip(name_codes, day_codes, strict=True)
    ]
    stored = Player.objects.filter(club=club).order_by("id")
    assert count == 7
    assert list(stored.values_list("name", "name_key", "birth_date")) == expected
    # Fields not named get their defaults, as insert_rows gives them.
    assert set(stored.values_list("active", "sex")) == {(True, "")}
    history = Player.history.filter(club_id=club.pk).order_by("id")
    # The audit keeps the fields its model tracks (not the name key).
    assert list(history.values_list("id", "name", "birth_date")) == [
        (player.pk, name, day) for player, (name, _, day) in zip(stored, expected, strict=True)
    ]
    assert set(history.values_list("history_type", "via", "history_user")) == {
        ("+", "import", owner.pk)
    }


@pytest.mark.django_db
def test_an_integer_its_column_cannot_hold_is_refused_never_stored_changed() -> None:
    owner = get_user_model().objects.create_user("range-owner")
    club: Club = club_create(name="Range", slug="range", by=owner)

    # A birth year is a smallint: 67,526 does not fit. COPY's binary form would have
    # stored it wrapped, as 1990, which the column's range check lets through.
    with pytest.raises((DataError, IntegrityError)), transaction.atomic():
        insert_columns(
            Player,
            ("club", "name", "name_key", "birth_year"),
            2,
            [
                (numpy.zeros(2, dtype=numpy.int32), [club.pk]),
                (numpy.array([0, 1]), ["Fits", "Too far"]),
                (numpy.array([0, 1]), ["fits", "too far"]),
                (numpy.array([0, 1]), [1990, 65_536 + 1990]),
            ],
            by_id=owner.pk,
        )

    assert not Player.objects.filter(club=club).exists()


_COLUMN_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(["\\N", "a\tb", "line\nbreak", "back\\slash", "\r", "\u2028"]),
    st.dates(),
    st.decimals(allow_nan=False, places=2),
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.one_of(
        st.lists(_COLUMN_VALUES, max_size=6),
        st.lists(st.integers(), max_size=6),
        st.lists(st.one_of(st.none(), st.text(max_size=4)), max_size=6),
        st.lists(st.one_of(st.none(), st.booleans()), max_size=6),
    )
)
def test_a_column_written_whole_is_each_value_as_copy_value_writes_it(values: list[Any]) -> None:
    text = Player._meta.get_field("name")
    assert bulk_copying.column_text(text, values) == [copy_value(v) for v in values]


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.none(), st.just([]), st.just({}), st.lists(st.integers())), max_size=6
    )
)
def test_a_json_column_written_whole_is_each_values_json_text(values: list[Any]) -> None:
    for field in (
        models.JSONField(null=True),
        models.JSONField(default=list),
    ):
        expected = [copy_value(json_text(v, field)) for v in values]
        assert bulk_copying.column_text(field, values) == expected


@pytest.mark.django_db(transaction=True)
def test_rows_written_behind_as_columns_read_back_as_given() -> None:
    """``CopyBehind.write_columns``: the COPY text made a column at a time, sent by the
    thread (PostgreSQL) or inserted at once (SQLite), reads back as given."""
    owner = get_user_model().objects.create_user("behind-owner")
    club: Club = club_create(name="Behind", slug="behind", by=owner)
    awkward = "Tab\there, line\nbreak, back\\slash, \\N"
    names = [awkward, "Plain", "Ünïcode 漢"]
    with (
        transaction.atomic(),
        bulk.copy_behind(
            Player, ("club", "name", "name_key", "birth_date", "fide_id", "active")
        ) as writer,
    ):
        writer.write_columns(
            [
                [club.pk] * 3,
                names,
                ["x", "y", "z"],
                ["1990-01-02", None, "2001-12-31"],
                [None, 2**40, 7],
                [False, True, True],
            ]
        )
    got = Player.objects.filter(club=club).order_by("name_key")
    assert list(got.values_list("name", "birth_date", "fide_id", "active")) == [
        (awkward, datetime.date(1990, 1, 2), None, False),
        ("Plain", None, 2**40, True),
        ("Ünïcode 漢", datetime.date(2001, 12, 31), 7, True),
    ]
