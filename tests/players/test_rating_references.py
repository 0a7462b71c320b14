"""The database holds what a player's rating rows and K changes name (migration
players/0033): their player, their list, the user who made the change. On PostgreSQL the
checks are triggers, once per statement, rather than foreign keys checked once per row at
commit; SQLite keeps its foreign keys. These tests write past the services, as a
hand-written statement or a bug would, and commit, so that either database's check runs
(SQLite checks its deferred keys at commit), and expect the database to refuse."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from players.bulk import insert_rows
from players.models import KFactorChange, Player, PlayerRating, RatingList
from tests.tournaments.helpers import make_club, make_owner, make_player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world() -> dict[str, Any]:
    owner = make_owner()
    club = make_club(owner)
    ann = make_player(club, owner, "Ann", 1800)
    # A list Ann has no row on, for the good rows below (one row a player and list).
    free = RatingList.objects.get(club=club, kind="rapid")
    PlayerRating.objects.filter(player=ann, rating_list=free).delete()
    return {
        "free_list": free,
        "owner": owner,
        "club": club,
        "ann": ann,
        "list": RatingList.objects.get(club=club, kind="standard"),
        "rating": PlayerRating.objects.filter(player=ann).first(),
        "k": KFactorChange.objects.filter(player=ann).first(),
    }


def _missing_id(model: type[Any]) -> int:
    return int((model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000)


def _rating_row(world: dict[str, Any], **changes: Any) -> tuple[Any, ...]:
    values = {"player": world["ann"].pk, "rating_list": world["free_list"].pk} | changes
    return (values["player"], values["rating_list"])


def _k_row(world: dict[str, Any], **changes: Any) -> tuple[Any, ...]:
    k = world["k"]
    values = {"player": world["ann"].pk, "created_by": world["owner"].pk} | changes
    return (
        values["player"],
        k.rating_list_id,
        k.effective_month,
        k.new_k,
        k.new_reason,
        k.reason,
        values["created_by"],
    )


_K_FIELDS = (
    "player",
    "rating_list",
    "effective_month",
    "new_k",
    "new_reason",
    "reason",
    "created_by",
)


def test_rows_naming_what_exists_are_stored(world: dict[str, Any]) -> None:
    # The control for the refusals below: the same writes with nothing wrong pass.
    with transaction.atomic():
        insert_rows(PlayerRating, ("player", "rating_list"), [_rating_row(world)])
        insert_rows(KFactorChange, _K_FIELDS, [_k_row(world)])
    assert PlayerRating.objects.filter(player=world["ann"], rating_list=world["free_list"]).exists()


@pytest.mark.parametrize(
    ("model", "fields", "row", "column", "refers_to"),
    [
        (PlayerRating, ("player", "rating_list"), _rating_row, "player", Player),
        (PlayerRating, ("player", "rating_list"), _rating_row, "rating_list", RatingList),
        (KFactorChange, _K_FIELDS, _k_row, "player", Player),
        (KFactorChange, _K_FIELDS, _k_row, "created_by", get_user_model()),
    ],
)
def test_a_row_naming_what_does_not_exist_is_refused(
    world: dict[str, Any],
    model: type[Any],
    fields: tuple[str, ...],
    row: Any,
    column: str,
    refers_to: type[Any],
) -> None:
    before = model.objects.count()
    missing = _missing_id(refers_to)

    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        # One good row and the bad one in one statement: the check sees them as a set.
        insert_rows(model, fields, [row(world), row(world, **{column: missing})])

    assert model.objects.count() == before
    if connection.vendor == "postgresql":
        assert str(missing) in str(refused.value)


def test_changing_a_k_change_to_name_a_missing_player_is_refused(world: dict[str, Any]) -> None:
    k = world["k"]
    with pytest.raises(IntegrityError), transaction.atomic():
        KFactorChange.objects.filter(pk=k.pk).update(player_id=_missing_id(Player))
    assert KFactorChange.objects.get(pk=k.pk).player_id == world["ann"].pk


_BY_HAND = {
    # what is deleted, and the other rows naming it that go first in the same transaction
    # (so that only the rows under test still name it)
    "a player named by rating rows": ("players_player", "player", ["players_kfactorchange"]),
    "a player named by K changes": ("players_player", "player", ["players_playerrating"]),
    "a list named by rating rows": (
        "players_ratinglist",
        "list",
        ["players_kfactorchange", "tournaments_ratingperiod", "tournaments_ratingrun"],
    ),
    "a user named by K changes": ("auth_user", "author", []),
}


def _delete_by_hand(table: str, key: int, first: list[str], column: str | None) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        for other in first:
            cursor.execute(f"DELETE FROM {other} WHERE {column} = %s", [key])  # noqa: S608 - the test's own tables
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [key])  # noqa: S608 - the test's own tables


@pytest.mark.parametrize("case", list(_BY_HAND))
def test_what_rating_rows_name_cannot_go_by_hand(world: dict[str, Any], case: str) -> None:
    table, what, first = _BY_HAND[case]
    author = get_user_model().objects.create_user("author")  # names nothing but K changes
    KFactorChange.objects.filter(pk=world["k"].pk).update(created_by=author)
    key = {"player": world["ann"].pk, "list": world["list"].pk, "author": author.pk}[what]
    column = {"player": "player_id", "list": "rating_list_id"}.get(what)
    with pytest.raises(IntegrityError):
        _delete_by_hand(table, key, first, column)
    assert PlayerRating.objects.filter(pk=world["rating"].pk).exists()
    assert KFactorChange.objects.filter(pk=world["k"].pk, created_by=author).exists()


def test_through_the_orm_a_player_and_a_user_go_with_what_names_them(
    world: dict[str, Any],
) -> None:
    # The services' way: Django deletes the rating rows and K changes first (CASCADE) and
    # empties created_by (SET_NULL); the checks let that through.
    world["ann"].delete()
    assert not PlayerRating.objects.filter(pk=world["rating"].pk).exists()
    assert not KFactorChange.objects.filter(pk=world["k"].pk).exists()
    other = make_player(world["club"], world["owner"], "Bob", 1700)
    author = get_user_model().objects.create_user("author")
    KFactorChange.objects.filter(player=other).update(created_by=author)
    author.delete()
    assert set(KFactorChange.objects.filter(player=other).values_list("created_by", flat=True)) == {
        None
    }
