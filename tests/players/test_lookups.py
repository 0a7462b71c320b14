"""``field__any=[...]`` (players/lookups.py): the rows of the values given, on both backends;
on PostgreSQL integers go as an array of the column's own type, which it can hash."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from players.models import Club, Player
from players.services import club_create


@pytest.mark.django_db
def test_any_finds_the_rows_of_the_values_given() -> None:
    owner = get_user_model().objects.create_user("any-owner")
    club: Club = club_create(name="Any", slug="any", by=owner)
    players = [
        Player.objects.create(club=club, name=f"P{n}", name_key=f"p{n}", fide_id=400000 + n)
        for n in range(12)
    ]
    wanted = [p.pk for p in players[::3]]
    by_id = Player.objects.filter(club=club, pk__any=wanted).values_list("pk", flat=True)
    assert sorted(by_id) == sorted(wanted)
    assert sorted(
        Player.objects.filter(fide_id__any=[400001, 400002, 1]).values_list("fide_id", flat=True)
    ) == [400001, 400002]
    assert list(
        Player.objects.filter(name_key__any=["p5", "none"]).values_list("name", flat=True)
    ) == ["P5"]
    assert not Player.objects.filter(pk__any=[]).exists()


@pytest.mark.django_db
def test_integers_are_sent_as_the_columns_type_on_postgresql() -> None:
    """psycopg sends ids under 32,768 as ``smallint[]``, and ``bigint = ANY(smallint[])``
    cannot be hashed: PostgreSQL compared each row with every id (0.1-0.2 s for 8,000)."""
    if connection.vendor != "postgresql":
        pytest.skip("an array parameter is PostgreSQL's")
    sql, _ = Player.objects.filter(pk__any=[1, 2]).query.sql_with_params()
    assert "= ANY(%s::bigint[])" in sql
    sql, _ = Player.objects.filter(fide_id__any=[1, 2]).query.sql_with_params()
    assert "= ANY(%s::bigint[])" in sql  # a PositiveBigIntegerField
    sql, _ = Player.objects.filter(name_key__any=["a"]).query.sql_with_params()
    assert "= ANY(%s)" in sql
