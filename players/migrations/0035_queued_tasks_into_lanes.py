"""Tasks queued before the queue had lanes wait in the queue "default", which no lane's
worker serves (``manage.py worker --queue-name rating``...): each goes to its lane, as
``job_start`` queues it now (docs/reference/queue.md). Their priority stays 0: they were queued
first."""

from __future__ import annotations

from typing import Any

from django.db import migrations

#: The lanes of the job kinds and tasks as they were when the lanes came (later kinds
#: are queued in their lane from the start).
KIND_LANES = {
    "close": "rating",
    "reopen": "rating",
    "periods": "rating",
    "replay": "replays",
    "import": "files",
    "fide_list": "files",
    "history_export": "files",
    "club_export": "files",
}
RUN_JOB = "players.services.jobs.run_job"
DELIVERY_TASKS = (
    "players.services.webhook_delivery.events_fan_out",
    "players.services.webhook_delivery.webhook_deliver",
)


def into_lanes(apps: Any, schema_editor: Any) -> None:
    tasks = apps.get_model("django_tasks_database", "DBTaskResult")
    jobs = apps.get_model("players", "Job")
    waiting = tasks.objects.filter(queue_name="default", status="READY")
    waiting.filter(task_path__in=DELIVERY_TASKS).update(queue_name="deliveries")
    kinds = dict(jobs.objects.filter(status="queued").values_list("task_id", "kind"))
    for task in waiting.filter(task_path=RUN_JOB):
        lane = KIND_LANES.get(kinds.get(str(task.id), ""), "files")
        tasks.objects.filter(pk=task.pk).update(queue_name=lane)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0034_webhook_standard_signatures"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(into_lanes, migrations.RunPython.noop)]
