"""The K rows entered when players joined carried the month the player was created; move
each back to the first month its K applied to: the first period in which the player had
games, or whose close changed their K (as the close now does, tournaments/services/close/
write.py ``date_entry_k_changes``). Reversing leaves the corrected months."""

from __future__ import annotations

from typing import Any

from django.db import migrations
from django.db.models import Min


def date_entry_rows(apps: Any, schema_editor: Any) -> None:
    KFactorChange = apps.get_model("players", "KFactorChange")
    RatingChange = apps.get_model("players", "RatingChange")
    first: dict[tuple[int, int], Any] = {}

    def earliest(rows: Any) -> None:
        for row in rows:
            key = (row["player_id"], row["rating_list_id"])
            if key not in first or row["month"] < first[key]:
                first[key] = row["month"]

    earliest(
        RatingChange.objects.filter(current=True, games__gt=0)
        .values("player_id", "rating_list_id")
        .annotate(month=Min("period__month"))
        .order_by()
    )
    earliest(
        KFactorChange.objects.filter(current=True, source_period__isnull=False)
        .values("player_id", "rating_list_id")
        .annotate(month=Min("source_period__month"))
        .order_by()
    )
    entries = KFactorChange.objects.filter(
        old_k__isnull=True, source_period__isnull=True, run__isnull=True, current=True
    ).only("id", "player_id", "rating_list_id", "effective_month")
    moved = []
    for row in entries.iterator(chunk_size=2000):
        month = first.get((row.player_id, row.rating_list_id))
        if month is not None and month < row.effective_month:
            row.effective_month = month
            moved.append(row)
    KFactorChange.objects.bulk_update(moved, ["effective_month"], batch_size=2000)


class Migration(migrations.Migration):
    dependencies = [("players", "0027_rating_state_json")]

    operations = [migrations.RunPython(date_entry_rows, migrations.RunPython.noop)]
