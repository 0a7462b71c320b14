"""The suite's faster flush on PostgreSQL (tests/conftest.py): DELETE, children first,
instead of TRUNCATE. It must cover every table, in an order the references allow, or a
transactional test's teardown would fail or fall back to TRUNCATE's 0.3 s."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from players.models import Club, Player, RatingChange
from tests.api.conftest import build_club
from tests.conftest import _children_first
from tournaments.models import Game


def test_every_table_comes_before_the_tables_it_refers_to() -> None:
    tables = connection.introspection.django_table_names(include_views=False)
    order = _children_first(tables)
    assert order is not None, "a cycle among the models' references: the flush is TRUNCATE's"
    assert sorted(order) == sorted(tables)
    position = {table: index for index, table in enumerate(order)}
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            target = field.related_model
            if field.is_relation and target is not None and target is not model:
                assert position[model._meta.db_table] < position[target._meta.db_table], (
                    f"{model._meta.db_table} refers to {target._meta.db_table}"
                )


@pytest.mark.django_db(transaction=True)
def test_a_flush_empties_a_club_with_closes_and_games() -> None:
    build_club("north", public=True)
    assert Game.objects.exists()
    assert RatingChange.objects.exists()
    # The tables' delete triggers (games and rating rows keep their references) must pass.
    call_command("flush", interactive=False, verbosity=0)
    assert not Club.objects.exists()
    assert not Player.objects.exists()
    assert not Game.objects.exists()
    assert not RatingChange.objects.exists()
