"""The import services on the hand-written files: what is stored, matched, refused."""

from __future__ import annotations

import datetime

import pytest

from players.errors import NotFoundError, PermissionDeniedError, ValidationFailed
from players.models import Player, PlayerRating, RatingPeriod, Role
from players.services import player_create
from tests.tournaments.import_world import (
    ImportWorld,
    build_import_world,
    counts,
    read,
    without_ids,
)
from tournaments.exports import tournament_trf
from tournaments.interchange import parse_trf
from tournaments.models import Game, Tournament
from tournaments.services import game_create, period_close
from tournaments.services.imports import import_csv, import_file, import_pgn, import_trf

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def trf(world: ImportWorld, name: str, **kwargs: object):  # type: ignore[no-untyped-def]
    return import_trf(
        club=world.club, rating_list="standard", data=read(name), by=world.arbiter, **kwargs
    )


def game_between(white: str, black: str, round_: int) -> Game:
    return Game.objects.select_related("white", "black").get(
        white__name=white, black__name=black, round=round_
    )


# -- TRF ---------------------------------------------------------------------------------------


def test_swiss_creates_the_tournament_players_and_every_game_once(world: ImportWorld) -> None:
    report = trf(world, "swiss_9_rounds.trf")

    assert report.errors == []
    assert report.stored
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.city, tournament.rounds) == (
        "Riverton Autumn Open 2026",
        "Riverton",
        9,
    )
    assert (tournament.start_date, tournament.end_date) == (
        datetime.date(2026, 10, 3),
        datetime.date(2026, 11, 28),
    )
    assert tournament.import_digest == report.digest
    parsed = parse_trf(read("swiss_9_rounds.trf"))
    assert report.games_created == len(parsed.games) == Game.objects.count() == 48
    assert len(report.players_created) == Player.objects.count() == 12
    assert report.players_matched == []
    # A tournament's games belong to the period of its end month.
    assert set(Game.objects.values_list("period__month", flat=True)) == {datetime.date(2026, 11, 1)}
    assert report.tournament is not None
    assert report.tournament.games == 48


def test_swiss_keeps_colours_round_dates_and_results(world: ImportWorld) -> None:
    trf(world, "swiss_9_rounds.trf")
    first = game_between("Petrov, Ivan", "Horvath, Bence", 1)
    assert (first.result, first.rated, first.date) == ("1-0", True, datetime.date(2026, 10, 3))
    # Line 13 has Schmidt black against Kowalski in round 1: Kowalski is White.
    assert game_between("Kowalski, Jan", "Schmidt, Lukas", 1).result == "0-1"
    fourth = game_between("Schmidt, Lukas", "Nowak, Anna", 4)
    assert (fourth.result, fourth.date) == ("1-0", datetime.date(2026, 10, 24))


def test_forfeits_and_games_under_one_move_are_stored_unrated(world: ImportWorld) -> None:
    report = trf(world, "swiss_9_rounds.trf")

    not_rated = {(g.round, g.white, g.black): (g.result, g.reason) for g in report.games_not_rated}
    assert not_rated == {
        (8, "Kowalski, Jan", "Petrov, Ivan"): ("-+", "forfeit"),
        (2, "Novak, Tomas", "Kowalski, Jan"): ("+-", "forfeit"),
        (7, "Meyer, Felix", "Kowalski, Jan"): ("--", "double forfeit"),
        (3, "Garcia, Lucia", "Horvath, Bence"): ("0-1", "less than one move"),
        (4, "Novak, Tomas", "Meyer, Felix"): ("1/2-1/2", "less than one move"),
    }
    stored = {
        (g.round, g.white.name, g.black.name): g.result
        for g in Game.objects.filter(rated=False).select_related("white", "black")
    }
    assert stored == {key: result for key, (result, _reason) in not_rated.items()}
    assert Game.objects.filter(rated=True).count() == 43


def test_byes_are_reported_not_stored_and_a_withdrawal_is_noted(world: ImportWorld) -> None:
    report = trf(world, "swiss_9_rounds.trf")

    byes = {(b.player, b.round): b.kind for b in report.byes}
    assert byes[("Horvath, Bence", 5)] == "F"
    assert byes[("Kowalski, Jan", 3)] == "H"
    assert byes[("Rossi, Marco", 6)] == "U"
    assert byes[("Novak, Tomas", 3)] == "Z"  # a blank round
    assert [r for (name, r), kind in byes.items() if name == "Smith, John"] == [6, 7, 8, 9]
    horvath = Player.objects.get(name="Horvath, Bence")
    assert not Game.objects.filter(round=5).filter(white=horvath).exists()
    assert not Game.objects.filter(round=5).filter(black=horvath).exists()
    assert any("Smith, John withdrew after round 5" in w.message for w in report.warnings)


