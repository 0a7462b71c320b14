"""The close reads a period's games as columns (read.period_games): on PostgreSQL packed by
the server into one bytea and split by numpy, elsewhere through the ORM. Both must give the
very columns the ORM holds, in the same order: every result code, rated or not, inside a
tournament or outside, and no game of another period."""

from __future__ import annotations

import datetime

import pytest

from players.rating.period import GAME_RESULTS, PeriodGames
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.models import Game
from tournaments.services import games_create_bulk, tournament_create
from tournaments.services.close.read import period_games

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def _as_rows(games: PeriodGames) -> list[tuple[object, ...]]:
    return sorted(zip(*games, strict=True), key=repr)


def test_the_columns_are_the_games_of_the_period() -> None:
    owner = make_owner()
    club = make_club(owner)
    a, b, c = (make_player(club, owner, name, 1800) for name in ("A", "B", "C"))
    play(club, owner, [(a, b, result) for result in GAME_RESULTS], date=OCT)
    event = tournament_create(
        club=club,
        by=owner,
        name="Open",
        rating_list="standard",
        start_date=OCT,
        end_date=OCT + datetime.timedelta(days=2),
    )
    play(club, owner, [(c, a, "1/2-1/2"), (b, c, "+-")], date=OCT, tournament=event)
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {
                "list": "standard",
                "date": OCT,
                "white": c,
                "black": b,
                "result": "0-1",
                "rated": False,
            }
        ],
    )
    play(club, owner, [(a, c, "1-0")], date=datetime.date(2026, 11, 3))  # another period
    period = period_of(club, "2026-10")

    games = period_games(period)

    held = Game.objects.filter(period=period).values_list(
        "white_id", "black_id", "result", "rated", "tournament_id"
    )
    assert _as_rows(games) == sorted(held, key=repr)
    assert len(games.white) == len(GAME_RESULTS) + 3
    assert all(type(value) is int for value in (*games.white, *games.black))
    assert {type(value) for value in games.tournament} == {int, type(None)}
    assert {type(value) for value in games.rated} == {bool}
    assert {type(value) for value in games.result} == {str}


def test_a_period_without_games_has_empty_columns() -> None:
    owner = make_owner()
    club = make_club(owner)
    a, b = make_player(club, owner, "A", 1800), make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=OCT)
    period = period_of(club, "2026-10")
    Game.objects.filter(period=period).delete()

    assert period_games(period) == PeriodGames([], [], [], [], [])
