"""Players migration 0027 (rating_state_json): Glicko-2's rd / volatility columns become
the state JSON by the names the system declares, and back on the way down; rows of a
system without a state stay null."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("players", "0026_list_kind_choices_from_registry")]
AFTER = [("players", "0027_rating_state_json")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_rd_and_volatility_move_into_the_state_and_back() -> None:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate(BEFORE)
        apps = old.loader.project_state(BEFORE).apps
        club = apps.get_model("players", "Club").objects.create(slug="old", name="Old")
        lists = apps.get_model("players", "RatingList").objects
        rules = {"expected_method": "formula", "k_policy": "fixed", "fixed_k": 20}
        online = lists.create(
            club=club,
            kind="blitz",
            slug="online",
            system="glicko2",
            first_rating_policy="fixed",
            starting_rating=1500,
            **rules,
        )
        fide = lists.create(
            club=club,
            kind="standard",
            slug="standard",
            expected_method="fide_table",
            k_policy="fide",
            first_rating_policy="fide",
        )
        player = apps.get_model("players", "Player").objects.create(club=club, name="Me")
        ratings = apps.get_model("players", "PlayerRating").objects
        ratings.create(
            player=player,
            rating_list=online,
            rating=1464,
            rd=151.52,
            volatility=0.059996,
            entry_rd=200.0,
            entry_volatility=0.06,
        )
        ratings.create(player=player, rating_list=fide, rating=1800)
        period = apps.get_model("players", "RatingPeriod").objects.create(
            rating_list=online, month=datetime.date(2026, 10, 1), status="closed"
        )
        run = apps.get_model("players", "RatingRun").objects.create(
            rating_list=online,
            kind="close",
            started=datetime.datetime(2026, 11, 1, tzinfo=datetime.UTC),
        )
        apps.get_model("players", "RatingChange").objects.create(
            run=run,
            period=period,
            player=player,
            rating_list=online,
            rating_before=1500,
            rating_after=1464,
            change=-36,
            games=3,
            score=1,
            expected=1.37,
            event="rated",
            rd_before=200.0,
            rd_after=151.52,
            volatility_before=0.06,
            volatility_after=0.059996,
        )

        new = _migrate(AFTER)
        apps = new.loader.project_state(AFTER).apps
        ratings = apps.get_model("players", "PlayerRating").objects
        glicko = ratings.get(rating_list__slug="online")
        assert glicko.state == {"rd": 151.52, "volatility": 0.059996}
        assert glicko.entry_state == {"rd": 200.0, "volatility": 0.06}
        plain = ratings.get(rating_list__slug="standard")
        assert (plain.state, plain.entry_state) == (None, None)
        change = apps.get_model("players", "RatingChange").objects.get()
        assert change.state_before == {"rd": 200.0, "volatility": 0.06}
        assert change.state_after == {"rd": 151.52, "volatility": 0.059996}

        back = _migrate(BEFORE)
        apps = back.loader.project_state(BEFORE).apps
        glicko = apps.get_model("players", "PlayerRating").objects.get(rating_list__slug="online")
        assert (glicko.rd, glicko.volatility, glicko.entry_rd) == (151.52, 0.059996, 200.0)
        change = apps.get_model("players", "RatingChange").objects.get()
        assert (change.rd_before, change.volatility_after) == (200.0, 0.059996)
    finally:
        _migrate(leaves)
