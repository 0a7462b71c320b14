"""The queue's tasks moved into players/jobs/ and players/webhooks/: a task queued before
the move is stored under its old dotted path, which a worker can no longer import, and a
failed one names an exception class by its old path. Both are renamed; backwards, back."""

from __future__ import annotations

from typing import Any

from django.db import migrations

#: Old path -> new path, of every task and exception class the stored rows may name.
MOVED = {
    "players.services.jobs.run_job": "players.jobs.services.run_job",
    "players.services.jobs.WorkerLost": "players.jobs.services.WorkerLost",
    "players.services.webhook_delivery.events_fan_out": "players.webhooks.delivery.events_fan_out",
    "players.services.webhook_delivery.webhook_deliver": (
        "players.webhooks.delivery.webhook_deliver"
    ),
}


def _rename(apps: Any, names: dict[str, str]) -> None:
    tasks = apps.get_model("django_tasks_database", "DBTaskResult").objects
    for old, new in names.items():
        tasks.filter(task_path=old).update(task_path=new)
        tasks.filter(exception_class_path=old).update(exception_class_path=new)


def forwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, MOVED)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, {new: old for old, new in MOVED.items()})


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0037_club_embed_origins"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
