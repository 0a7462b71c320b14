"""Players migration 0020 (names_fide_merge_period_bounds): every existing player gets
the name key, and periods out of the date bounds (9999-12 opened by a game dated
9999-12-31) go with their games."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# Migrates a database backwards and forwards.
pytestmark = pytest.mark.slow

BEFORE = [
    ("players", "0014_jobs"),
    ("tournaments", "0006_move_rating_periods"),
]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_name_keys_filled_and_periods_out_of_bounds_dropped() -> None:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate(BEFORE)
        state = old.loader.project_state(BEFORE).apps
        club = state.get_model("players", "Club").objects.create(slug="old", name="Old")
        rating_list = state.get_model("players", "RatingList").objects.create(
            club=club,
            kind="standard",
            slug="standard",
            expected_method="fide_table",
            k_policy="fide",
            first_rating_policy="fide",
        )
        player_model = state.get_model("players", "Player")
        viktor = player_model.objects.create(club=club, name="Arönsen, Viktor")
        ola = player_model.objects.create(club=club, name="Ola Berg")
        periods = state.get_model("players", "RatingPeriod").objects
        good = periods.create(rating_list=rating_list, month=datetime.date(2026, 10, 1))
        bad = periods.create(rating_list=rating_list, month=datetime.date(9999, 12, 1))
        games = state.get_model("tournaments", "Game").objects
        for period, day in ((good, datetime.date(2026, 10, 5)), (bad, datetime.date(9999, 12, 31))):
            games.create(
                club=club,
                rating_list=rating_list,
                period=period,
                date=day,
                white=viktor,
                black=ola,
                result="1-0",
            )
    finally:
        _migrate(leaves)

    from players.models import Player, RatingPeriod
    from tournaments.models import Game

    assert dict(Player.objects.values_list("name", "name_key")) == {
        "Arönsen, Viktor": "aronsen viktor",
        "Ola Berg": "berg ola",
    }
    assert list(RatingPeriod.objects.values_list("month", flat=True)) == [
        datetime.date(2026, 10, 1)
    ]
    assert list(Game.objects.values_list("date", flat=True)) == [datetime.date(2026, 10, 5)]
