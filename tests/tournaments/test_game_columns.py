"""Game items kept in columns (an import's) are checked a distinct value at a time
(tournaments/services/game_columns.py): the rows stored are the ones the item-by-item path
stores, and any item it would refuse is refused as that path refuses it (same field, same
index)."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import numpy
import pytest
from django.db import transaction

from players.errors import ValidationFailed
from tests.tournaments.helpers import make_club, make_owner, make_player
from tournaments.models import Game
from tournaments.services import tournament_create
from tournaments.services.game_checks import look_up
from tournaments.services.game_columns import GameColumns, validated_columns
from tournaments.services.games import games_add

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 10)
FIELDS = ("list", "date", "white", "black", "result", "tournament", "round", "rated")


class Columnar(list[Mapping[str, Any]]):
    """Game items that also give themselves as columns, as an import's do."""

    def columns(self) -> GameColumns:
        values: dict[str, list[Any]] = {}
        codes: dict[str, numpy.ndarray[Any, Any]] = {}
        for name in FIELDS:
            seen: list[Any] = []
            column = []
            for item in self:
                value = item[name]
                # By identity and type: 1 and True are different values here.
                index = next(
                    (
                        i
                        for i, v in enumerate(seen)
                        if v is value or (type(v), v) == (type(value), value)
                    ),
                    None,
                )
                if index is None:
                    index = len(seen)
                    seen.append(value)
                column.append(index)
            values[name], codes[name] = seen, numpy.array(column, numpy.int32)
        return GameColumns(size=len(self), values=values, codes=codes)


@pytest.fixture
def world() -> dict[str, Any]:
    owner = make_owner()
    club = make_club(owner)
    players = [make_player(club, owner, f"P{i}", 1500 + 10 * i) for i in range(4)]
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Spring",
        rating_list="standard",
        start_date=DAY,
        end_date=DAY + datetime.timedelta(days=5),
    )
    return {"club": club, "players": players, "tournament": tournament}


def _items(world: dict[str, Any]) -> list[dict[str, Any]]:
    p, t = [player.pk for player in world["players"]], world["tournament"].pk
    return [
        {
            "list": "standard",
            "date": DAY,
            "white": p[0],
            "black": p[1],
            "result": "1-0",
            "tournament": t,
            "round": 1,
            "rated": True,
        },
        {
            "list": "standard",
            "date": DAY,
            "white": p[2],
            "black": p[3],
            "result": "1/2-1/2",
            "tournament": t,
            "round": 1,
            "rated": False,
        },
        {
            "list": "standard",
            "date": DAY + datetime.timedelta(days=1),
            "white": p[1],
            "black": p[2],
            "result": "0-1",
            "tournament": t,
            "round": 2,
            "rated": True,
        },
        {
            "list": "standard",
            "date": datetime.date(2026, 2, 3),
            "white": p[3],
            "black": p[0],
            "result": "+-",
            "tournament": None,
            "round": None,
            "rated": True,
        },
    ]


def _stored(club: Any) -> list[tuple[Any, ...]]:
    return list(
        Game.objects.filter(club=club)
        .order_by("id")
        .values_list(
            "rating_list_id",
            "period__month",  # not its id: the first run's periods were rolled back
            "period__rating_list_id",
            "tournament_id",
            "date",
            "round",
            "white_id",
            "black_id",
            "result",
            "rated",
        )
    )


def _add(world: dict[str, Any], items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Store ``items`` and return the rows, rolled back afterwards."""
    with transaction.atomic():
        games_add(club=world["club"], games=items)
        rows = _stored(world["club"])
        transaction.set_rollback(True)
    return rows


def test_columns_store_the_rows_the_items_store(world: dict[str, Any]) -> None:
    items = _items(world)
    lookups = look_up(club=world["club"], items=Columnar(items), with_keys=True)
    assert validated_columns(Columnar(items).columns(), lookups) is not None
    by_items = _add(world, items)
    by_columns = _add(world, Columnar(items))
    assert len(by_items) == 4
    assert by_columns == by_items


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"white": 10**9}, "white"),
        ({"black": 10**9}, "black"),
        ({"black": "same"}, "black"),  # a player against themself
        ({"tournament": 10**9}, "tournament"),
        ({"date": datetime.date(2026, 4, 1)}, "date"),  # outside the tournament's dates
        ({"list": "nope"}, "list"),
        ({"result": "2-0"}, "result"),
        ({"round": 0}, "round"),
        ({"round": True}, "round"),
        ({"rated": 1}, "rated"),
    ],
)
def test_an_item_the_columns_refuse_is_refused_as_one_item_would_be(
    world: dict[str, Any], change: dict[str, Any], field: str
) -> None:
    items = _items(world)
    bad = {**items[2], **change}
    if bad["black"] == "same":
        bad["black"] = bad["white"]
    items[2] = bad
    lookups = look_up(club=world["club"], items=Columnar(items), with_keys=True)
    assert validated_columns(Columnar(items).columns(), lookups) is None
    for given in (items, Columnar(items)):
        with pytest.raises(ValidationFailed) as refused, transaction.atomic():
            games_add(club=world["club"], games=given)
        assert list(refused.value.fields) == [f"[2].{field}"]
    assert not Game.objects.filter(club=world["club"]).exists()
