"""Players migration 0038 (task_paths_moved): a task queued before the queue's code moved
(players/services/ -> players/jobs/, players/webhooks/) is stored under its old dotted
path; after the migration a worker imports it from the new one, and back."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from django.utils.module_loading import import_string

# Migrates a database backwards and forwards.
pytestmark = pytest.mark.slow

BEFORE = [("players", "0037_club_embed_origins")]
OLD = "players.services.jobs.run_job"
OLD_ERROR = "players.services.jobs.WorkerLost"


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _tasks(targets: list[tuple[str, str]]) -> Any:
    return (
        MigrationExecutor(connection)
        .loader.project_state(targets)
        .apps.get_model("django_tasks_database", "DBTaskResult")
        .objects
    )


@pytest.mark.django_db(transaction=True)
def test_a_task_queued_before_the_move_runs_from_its_new_home_and_goes_back() -> None:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        _migrate(BEFORE)
        _tasks(BEFORE).create(
            task_path=OLD,
            exception_class_path=OLD_ERROR,
            args_kwargs={"args": [], "kwargs": {}},
            queue_name="rating",
            backend_name="default",
            run_after=timezone.now(),
            traceback="",
        )
    finally:
        _migrate(leaves)
    (task,) = _tasks(leaves).all()
    assert task.task_path == "players.jobs.services.run_job"
    assert import_string(task.task_path).func.__name__ == "run_job"
    # The label _task_failed writes for a dead worker's task, now under the new path.
    assert task.exception_class_path == "players.jobs.services.WorkerLost"
    try:
        _migrate(BEFORE)
        (task,) = _tasks(BEFORE).all()
        assert (task.task_path, task.exception_class_path) == (OLD, OLD_ERROR)
    finally:
        _migrate(leaves)
