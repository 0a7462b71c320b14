"""The import plans, on the columns. PGN and CSV: who the persons are and in which order,
what each event's tournament spans, which lines are identical, and the errors' lines.

No database: the plan is made before anything is stored."""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st

from players.models import RatingList
from players.names import name_key
from tournaments.interchange import ParsedGame, PlayerRef, parse_games_csv, parse_trf
from tournaments.models import Tournament
from tournaments.services.imports.formats import plan_trf
from tournaments.services.imports.game_files import plan_games
from tournaments.services.imports.plan import Plan
from tournaments.services.imports.report import ImportReport
from tournaments.services.imports.store import _GameItems

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


# Every file of a small world of names, IDs, events, days and results is planned as the
# plain rule reads, one game after another (the plan before it kept columns did just
# this): the columns' shortcuts (each reference and event resolved once, the stable sort
# for identical lines) must not change a person, a tournament, a game or a message.
_NAMES = ["Aronsen, Viktor", "Viktor Aronsen", "ARONSEN Viktor", "Baker Rose", "Lee, Ann"]
_EVENTS = ["", "Cup", "Cup ", "Ladder", "Open"]


def _reference(games: list[ParsedGame], digest: str) -> tuple[list[Any], ...]:
    ids_by_name: dict[str, set[int]] = {}
    for game in games:
        for ref in (game.white, game.black):
            if ref.fide_id is not None:
                ids_by_name.setdefault(name_key(ref.name), set()).add(ref.fide_id)
    persons: dict[tuple[str, Any], list[Any]] = {}

    def person(ref: PlayerRef, line: int) -> tuple[str, Any]:
        normal = name_key(ref.name)
        if ref.fide_id is not None:
            key: tuple[str, Any] = ("fide_id", ref.fide_id)
        elif len(ids_by_name.get(normal, ())) == 1:
            key = ("fide_id", next(iter(ids_by_name[normal])))
        else:
            key = ("name", normal)
        if key not in persons:
            persons[key] = [" ".join(ref.name.split()), line, ref.rating]
        elif persons[key][2] is None:
            persons[key][2] = ref.rating
        return key

    events: dict[str, list[Any]] = {}
    for game in games:
        name = " ".join(game.tournament.split())
        if name:
            figures = events.setdefault(name, [game.line, game.date, game.date, 0])
            figures[1], figures[2] = min(figures[1], game.date), max(figures[2], game.date)
            figures[3] = max(figures[3], game.round or 0)
    planned, errors, firsts, identical = [], [], {}, []
    for game in games:
        white, black = person(game.white, game.line), person(game.black, game.line)
        event = " ".join(game.tournament.split())
        planned.append((game.line, white, black, game.result.value, game.round, game.date, event))
        if white == black:
            errors.append((game.line, "both sides are the same player"))
        key = (game.date, white, black, game.result.value, game.round, event)
        if key in firsts:
            identical.append((game.line, firsts[key]))
        else:
            firsts[key] = game.line
    kept = [g for g in planned if g[0] not in {line for line, _ in identical}]
    tournaments = [
        [name, first, start, end, rounds if 0 < rounds <= 99 else None]
        for name, (first, start, end, rounds) in events.items()
    ]
    people = [[key, *figures] for key, figures in persons.items()]
    return people, tournaments, kept, errors, identical