def test_players_keep_the_file_identity_and_rating(world: ImportWorld) -> None:
    trf(world, "swiss_9_rounds.trf")

    nowak = Player.objects.get(name="Nowak, Anna")
    assert (nowak.fide_id, nowak.title, nowak.sex, nowak.federation) == (1100033, "WGM", "F", "POL")
    assert nowak.birth_date == datetime.date(1998, 11, 23)
    rossi = Player.objects.get(name="Rossi, Marco")
    assert (rossi.birth_date, rossi.birth_year) == (None, 1979)
    novak = Player.objects.get(name="Novak, Tomas")  # no FIDE ID, rating or birth date
    assert (novak.fide_id, novak.birth_year) == (None, None)
    ratings = dict(
        PlayerRating.objects.filter(player=nowak).values_list("rating_list__kind", "rating")
    )
    assert ratings == {"standard": 2350, "rapid": None, "blitz": None}
    assert PlayerRating.objects.get(player=novak, rating_list__kind="standard").rating is None


def test_round_robin_trf26(world: ImportWorld) -> None:
    report = trf(world, "round_robin_trf26.trf")

    assert report.errors == []
    assert report.games_created == 15
    assert report.games_not_rated == []
    assert report.byes == []
    pairs = {frozenset((g.white_id, g.black_id)) for g in Game.objects.all()}
    assert len(pairs) == 15  # everyone met everyone once
    assert Tournament.objects.get().rounds == 5


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        ("trf_contradiction.trf", [9]),
        ("trf_broken.trf", [4, 8, 10]),
        ("trf_bad_opponent.trf", [8, 10]),
    ],
)
def test_a_bad_trf_stores_nothing_and_names_the_lines(
    world: ImportWorld, name: str, lines: list[int]
) -> None:
    before = counts()
    report = trf(world, name)

    assert [error.line for error in report.errors] == lines
    assert report.error_code == "invalid"
    assert not report.stored
    assert counts() == before


def test_contradiction_names_both_lines(world: ImportWorld) -> None:
    (error,) = trf(world, "trf_contradiction.trf").errors
    assert (error.line, error.other_line) == (9, 10)
    assert "results disagree" in error.message


# -- dry run and importing twice ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "format"),
    [("swiss_9_rounds.trf", "trf"), ("games_good.pgn", "pgn"), ("games_good.csv", "csv")],
)
def test_dry_run_reports_exactly_what_the_real_run_does(
    world: ImportWorld, name: str, format: str
) -> None:
    before = counts()
    dry = import_file(
        format=format,
        club=world.club,
        rating_list="standard",
        data=read(name),
        by=world.arbiter,
        dry_run=True,
    )
    assert counts() == before
    assert dry.dry_run
    assert not dry.stored
    assert all(entry.player_id is None for entry in dry.players_created)

    real = import_file(
        format=format, club=world.club, rating_list="standard", data=read(name), by=world.arbiter
    )
    assert real.stored
    assert counts() != before
    assert without_ids(dry.as_dict()) == without_ids(real.as_dict())


def test_importing_the_same_file_twice_stores_it_once(world: ImportWorld) -> None:
    trf(world, "swiss_9_rounds.trf")
    before = counts()

    again = trf(world, "swiss_9_rounds.trf")
    dry_again = trf(world, "swiss_9_rounds.trf", dry_run=True)

    assert again.already_imported
    assert dry_again.already_imported
    assert again.games_created == 0
    assert not again.stored
    assert again.summary() == "This file was imported already; nothing was stored."
    assert counts() == before


def test_the_same_games_in_another_file_are_not_stored_twice(world: ImportWorld) -> None:
    """An exported TRF is another file (another digest) with the same games."""
    trf(world, "swiss_9_rounds.trf")
    exported = tournament_trf(tournament=Tournament.objects.get()).encode()
    before = counts()

    report = import_trf(club=world.club, rating_list="standard", data=exported, by=world.arbiter)

    assert report.already_imported
    assert counts() == before


# -- matching ------------------------------------------------------------------------------


