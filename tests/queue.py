"""Run what is on the database queue, in this process and inside the test's transaction.

This is the worker's own task step (django-tasks-db's ``Worker.run_task``) on each ready
task in queue order, after the lease check ``manage.py worker`` does first. Not the
command itself: its loop calls ``close_old_connections()``, which on PostgreSQL closes the
connection that holds the test's transaction. The command runs for real, as a process, in
tests/tournaments/test_workers.py and tests/test_runsite.py.
"""

from __future__ import annotations

from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from players.jobs import jobs_reap


def run_queued_jobs() -> int:
    """Run every ready task (tasks queued while running included); how many ran."""
    worker = Worker(
        queue_names=["*"],  # every lane
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    jobs_reap()
    ran = 0
    while (task := DBTaskResult.objects.ready().filter(backend_name="default").first()) is not None:
        task.claim(worker.worker_id)
        worker.run_task(task)
        ran += 1
    return ran
