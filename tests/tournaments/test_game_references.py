"""The database holds what a game names (migration tournaments/0010): its players, its
tournament, a period of its list and a list of its club. The checks are triggers rather than
foreign keys (one check per statement instead of six per game), so these tests write past the
services, as a hand-written statement or a bug would, and expect the database to refuse."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError

from players.models import Club, Player, RatingList, RatingPeriod
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play, standard
from tournaments.models import Game, Tournament
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 10)


@pytest.fixture
def world() -> dict[str, Any]:
    owner = make_owner()
    club = make_club(owner)
    other = make_club(owner, slug="other")
    ann = make_player(club, owner, "Ann", 1800)
    bob = make_player(club, owner, "Bob", 1700)
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Spring",
        rating_list="standard",
        start_date=DAY,
        end_date=DAY,
    )
    play(club, owner, [(ann, bob, "1-0")], date=DAY, tournament=tournament)
    return {
        "owner": owner,
        "club": club,
        "other": other,
        "ann": ann,
        "bob": bob,
        "tournament": tournament,
        "game": Game.objects.get(club=club),
        "period": period_of(club, "2026-03"),
    }


def _insert(game: Game, **changes: Any) -> None:
    """A copy of ``game`` with ``changes`` (column: value), by hand-written SQL."""
    columns = {
        "club_id": game.club_id,
        "rating_list_id": game.rating_list_id,
        "period_id": game.period_id,
        "tournament_id": game.tournament_id,
        "date": game.date,
        "round": game.round,
        "white_id": game.white_id,
        "black_id": game.black_id,
        "result": game.result,
        "rated": game.rated,
        "created": game.created,
    } | changes
    names = ", ".join(columns)
    marks = ", ".join(["%s"] * len(columns))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO tournaments_game ({names}) VALUES ({marks})",  # noqa: S608 - test's own columns
            list(columns.values()),
        )


def _missing_id(model: type[Any]) -> int:
    return int((model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000)


def test_a_copy_of_a_good_game_is_stored(world: dict[str, Any]) -> None:
    # The control for the refusals below: the same statement with nothing wrong passes.
    _insert(world["game"])
    assert Game.objects.filter(club=world["club"]).count() == 2


@pytest.mark.parametrize(
    ("column", "refers_to"),
    [
        ("white_id", Player),
        ("black_id", Player),
        ("tournament_id", Tournament),
        ("period_id", RatingPeriod),
        ("rating_list_id", RatingList),
        ("club_id", Club),
    ],
)
def test_a_game_naming_a_row_that_does_not_exist_is_refused(
    world: dict[str, Any], column: str, refers_to: type[Any]
) -> None:
    with pytest.raises(IntegrityError):
        _insert(world["game"], **{column: _missing_id(refers_to)})
    assert Game.objects.count() == 1


def test_one_missing_player_among_a_statements_rows_is_refused_and_named(
    world: dict[str, Any],
) -> None:
    # The check sees a statement's players as one set (tournaments/0011): one unknown id
    # among known ones, on either side, is found and named (PostgreSQL gives the id).
    game, missing = world["game"], _missing_id(Player)
    ann, bob = world["ann"].pk, world["bob"].pk
    columns = "club_id, rating_list_id, period_id, tournament_id, date, white_id, black_id"
    rows = [(ann, bob), (bob, ann), (bob, missing), (ann, bob)]
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, '1-0', %s, %s)"] * len(rows))
    params = [
        value
        for white, black in rows
        for value in (
            *(game.club_id, game.rating_list_id, game.period_id, game.tournament_id, game.date),
            *(white, black, True, game.created),
        )
    ]
    shown = f"player {missing}," if connection.vendor == "postgresql" else "player"
    with (
        pytest.raises(IntegrityError, match=shown),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            f"INSERT INTO tournaments_game ({columns}, result, rated, created) VALUES {values}",  # noqa: S608 - test's own columns
            params,
        )
    assert Game.objects.count() == 1


def test_a_game_whose_period_belongs_to_another_list_is_refused(world: dict[str, Any]) -> None:
    # Rapid's period of the same month: it exists, but not on the game's list.
    rapid = RatingList.objects.get(club=world["club"], kind="rapid")
    other_period = RatingPeriod.objects.create(rating_list=rapid, month=world["period"].month)
    with pytest.raises(IntegrityError):
        _insert(world["game"], period_id=other_period.pk)


def test_a_game_whose_list_belongs_to_another_club_is_refused(world: dict[str, Any]) -> None:
    # The other club's list and period, but the game still says it is the first club's:
    # its pages would show it to the wrong club.
    other_list = standard(world["other"])
    other_period = RatingPeriod.objects.create(rating_list=other_list, month=world["period"].month)
    with pytest.raises(IntegrityError):
        _insert(world["game"], rating_list_id=other_list.pk, period_id=other_period.pk)


@pytest.mark.parametrize("field", ["white_id", "black_id", "tournament_id"])
def test_changing_a_game_to_name_a_missing_row_is_refused(
    world: dict[str, Any], field: str
) -> None:
    model = Tournament if field == "tournament_id" else Player
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=world["game"].pk).update(**{field: _missing_id(model)})
    world["game"].refresh_from_db()
    assert world["game"].white_id == world["ann"].pk
    assert world["game"].tournament_id == world["tournament"].pk


def test_the_services_write_many_games_in_one_statement_past_the_checks(
    world: dict[str, Any],
) -> None:
    # The set-based check sees every row of the statement: many good games pass at once.
    owner, club = world["owner"], world["club"]
    players = [make_player(club, owner, f"P{i}", 1500 + i) for i in range(6)]
    play(
        club,
        owner,
        [(players[i], players[(i + 1) % 6], "1/2-1/2") for i in range(6)],
        date=DAY,
    )
    assert Game.objects.filter(club=club).count() == 7


_DELETES: dict[str, Callable[[dict[str, Any]], tuple[str, list[int]]]] = {
    "player": lambda w: ("DELETE FROM players_player WHERE id = %s", [w["bob"].pk]),
    "tournament": lambda w: (
        "DELETE FROM tournaments_tournament WHERE id = %s",
        [w["tournament"].pk],
    ),
    "period": lambda w: ("DELETE FROM tournaments_ratingperiod WHERE id = %s", [w["period"].pk]),
    "list": lambda w: (
        "DELETE FROM players_ratinglist WHERE id = %s",
        [w["period"].rating_list_id],
    ),
    "a period's list": lambda w: (
        "UPDATE tournaments_ratingperiod SET rating_list_id = %s WHERE id = %s",
        [RatingList.objects.get(club=w["club"], kind="rapid").pk, w["period"].pk],
    ),
}


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite holds this side through the models' on_delete only: its own flush empties "
    "tables in any order, which a trigger refusing the delete would stop (next test: the ORM)",
)
@pytest.mark.parametrize("what", list(_DELETES))
def test_what_games_name_cannot_go_by_hand(world: dict[str, Any], what: str) -> None:
    sql, params = _DELETES[what](world)
    with transaction.atomic(), connection.cursor() as cursor:
        # Child rows that are not games (ratings, K history) would stop some of these
        # deletes first; they go in the same transaction so that only the games remain.
        cursor.execute("DELETE FROM players_playerrating")
        cursor.execute("DELETE FROM players_kfactorchange")
        cursor.execute("DELETE FROM tournaments_tournamentbye")
        with pytest.raises(IntegrityError), transaction.atomic():
            cursor.execute(sql, params)
        transaction.set_rollback(True)
    assert Game.objects.filter(pk=world["game"].pk).exists()
    assert Player.objects.filter(pk=world["bob"].pk).exists()


def test_through_the_orm_what_games_name_is_protected(world: dict[str, Any]) -> None:
    with pytest.raises(ProtectedError):
        world["bob"].delete()
    with pytest.raises(ProtectedError):
        world["tournament"].delete()
    with pytest.raises(ProtectedError):
        world["period"].delete()
    assert Game.objects.filter(pk=world["game"].pk).exists()


def test_a_game_and_then_its_player_can_go(world: dict[str, Any]) -> None:
    # The referring side first, as the services delete: the checks let it through.
    world["game"].delete()
    Player.objects.filter(pk=world["bob"].pk).delete()
    assert not Player.objects.filter(pk=world["bob"].pk).exists()