def test_players_match_by_fide_id_then_name_and_birth_then_name(world: ImportWorld) -> None:
    owner = world.users["owner"]
    by_id = player_create(club=world.club, by=owner, name="Petrov, I.", fide_id=4100011)
    by_birth = player_create(club=world.club, by=owner, name="Rossi, Marco", birth_year=1979)
    by_name = player_create(club=world.club, by=owner, name="novak, tomas")
    other_smith = player_create(club=world.club, by=owner, name="Smith, John", birth_year=1970)

    report = trf(world, "swiss_9_rounds.trf")

    matched = {entry.name: (entry.player_id, entry.matched_by) for entry in report.players_matched}
    assert matched == {
        "Petrov, Ivan": (by_id.pk, "fide_id"),
        "Rossi, Marco": (by_birth.pk, "name_birth"),
        "Novak, Tomas": (by_name.pk, "name"),
    }
    # Another birth year is another person: a second John Smith is created.
    assert "Smith, John" in {entry.name for entry in report.players_created}
    assert Player.objects.filter(name="Smith, John").count() == 2
    assert not Game.objects.filter(white=other_smith).exists()
    assert len(report.players_created) == 9
    assert Game.objects.filter(white=by_id).count() + Game.objects.filter(black=by_id).count() == 9
    # Rossi matched by name although the file has his FIDE ID: say so.
    assert any("no FIDE ID 800055 on record" in w.message for w in report.warnings)


def test_two_club_players_of_one_name_make_the_file_ambiguous(world: ImportWorld) -> None:
    owner = world.users["owner"]
    player_create(club=world.club, by=owner, name="Davis, Sam")
    player_create(club=world.club, by=owner, name="Davis, Sam")
    before = counts()

    report = import_csv(
        club=world.club, rating_list="standard", data=read("games_good.csv"), by=world.arbiter
    )

    assert [error.line for error in report.errors] == [3]
    assert "2 club players are named 'Davis, Sam'" in report.errors[0].message
    assert counts() == before


# -- roles, lists, periods -----------------------------------------------------------------------


def test_a_viewer_may_not_import(world: ImportWorld) -> None:
    with pytest.raises(PermissionDeniedError):
        import_trf(
            club=world.club,
            rating_list="standard",
            data=read("swiss_9_rounds.trf"),
            by=world.users["viewer"],
        )
    assert Game.objects.count() == 0


def test_an_outsider_does_not_see_a_private_club(world: ImportWorld) -> None:
    with pytest.raises(NotFoundError):
        import_trf(
            club=world.club,
            rating_list="standard",
            data=read("swiss_9_rounds.trf"),
            by=world.outsider,
        )


def test_officer_and_owner_may_import(world: ImportWorld) -> None:
    report = import_trf(
        club=world.club,
        rating_list="rapid",
        data=read("round_robin_trf26.trf"),
        by=world.users["officer"],
    )
    assert report.stored
    assert Tournament.objects.get().rating_list.kind == "rapid"


def test_unknown_list_or_format_is_refused(world: ImportWorld) -> None:
    with pytest.raises(ValidationFailed) as error:
        import_trf(club=world.club, rating_list="bullet", data=b"", by=world.arbiter)
    assert "list" in error.value.fields
    with pytest.raises(ValidationFailed) as error:
        import_file(
            format="xls", club=world.club, rating_list="standard", data=b"", by=world.arbiter
        )
    assert "format" in error.value.fields


def test_games_of_a_closed_period_are_refused(world: ImportWorld) -> None:
    owner = world.users["owner"]
    a = player_create(club=world.club, by=owner, name="A")
    b = player_create(club=world.club, by=owner, name="B")
    game_create(
        club=world.club,
        by=owner,
        list="standard",
        date=datetime.date(2026, 11, 2),
        white=a.pk,
        black=b.pk,
        result="1-0",
    )
    november = RatingPeriod.objects.get(month=datetime.date(2026, 11, 1))
    period_close(period=november, by=world.users["officer"])
    before = counts()

    report = trf(world, "swiss_9_rounds.trf")

    assert report.error_code == "conflict"
    (error,) = report.errors
    assert error.line == 12
    assert "period 2026-11 is closed" in error.message
    assert counts() == before


def test_games_before_a_closed_period_are_refused(world: ImportWorld) -> None:
    owner = world.users["owner"]
    a = player_create(club=world.club, by=owner, name="A")
    b = player_create(club=world.club, by=owner, name="B")
    game_create(
        club=world.club,
        by=owner,
        list="standard",
        date=datetime.date(2026, 11, 2),
        white=a.pk,
        black=b.pk,
        result="1-0",
    )
    period_close(period=RatingPeriod.objects.get(), by=world.users["officer"])

    report = trf(world, "round_robin_trf26.trf")  # October, before the closed November

    assert report.error_code == "conflict"
    assert "2026-11 is closed already" in report.errors[0].message
    assert Tournament.objects.count() == 0


# -- PGN and CSV -------------------------------------------------------------------------------