@pytest.mark.slow
@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    st.lists(
        st.tuples(
            st.sampled_from(range(len(_NAMES))),
            st.integers(1, len(_NAMES) - 1),  # black: another spelling, maybe of white
            st.sampled_from([None, 11, 12]),  # the white side's FIDE ID
            st.sampled_from([None, 1500, 1800]),  # the black side's rating
            st.sampled_from(_EVENTS),
            st.integers(1, 4),  # day
            st.sampled_from([None, 1, 2, 150]),  # round
            st.sampled_from(["1-0", "0-1", "1/2-1/2", "+-"]),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_the_plan_on_columns_is_the_plan_game_by_game(rows: list[tuple[Any, ...]]) -> None:
    lines = [
        f'2026-10-0{day},"{_NAMES[w]}","{_NAMES[(w + b) % len(_NAMES)]}",{result},{event},'
        f"{'' if round_ is None else round_},{'' if fide is None else fide},,,"
        f"{'' if rating is None else rating}"
        for w, b, fide, rating, event, day, round_, result in rows
    ]
    parsed = parse_games_csv((HEADER + "\n".join(lines) + "\n").encode())
    plan, report = plan_of(HEADER + "\n".join(lines) + "\n")
    people, tournaments, kept, errors, identical = _reference(list(parsed.games), DIGEST)
    assert [[p.key, p.name, p.line, p.rating] for p in plan.persons] == people
    assert [
        [t.name, t.first_line, t.start_date, t.end_date, t.rounds] for t in plan.tournaments
    ] == tournaments
    assert [
        (
            g.line,
            g.white.key,
            g.black.key,
            g.result,
            g.round,
            g.date,
            g.tournament.name if g.tournament else "",
        )
        for g in plan.games
    ] == kept
    assert [(e.line, e.message) for e in report.errors] == errors
    assert [(m.line, m.other_line) for m in report.identical_games] == identical


def test_the_items_say_what_they_name_as_reading_them_would() -> None:
    # games_add's first look at an import's items comes from the columns: it must name the
    # same players, tournaments and (list, tournament, date) as the items themselves.
    plan, _report = plan_of(
        HEADER
        + "2026-10-01,A,B,1-0,Cup,1,,,,\n"
        + "2026-10-02,C,A,1-0,,1,,,,\n"
        + "2026-10-02,B,C,1-0,Ladder,1,,,,\n"
        + "2026-10-01,A,D,1-0,Cup,2,,,,\n"
        + "2026-10-01,A,B,1-0,Cup,1,,,,\n"  # identical to line 2: not among the items
    )
    for number, person in enumerate(plan.persons, start=101):
        person.player_id = number
    for number, tournament in enumerate(plan.tournaments, start=7):
        tournament.obj = Tournament(pk=number)
    standard = RatingList(pk=3, slug="standard")
    items = _GameItems(plan.games, standard)
    read = list(items)
    assert len(read) == 4
    distinct = items.distinct_values()
    assert distinct.player_ids == {item["white"] for item in read} | {
        item["black"] for item in read
    }
    assert distinct.player_ids == {101, 102, 103, 104}
    assert distinct.tournament_ids == {item["tournament"] for item in read} == {7, 8, None}
    assert distinct.keys == {(item["list"], item["tournament"], item["date"]) for item in read}
    # Read one by one, the items are what iterating gives.
    assert [items[index] for index in range(len(items))] == read
    assert read[0] == {
        "list": "standard",
        "date": date(2026, 10, 1),
        "white": 101,
        "black": 102,
        "result": "1-0",
        "tournament": 7,
        "round": 1,
        "rated": True,
    }
    assert len(distinct.keys) == 3


def _trf_player(number: int, name: str, entries: str) -> str:
    head = f"001 {number:>4} m    {name:<33} 2000 NOR {1000 + number:>11} {'1990/01/01':<10}"
    return f"{head} {'1.5':>4} {number:>4}  {entries}"


def test_a_trfs_rounds_are_dated_checked_once_each_and_undated_at_the_start() -> None:
    lines = [
        "012 Three Rounds",
        "042 2026/10/03",
        "052 2026/10/05",
        # Round 1 on the 3rd, round 2 without a date, round 3 after the end date.
        f"{'132':<91}26/10/03{'':12}26/10/09",
        _trf_player(1, "Aronsen, Viktor", "   2 w 1     3 b 1     4 w 1"),
        _trf_player(2, "Berg, Ola", "   1 b 0     4 b 0     3 w ="),
        _trf_player(3, "Dahl, Kari", "   4 w =     1 w 0     2 b ="),
        _trf_player(4, "Eide, Per", "   3 b =     2 w 1     1 b 0"),
    ]
    report = ImportReport(
        format="trf", club="c", rating_list="standard", digest=DIGEST, dry_run=True
    )
    plan = plan_trf(parse_trf(("\n".join(lines) + "\n").encode()), DIGEST, report)
    assert [(e.line, e.message) for e in report.errors] == [
        (
            5,
            "round 3 is dated 2026-10-09, outside the tournament's dates 2026-10-03 to "
            "2026-10-05 (042/052)",
        ),
    ]
    undated = [(w.line, w.message) for w in report.warnings if "(132)" in w.message]
    assert undated == [(4, "round 2 has no date (132); its games are dated 2026-10-03")]
    assert [
        (g.round, g.line, g.white.name, g.black.name, g.result, g.date) for g in plan.games
    ] == [
        (1, 5, "Aronsen, Viktor", "Berg, Ola", "1-0", date(2026, 10, 3)),
        (2, 5, "Dahl, Kari", "Aronsen, Viktor", "0-1", date(2026, 10, 3)),
        (3, 5, "Aronsen, Viktor", "Eide, Per", "1-0", date(2026, 10, 9)),
        (2, 6, "Eide, Per", "Berg, Ola", "1-0", date(2026, 10, 3)),
        (3, 6, "Berg, Ola", "Dahl, Kari", "1/2-1/2", date(2026, 10, 9)),
        (1, 7, "Dahl, Kari", "Eide, Per", "1/2-1/2", date(2026, 10, 3)),
    ]
    assert {g.tournament.name for g in plan.games} == {"Three Rounds"}
    assert [p.fide_id for p in plan.persons] == [1001, 1002, 1003, 1004]
