"""The PGN/CSV front end's plan, on the columns: who the persons are and in which order,
what each event's tournament spans, which lines are identical, and the errors' lines.

No database: the plan is made before anything is stored."""

from __future__ import annotations

import hashlib
from datetime import date

from tournaments.interchange import parse_games_csv
from tournaments.services.imports.game_files import plan_games
from tournaments.services.imports.plan import Plan
from tournaments.services.imports.report import ImportReport

DIGEST = "d" * 64


def plan_of(csv: str, *, keep_identical: bool = False) -> tuple[Plan, ImportReport]:
    report = ImportReport(
        format="csv",
        club="c",
        rating_list="standard",
        digest=DIGEST,
        dry_run=True,
        keep_identical=keep_identical,
    )
    parsed = parse_games_csv(csv.encode())
    return plan_games(parsed.games, DIGEST, report), report  # type: ignore[arg-type]


HEADER = "date,white,black,result,tournament,round,white_fide_id,black_fide_id,white_rating,black_rating\n"


def test_persons_are_met_in_file_order_white_first_and_named_forms_join() -> None:
    plan, report = plan_of(
        HEADER
        + '2026-10-01,Baker Rose,"Aronsen, Viktor",1-0,,1,,,,\n'  # line 2
        + "2026-10-02,ARONSEN Viktor,Clark Tom,0-1,,2,,,1850,\n"  # line 3: Aronsen again
        + "2026-10-03,Clark Tom,Davis Sam,1-0,,3,,4100,,\n"  # line 4
        + '2026-10-04,"Davis, Sam","Baker, Rose",1-0,,4,,,1700,1600\n'  # line 5
    )
    assert report.errors == []
    assert [(p.name, p.line, p.fide_id, p.rating) for p in plan.persons] == [
        ("Baker Rose", 2, None, 1600),  # its first rating, on line 5
        ("Aronsen, Viktor", 2, None, 1850),
        ("Clark Tom", 3, None, None),
        # The name-only "Davis, Sam" is the FIDE ID 4100 of the same name key.
        ("Davis Sam", 4, 4100, 1700),
    ]
    pairs = [(g.line, g.white.name, g.black.name) for g in plan.games]
    assert pairs == [
        (2, "Baker Rose", "Aronsen, Viktor"),
        (3, "Aronsen, Viktor", "Clark Tom"),
        (4, "Clark Tom", "Davis Sam"),
        (5, "Davis Sam", "Baker Rose"),
    ]


def test_each_event_spans_its_games_and_the_first_carries_the_files_digest() -> None:
    plan, report = plan_of(
        HEADER
        + "2026-10-09,A,B,1-0,Club  Cup,3,,,,\n"  # line 2: "Club Cup" with two blanks
        + "2026-10-02,C,D,1-0,Ladder,120,,,,\n"
        + "2026-10-01,A,C,1-0,Club Cup,1,,,,\n"
        + "2026-10-05,B,D,1-0,,,,,,\n"
        + "2026-10-20,C,A,1-0,Ladder,2,,,,\n"
    )
    assert report.errors == []
    cup, ladder = plan.tournaments
    assert (cup.name, cup.start_date, cup.end_date, cup.rounds, cup.first_line) == (
        "Club Cup",
        date(2026, 10, 1),
        date(2026, 10, 9),
        3,
        2,
    )
    # A round over 99 is not a tournament's number of rounds.
    assert (ladder.name, ladder.start_date, ladder.end_date, ladder.rounds, ladder.first_line) == (
        "Ladder",
        date(2026, 10, 2),
        date(2026, 10, 20),
        None,
        3,
    )
    assert cup.digest == DIGEST
    assert ladder.digest == hashlib.sha256(f"{DIGEST}:Ladder".encode()).hexdigest()
    assert [g.tournament.name if g.tournament else None for g in plan.games] == [
        "Club Cup",
        "Ladder",
        "Club Cup",
        None,
        "Ladder",
    ]


def test_identical_lines_keep_the_first_and_name_it() -> None:
    lines = [
        "2026-10-01,A,B,1-0,Cup,1,,,,",  # 2
        "2026-10-01,A,B,0-1,Cup,1,,,,",  # 3: another result
        "2026-10-01,A,B,1-0,Cup,1,,,,",  # 4: as 2
        "2026-10-01,B,A,1-0,Cup,1,,,,",  # 5: colours swapped
        "2026-10-01,A,B,1-0,Cup,2,,,,",  # 6: another round
        "2026-10-01,a,b,1-0,Cup,1,,,,",  # 7: as 2 (the same persons by name key)
        "2026-10-02,A,B,1-0,Cup,1,,,,",  # 8: another day
        "2026-10-01,A,B,1-0,,1,,,,",  # 9: no event
        "2026-10-01,A,B,0-1,Cup,1,,,,",  # 10: as 3
    ]
    plan, report = plan_of(HEADER + "\n".join(lines) + "\n")
    assert [(m.line, m.other_line) for m in report.identical_games] == [(4, 2), (7, 2), (10, 3)]
    assert [g.line for g in plan.games] == [2, 3, 5, 6, 8, 9]
    kept, report = plan_of(HEADER + "\n".join(lines) + "\n", keep_identical=True)
    assert report.identical_games == []
    assert [g.line for g in kept.games] == list(range(2, 11))


def test_errors_come_at_their_lines_in_file_order() -> None:
    long_name = "X" * 201
    _plan, report = plan_of(
        HEADER
        + "2026-10-01,A,B,1-0,,1,,,,\n"
        + '2026-10-01,Ann Lee,"Lee, Ann",1-0,,1,,,,\n'  # line 3: one person twice
        + f"2026-10-01,{long_name},B,1-0,,1000,,,,\n"  # line 4: round, then the name
        + "2026-10-01,C,D,1-0,,1,7,7,,\n"  # line 5: one FIDE ID on both sides
    )
    assert [(e.line, e.message) for e in report.errors] == [
        (3, "both sides are the same player"),
        (4, "round 1000 is out of range 1-999"),
        (4, "a player's name is longer than 200 characters"),
        (5, "both sides are the same player"),
    ]
