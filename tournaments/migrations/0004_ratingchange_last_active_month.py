"""RatingChange.last_active_month: the FIDE inactivity clock, carried forward by the close.

Existing rows get the value the close would have written: per player and list, in period
order, the month of the latest period with rated games, else the player's first period on
the list. A replaced row (current=False) continues the chain of the current rows before it.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

from django.db import migrations, models


def backfill(apps: Any, schema_editor: Any) -> None:
    change_model = apps.get_model("tournaments", "RatingChange")
    rows = (
        change_model.objects.order_by("rating_list_id", "player_id", "period__month", "id")
        .values_list("id", "rating_list_id", "player_id", "period__month", "games", "current")
        .iterator(chunk_size=5000)
    )
    chains: dict[tuple[int, int], list[tuple[datetime.date, datetime.date]]] = defaultdict(list)
    replaced: list[tuple[int, tuple[int, int], datetime.date, int]] = []
    values: dict[int, datetime.date] = {}
    for row_id, list_id, player_id, month, games, current in rows:
        key = (list_id, player_id)
        if not current:
            replaced.append((row_id, key, month, games))
            continue
        chain = chains[key]
        last = month if games or not chain else chain[-1][1]
        chain.append((month, last))
        values[row_id] = last
    for row_id, key, month, games in replaced:
        before = [last for m, last in chains[key] if m < month]
        values[row_id] = month if games or not before else before[-1]
    batch: list[Any] = []
    for row_id, last in values.items():
        batch.append(change_model(id=row_id, last_active_month=last))
        if len(batch) >= 5000:
            change_model.objects.bulk_update(batch, ["last_active_month"])
            batch = []
    if batch:
        change_model.objects.bulk_update(batch, ["last_active_month"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0003_ratingchange_audit_links_without_fk"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratingchange",
            name="last_active_month",
            field=models.DateField(blank=True, null=True, verbose_name="last active month"),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