def test_pgn_creates_the_event_and_matches_names_to_fide_ids(world: ImportWorld) -> None:
    report = import_pgn(
        club=world.club, rating_list="standard", data=read("games_good.pgn"), by=world.arbiter
    )

    assert report.errors == []
    assert report.games_created == Game.objects.count() == 3
    tournament = Tournament.objects.get()
    assert tournament.name == "Riverton Club Championship 2026"
    assert (tournament.start_date, tournament.end_date) == (
        datetime.date(2026, 10, 5),
        datetime.date(2026, 10, 12),
    )
    names = {p.name: p.fide_id for p in Player.objects.all()}
    assert names == {
        "Adams, Peter": 400500,
        "Baker, Rose": 400510,
        "Clark, Tom": 400520,
        "Davis, Sam": None,
    }
    warned = {w.line for w in report.warnings}
    assert 16 in warned  # incomplete date: EventDate used
    assert any("unfinished" in w.message for w in report.warnings)


def test_bad_pgn_stores_nothing(world: ImportWorld) -> None:
    before = counts()
    report = import_pgn(
        club=world.club, rating_list="standard", data=read("games_bad.pgn"), by=world.arbiter
    )
    assert [error.line for error in report.errors] == [1, 10, 19, 19]
    assert counts() == before


def test_csv_stores_forfeits_unrated_and_matches_known_players(world: ImportWorld) -> None:
    player_create(club=world.club, by=world.users["owner"], name="Adams, Peter")

    report = import_csv(
        club=world.club, rating_list="blitz", data=read("games_good.csv"), by=world.arbiter
    )

    assert report.errors == []
    assert report.games_created == 6
    assert [(e.line, e.matched_by) for e in report.players_matched] == [(2, "name")]
    assert {e.name for e in report.players_created} == {
        "Baker, Rose",
        "Clark, Tom",
        "Davis, Sam",
        "Müller, Jörg",
    }
    assert sorted((g.line, g.result) for g in report.games_not_rated) == [(5, "+-"), (7, "--")]
    assert Game.objects.filter(rated=False).count() == 2
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.rounds, tournament.rating_list.kind) == (
        "October Ladder",
        3,
        "blitz",
    )


@pytest.mark.parametrize(
    ("name", "lines"), [("games_bad.csv", [3, 4, 5]), ("games_missing_column.csv", [1])]
)
def test_bad_csv_stores_nothing(world: ImportWorld, name: str, lines: list[int]) -> None:
    before = counts()
    report = import_csv(club=world.club, rating_list="standard", data=read(name), by=world.arbiter)
    assert [error.line for error in report.errors] == lines
    assert counts() == before


def test_csv_without_tournament_column_keeps_games_in_their_own_months(world: ImportWorld) -> None:
    data = b"date,white,black,result\n2026-09-30,Ann,Bob,1-0\n2026-10-01,Bob,Ann,0-1\n"
    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.tournaments == []
    assert report.stored
    months = sorted(Game.objects.values_list("period__month", flat=True))
    assert months == [datetime.date(2026, 9, 1), datetime.date(2026, 10, 1)]
    # The same games again (no tournament to carry the digest): recognised game by game.
    again = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)
    assert again.already_imported
    assert Game.objects.count() == 2
    # One new game beside the stored ones: only it is stored; the others are named.
    more = data + b"2026-10-02,Ann,Bob,1/2-1/2\n"
    third = import_csv(club=world.club, rating_list="standard", data=more, by=world.arbiter)
    assert third.games_created == 1
    assert [skipped.line for skipped in third.games_skipped] == [2, 3]
    assert Game.objects.count() == 3


def test_role_helper_is_what_the_service_uses(world: ImportWorld) -> None:
    # The arbiter is the least role that imports: documented in the API schema too.
    assert Role.includes(Role.ARBITER, Role.ARBITER)
    assert not Role.includes(Role.VIEWER, Role.ARBITER)


def test_values_the_tables_cannot_hold_are_line_errors(world: ImportWorld) -> None:
    long_name = "X" * 201
    data = (
        "date,white,black,result,round,white_fide_id\n"
        f"2026-10-01,{long_name},Bob,1-0,1,\n"
        "2026-10-02,Ann,Bob,1-0,40000,\n"
        "2026-10-03,Ann,Bob,1-0,1,99999999999999\n"
    ).encode()
    before = counts()
    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)
    assert [(e.line, e.message) for e in report.errors] == [
        (2, "a player's name is longer than 200 characters"),
        (3, "round 40000 is out of range 1-999"),
        (4, "99999999999999 is not a FIDE ID"),
    ]
    assert counts() == before
