"""An import's per-game lists (games not rated, identical game lines, games already stored)
name their first ``REPORT_MAX_LINES`` games and count them all: a re-import of 580,000
games listed each one, hundreds of MB in the worker and in the job's row. The check for
stored games compares each game once per stored copy."""

from __future__ import annotations

import pytest

from tests.tournaments.import_world import ImportWorld, build_import_world
from tournaments.models import Game
from tournaments.services.imports import game_files, import_csv, matching, store
from tournaments.services.imports.report import report_summary

pytestmark = pytest.mark.django_db

HEADER = b"date,white,black,result\n"


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> ImportWorld:
    for module in (game_files, matching, store):
        monkeypatch.setattr(module, "REPORT_MAX_LINES", 2)
    return build_import_world()


def rows(*lines: str) -> bytes:
    return HEADER + "".join(f"{line}\n" for line in lines).encode()


def test_games_not_rated_are_counted_and_the_first_listed(world: ImportWorld) -> None:
    data = rows(*(f"2026-10-0{day},Ann,Bob,+-" for day in range(1, 6)))
    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)
    assert report.games_created == 5
    assert report.games_not_rated_count == 5
    assert [entry.line for entry in report.games_not_rated] == [2, 3]
    assert "(5 not rated)" in report_summary(report.as_dict())


def test_identical_lines_are_counted_and_the_first_listed(world: ImportWorld) -> None:
    data = rows(*["2026-10-01,Ann,Bob,1-0"] * 5)
    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)
    assert report.games_created == 1
    assert report.identical_games_count == 4
    assert [entry.line for entry in report.identical_games] == [3, 4]
    assert "4 identical game lines" in report_summary(report.as_dict())


def test_stored_games_are_counted_the_first_listed_and_each_copy_drops_one(
    world: ImportWorld,
) -> None:
    first = rows(*(f"2026-10-0{day},Ann,Bob,1-0" for day in range(1, 5)), "2026-10-09,Ann,Bob,0-1")
    import_csv(club=world.club, rating_list="standard", data=first, by=world.arbiter)
    # Two games of one day, player and result, stored as two.
    twice = rows("2026-10-09,Ann,Bob,0-1", "2026-10-09,Ann,Bob,0-1")
    import_csv(
        club=world.club, rating_list="standard", data=twice, by=world.arbiter, keep_identical=True
    )
    assert Game.objects.count() == 6
    # Again with three of that day and the four others: only the third copy is new.
    again = rows(
        *(f"2026-10-0{day},Ann,Bob,1-0" for day in range(1, 5)),
        *["2026-10-09,Ann,Bob,0-1"] * 3,
    )
    report = import_csv(
        club=world.club, rating_list="standard", data=again, by=world.arbiter, keep_identical=True
    )
    assert report.games_created == 1
    assert report.games_skipped_count == 6
    assert [entry.line for entry in report.games_skipped] == [2, 3]
    assert "6 games already stored" in report_summary(report.as_dict())
    assert Game.objects.count() == 7
