"""Round trips that keep meaning (issue 24, point 6): our PGN and TRF exports, imported
back, give the same games with the same rated flags (forfeits and games that ended before
a move included), the same byes and the same standings; our TXT list is FIDE's layout and
reads back through ``import_fide_list``."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from django.core.management import call_command

from players.models import Player, RatingChange, RatingPeriod
from ratings_site.pages.tournaments import tournament_view
from tests.tournaments.import_world import ImportWorld, build_import_world, read
from tournaments.exports import list_export, tournament_pgn, tournament_trf
from tournaments.interchange import GameResult, InterchangeError, parse_pgn
from tournaments.interchange.exports import list_txt_columns
from tournaments.models import Game, Tournament, TournamentBye
from tournaments.services import period_close
from tournaments.services.imports import import_pgn, import_trf

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    """The Swiss (forfeits, a double forfeit, games ended before a move, every kind of bye)
    imported and its period closed."""
    world = build_import_world()
    import_trf(
        club=world.club, rating_list="standard", data=read("swiss_9_rounds.trf"), by=world.arbiter
    )
    period_close(period=RatingPeriod.objects.get(), by=world.users["officer"])
    return world


def games_of(club_id: int) -> set[tuple[Any, ...]]:
    return {
        (g.round, g.date, g.white.name, g.black.name, g.result, g.rated)
        for g in Game.objects.filter(club_id=club_id).select_related("white", "black")
    }


def byes_of(club_id: int) -> set[tuple[str, int, str]]:
    return set(
        TournamentBye.objects.filter(tournament__club_id=club_id).values_list(
            "player__name", "round", "kind"
        )
    )


def standings_of(club_id: int) -> list[tuple[Any, ...]]:
    view = tournament_view(tournament=Tournament.objects.get(club_id=club_id))
    return [
        (
            row.player.name,
            row.standing.rank,
            row.standing.tiebreaks.score,
            row.standing.tiebreaks.buchholz_cut1,
            row.standing.tiebreaks.buchholz,
            row.standing.tiebreaks.sonneborn_berger,
            row.standing.tiebreaks.wins,
        )
        for row in view.rows
    ]


def test_the_swiss_has_what_the_round_trips_must_keep(world: ImportWorld) -> None:
    results = set(Game.objects.values_list("result", flat=True))
    assert "--" in results
    assert results & {"+-", "-+"}
    assert Game.objects.filter(rated=False, result__in=["1-0", "0-1", "1/2-1/2"]).exists()
    assert TournamentBye.objects.exists()


def test_pgn_export_imports_back_as_the_same_games_and_rated_flags(world: ImportWorld) -> None:
    """Before: forfeits came back rated games (Termination "abandoned" was not read), a
    double forfeit not at all, a game that ended before a move as a rated game."""
    text = tournament_pgn(tournament=Tournament.objects.get(club=world.club))
    fresh = build_import_world("fresh")
    report = import_pgn(
        club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
    )
    assert report.errors == []
    assert games_of(fresh.club.pk) == games_of(world.club.pk)
    # PGN has no byes: the games alone give the same points to every player.
    original = {name: score for name, _rank, score, *_ in standings_of(world.club.pk)}
    bye_points = {name: sum(points) for name, points in _bye_points(world.club.pk).items()}
    for name, _rank, score, *_ in standings_of(fresh.club.pk):
        assert score == original[name] - bye_points.get(name, 0)


def _bye_points(club_id: int) -> dict[str, list[Any]]:
    value = {"F": Fraction(1), "U": Fraction(1), "H": Fraction(1, 2), "Z": Fraction(0)}
    out: dict[str, list[Any]] = {}
    for name, _round, kind in byes_of(club_id):
        out.setdefault(name, []).append(value[kind])
    return out


def test_pgn_marks_are_the_standard_tag_other_readers_keep(world: ImportWorld) -> None:
    tournament = Tournament.objects.get(club=world.club)
    text = tournament_pgn(tournament=tournament)
    stored = Game.objects.filter(tournament=tournament)
    forfeits = stored.filter(result__in=["+-", "-+", "--"]).count()
    before_a_move = stored.filter(rated=False, result__in=["1-0", "0-1", "1/2-1/2"]).count()
    assert text.count('[Termination "forfeit"]') == forfeits > 0
    assert text.count('[Termination "rules infraction"]') == before_a_move > 0
    assert "abandoned" not in text
    # python-chess, a reader that is not ours, keeps the tag and the comment.
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    marked = [g for g in games if g.headers.get("Termination") == "forfeit"]
    assert len(marked) == forfeits
    assert all("forfeit" in g.comment for g in marked)


@pytest.mark.parametrize(
    ("termination", "result", "expected", "rated"),
    [
        ("forfeit", "1-0", GameResult.WHITE_WINS_FORFEIT, False),
        ("Forfeit", "0-1", GameResult.BLACK_WINS_FORFEIT, False),
        ("forfeit", "*", GameResult.DOUBLE_FORFEIT, False),
        ("rules infraction", "1-0", GameResult.WHITE_WINS, False),
        ("rules infraction", "1/2-1/2", GameResult.DRAW, False),
        # Lost on time is a played game: rated.
        ("time forfeit", "0-1", GameResult.BLACK_WINS, True),
        ("normal", "1-0", GameResult.WHITE_WINS, True),
        ("abandoned", "1-0", GameResult.WHITE_WINS, True),
    ],
)
def test_termination_tags_read(termination: str, result: str, expected: Any, rated: bool) -> None:
    text = (
        '[Event "Club"]\n[Date "2026.10.02"]\n[Round "1"]\n[White "Adams, Peter"]\n'
        f'[Black "Baker, Rose"]\n[Result "{result}"]\n[Termination "{termination}"]\n\n{result}\n'
    )
    (game,) = parse_pgn(text).games
    assert (game.result, game.rated) == (expected, rated)


def test_a_drawn_forfeit_is_an_error_naming_the_line() -> None:
    text = (
        '[Event "Club"]\n[Date "2026.10.02"]\n[White "Adams, Peter"]\n[Black "Baker, Rose"]\n'
        '[Result "1/2-1/2"]\n[Termination "forfeit"]\n\n1/2-1/2\n'
    )
    with pytest.raises(InterchangeError) as raised:
        parse_pgn(text)
    assert "line 1" in str(raised.value)
    assert "forfeit" in str(raised.value)


def test_trf_export_imports_back_as_the_same_games_byes_and_standings(
    world: ImportWorld,
) -> None:
    text = tournament_trf(tournament=Tournament.objects.get(club=world.club))
    fresh = build_import_world("fresh")
    report = import_trf(
        club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
    )
    assert report.errors == []
    assert games_of(fresh.club.pk) == games_of(world.club.pk)
    assert byes_of(fresh.club.pk) == byes_of(world.club.pk)
    assert {kind for _name, _round, kind in byes_of(fresh.club.pk)} >= {"H", "F", "U", "Z"}
    assert standings_of(fresh.club.pk) == standings_of(world.club.pk)


def test_txt_list_is_fides_layout_and_reads_back_through_import_fide_list(
    world: ImportWorld, tmp_path: Path
) -> None:
    without = Player.objects.filter(club=world.club).order_by("name").first()
    assert without is not None
    Player.objects.filter(pk=without.pk).update(fide_id=None)
    period = RatingPeriod.objects.get()
    text = list_export(rating_list=period.rating_list, period=period, format="txt")
    header, *lines = text.splitlines()
    assert header.startswith("ID Number      Name")
    starts = [0]
    for _label, width, _right in list_txt_columns("standard"):
        starts.append(starts[-1] + width)
    labels = [label for label, _w, _r in list_txt_columns("standard")]
    ids = {
        line[starts[labels.index("Club-ID")] :].strip(): line[: starts[1]].strip() for line in lines
    }
    # FIDE IDs in FIDE's column (blank without one), our id in its own.
    assert ids[str(without.pk)] == ""
    published = RatingChange.objects.filter(period=period, rating_after__isnull=False)
    for change in published.select_related("player"):
        fide_id = change.player.fide_id
        assert ids[str(change.player_id)] == ("" if fide_id is None else str(fide_id))

    path = tmp_path / "riverton-standard.txt"
    path.write_text(text)
    fresh = build_import_world("fresh")
    for change in published.select_related("player").exclude(player__fide_id=None):
        Player.objects.create(
            club=fresh.club, name=change.player.name, fide_id=change.player.fide_id
        )
    call_command("import_fide_list", str(path), "--club", fresh.club.slug, stdout=io.StringIO())
    read_back = dict(Player.objects.filter(club=fresh.club).values_list("fide_id", "fide_standard"))
    expected = {
        c.player.fide_id: c.rating_after
        for c in published.select_related("player").exclude(player__fide_id=None)
    }
    assert read_back == expected
    assert expected


def tournament_fields(club_id: int) -> tuple[Any, ...]:
    t = Tournament.objects.get(club_id=club_id)
    return (t.name, t.city, t.start_date, t.end_date, t.rounds)


@pytest.mark.parametrize("kind", ["pgn", "trf"])
def test_an_export_read_back_keeps_the_tournaments_fields(world: ImportWorld, kind: str) -> None:
    """Name, city (PGN's Site, TRF's 022), dates and rounds. Before: a PGN read back lost
    the city (its Site was not read)."""
    tournament = Tournament.objects.get(club=world.club)
    assert tournament.city
    fresh = build_import_world("fresh")
    if kind == "pgn":
        text = tournament_pgn(tournament=tournament)
        report = import_pgn(
            club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
        )
    else:
        text = tournament_trf(tournament=tournament)
        report = import_trf(
            club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
        )
    assert report.errors == []
    assert tournament_fields(fresh.club.pk) == tournament_fields(world.club.pk)


def test_a_pgn_events_city_is_its_first_games_site(world: ImportWorld) -> None:
    """Games of one event that name no place ("?") leave the city to those that do."""
    text = (
        '[Event "Cup"]\n[Site "?"]\n[Date "2026.03.01"]\n[Round "1"]\n[White "A, B"]\n'
        '[Black "C, D"]\n[Result "1-0"]\n\n1-0\n\n'
        '[Event "Cup"]\n[Site "Lisbon POR"]\n[Date "2026.03.02"]\n[Round "2"]\n[White "C, D"]\n'
        '[Black "A, B"]\n[Result "0-1"]\n\n0-1\n\n'
        '[Event "Cup"]\n[Site "Porto"]\n[Date "2026.03.03"]\n[Round "3"]\n[White "A, B"]\n'
        '[Black "C, D"]\n[Result "1-0"]\n\n1-0\n'
    )
    fresh = build_import_world("sites")
    report = import_pgn(
        club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
    )
    assert report.errors == []
    assert Tournament.objects.get(club=fresh.club).city == "Lisbon POR"
