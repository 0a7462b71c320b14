"""RecordTable: records kept column by column read back as the records that went in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy
import pytest

from tournaments.interchange.records import GameResult, ParsedGame, PlayerRef
from tournaments.interchange.table import RecordTable


@dataclass(frozen=True, slots=True)
class Row:
    line: int
    day: date
    name: str
    round: int | None


@dataclass(slots=True)
class Holder:  # mutable and unhashable, like a planned person
    name: str


@dataclass(frozen=True, slots=True)
class Pairing:
    line: int
    player: Holder


ROWS = [
    Row(2, date(2026, 10, 1), "Adams", 1),
    Row(3, date(2026, 10, 1), "Baker", None),
    Row(7, date(2026, 10, 8), "Adams", 2),
    Row(10**10, date(2026, 10, 8), "Clark", 10**30),  # a line past 32 bits, a huge round
]


def table_of(rows: list[Row]) -> RecordTable[Row]:
    table: RecordTable[Row] = RecordTable(Row)
    for row in rows:
        table.append(row)
    return table


def test_records_read_back_by_index_slice_iteration_and_unpacking() -> None:
    table = table_of(ROWS)
    assert len(table) == 4
    assert [table[i] for i in range(4)] == ROWS
    assert table[-1] == ROWS[-1]
    assert list(table[1:3]) == ROWS[1:3]
    assert list(table) == ROWS
    first, *_rest = table
    assert first == ROWS[0]
    assert table == ROWS
    assert table == tuple(ROWS)
    assert table != ROWS[:3]
    with pytest.raises(IndexError):
        table[4]
    with pytest.raises(IndexError):
        table[-5]


def test_each_distinct_value_is_kept_once_and_columns_index_them() -> None:
    table = table_of(ROWS)
    assert table.values("name") == ["Adams", "Baker", "Clark"]
    assert table.column("name").tolist() == [0, 1, 0, 2]
    assert table.values("day") == [date(2026, 10, 1), date(2026, 10, 8)]
    assert table.column("line").tolist() == [2, 3, 7, 10**10]
    # The records share the kept values: one object per distinct value.
    assert table[0].name is table[2].name


def test_rows_read_named_fields_across_chunks() -> None:
    many = [
        Row(i + 1, date(2026, 10, 1 + i % 28), f"P{i % 50}", i % 9 or None) for i in range(20000)
    ]
    table = table_of(many)
    assert list(table.rows("line", "name", "round")) == [(r.line, r.name, r.round) for r in many]
    assert list(table) == many


def test_select_keeps_the_rows_asked_for_in_order() -> None:
    table = table_of(ROWS)
    kept = table.select(numpy.array([True, False, False, True]))
    assert list(kept) == [ROWS[0], ROWS[3]]
    assert list(table) == ROWS  # the original is unchanged


def test_fields_by_identity_tell_equal_objects_apart() -> None:
    one, other = Holder("Adams"), Holder("Adams")  # equal, but two people
    table: RecordTable[Pairing] = RecordTable(Pairing, by_identity=("player",))
    for line, holder in ((1, one), (2, other), (3, one)):
        table.append(Pairing(line, holder))
    assert table.column("player").tolist() == [0, 1, 0]
    assert [p.player for p in table][1] is other


def test_from_columns_needs_every_field() -> None:
    with pytest.raises(ValueError, match="every field"):
        RecordTable.from_columns(
            Row,
            lines=numpy.array([1]),
            columns={"day": numpy.array([0], numpy.int32)},
            values={"day": [date(2026, 10, 1)]},
        )


def test_a_batch_makes_the_columns_of_appending_one_by_one() -> None:
    many = [Row(i + 1, date(2026, 10, 1 + i % 28), f"P{i % 7}", i % 3 or None) for i in range(50)]
    batched: RecordTable[Row] = RecordTable(Row)
    # A value new in a batch, repeated within it, and seen again in the next one.
    batched.extend_fields(
        [r.line for r in many[:20]], [(r.day, r.name, r.round) for r in many[:20]]
    )
    batched.extend_fields([], [])
    batched.extend_fields(
        [r.line for r in many[20:]], [(r.day, r.name, r.round) for r in many[20:]]
    )
    one_by_one = table_of(many)
    for name in ("line", "day", "name", "round"):
        assert batched.column(name).tolist() == one_by_one.column(name).tolist()
    assert batched.values("name") == one_by_one.values("name")
    assert list(batched) == many
    # By identity: equal objects stay apart, the same object is one value.
    one, other = Holder("Adams"), Holder("Adams")
    table: RecordTable[Pairing] = RecordTable(Pairing, by_identity=("player",))
    table.extend_fields([1, 2, 3], [(one,), (other,), (one,)])
    table.extend_fields([4], [(other,)])
    assert table.column("player").tolist() == [0, 1, 0, 1]
    assert table.values("player")[1] is other


def test_a_parsed_games_batch_row_is_its_fields_but_line_in_the_tables_order() -> None:

    game = ParsedGame(
        round=3,
        date=date(2026, 5, 2),
        white=PlayerRef(name="Anna"),
        black=PlayerRef(name="Bo"),
        result=GameResult.WHITE_WINS_FORFEIT,
        rated=False,
        note="forfeit",
        line=17,
        tournament="Spring Open",
        time_control="90+30",
        other_line=18,
    )
    table: RecordTable[ParsedGame] = RecordTable(ParsedGame)
    table.extend_fields([game.line], [game.fields_but_line()])
    assert list(table) == [game]
