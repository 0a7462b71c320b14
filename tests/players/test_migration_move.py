"""Players migration 0007 moves RatingPeriod, RatingRun and RatingChange from the
tournaments app without touching a row: a database holding the demo migrates back to the
layout before the move and forward again with every row and the same list page."""

from __future__ import annotations

import pytest
from django.apps import apps as current_apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

# Migrates a database backwards and forwards.
pytestmark = pytest.mark.slow

BEFORE = [("players", "0006_adjust_march_2024"), ("tournaments", "0005_adjust_march_2024")]
TABLES = ("tournaments_ratingperiod", "tournaments_ratingrun", "tournaments_ratingchange")


def _counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in TABLES:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")  # noqa: S608 (fixed names)
            counts[table] = cursor.fetchone()[0]
        return counts


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_demo_database_migrates_across_the_move_with_every_row() -> None:
    call_command("load_demo", verbosity=0)
    page = Client().get("/clubs/riverside/lists/standard/")
    assert page.status_code == 200
    before = _counts()
    assert all(before.values()), before  # the demo has periods, runs and changes

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate(BEFORE)
        # The layout before the move: the models are the tournaments app's again, with
        # the same rows, and so are their content types.
        old_state = old.loader.project_state(BEFORE).apps
        assert (
            old_state.get_model("tournaments", "RatingChange").objects.count()
            == (before["tournaments_ratingchange"])
        )
        content_type = old_state.get_model("contenttypes", "ContentType")
        assert content_type.objects.filter(app_label="tournaments", model="ratingrun").exists()
        assert _counts() == before
    finally:
        _migrate(leaves)

    assert _counts() == before
    content_types = current_apps.get_model("contenttypes", "ContentType")
    assert (
        content_types.objects.get_for_model(
            current_apps.get_model("players", "RatingChange")
        ).app_label
        == "players"
    )
    assert not content_types.objects.filter(app_label="tournaments", model="ratingrun").exists()
    again = Client().get("/clubs/riverside/lists/standard/")
    assert again.status_code == 200
    assert again.content == page.content


@pytest.mark.django_db
def test_old_admin_urls_of_the_moved_models_redirect(client: Client) -> None:
    response = client.get("/admin/tournaments/ratingperiod/?status=closed")
    assert response.status_code == 302
    assert response["Location"] == "/admin/players/ratingperiod/?status=closed"
