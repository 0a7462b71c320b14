"""The state a rating system keeps beside the rating, stored by the names the system
declares (RatingSystem.state_fields) instead of Glicko-2's own columns: PlayerRating.state
and entry_state, RatingChange.state_before and state_after, filled from rd / volatility
(and back, on the way down)."""

from functools import reduce
from operator import or_

from django.db import migrations, models
from django.db.models import Q

# The names Glicko-2 declares (players.rating.systems.glicko2.STATE_FIELDS), written out:
# a migration keeps the meaning it had when it was written.
PAIRS = {
    "playerrating": {
        "state": ("rd", "volatility"),
        "entry_state": ("entry_rd", "entry_volatility"),
    },
    "ratingchange": {
        "state_before": ("rd_before", "volatility_before"),
        "state_after": ("rd_after", "volatility_after"),
    },
}
BATCH = 2000


def _copy(apps, model_name: str, forward: bool) -> None:
    """Only the rows that hold a state (a Glicko-2 list's), in batches."""
    model = apps.get_model("players", model_name)
    pairs = PAIRS[model_name]
    old_fields = [name for pair in pairs.values() for name in pair]
    holding = old_fields if forward else list(pairs)
    rows = model.objects.filter(
        reduce(or_, (Q(**{f"{name}__isnull": False}) for name in holding))
    ).order_by("pk")
    batch = []
    for row in rows.iterator(chunk_size=BATCH):
        for new, (rd, volatility) in pairs.items():
            if forward:
                values = (getattr(row, rd), getattr(row, volatility))
                state = (
                    None
                    if values == (None, None)
                    else dict(zip(("rd", "volatility"), values, strict=True))
                )
                setattr(row, new, state)
            else:
                state = getattr(row, new) or {}
                setattr(row, rd, state.get("rd"))
                setattr(row, volatility, state.get("volatility"))
        batch.append(row)
        if len(batch) >= BATCH:
            model.objects.bulk_update(batch, list(pairs) if forward else old_fields)
            batch = []
    if batch:
        model.objects.bulk_update(batch, list(pairs) if forward else old_fields)


def forward(apps, schema_editor) -> None:
    for model_name in PAIRS:
        _copy(apps, model_name, forward=True)


def backward(apps, schema_editor) -> None:
    for model_name in PAIRS:
        _copy(apps, model_name, forward=False)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0026_list_kind_choices_from_registry"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerrating",
            name="state",
            field=models.JSONField(blank=True, null=True, verbose_name="state"),
        ),
        migrations.AddField(
            model_name="playerrating",
            name="entry_state",
            field=models.JSONField(blank=True, null=True, verbose_name="entered state"),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="state_before",
            field=models.JSONField(blank=True, null=True, verbose_name="state before"),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="state_after",
            field=models.JSONField(blank=True, null=True, verbose_name="state after"),
        ),
        migrations.RunPython(forward, backward),
        migrations.RemoveField(model_name="playerrating", name="rd"),
        migrations.RemoveField(model_name="playerrating", name="volatility"),
        migrations.RemoveField(model_name="playerrating", name="entry_rd"),
        migrations.RemoveField(model_name="playerrating", name="entry_volatility"),
        migrations.RemoveField(model_name="ratingchange", name="rd_before"),
        migrations.RemoveField(model_name="ratingchange", name="rd_after"),
        migrations.RemoveField(model_name="ratingchange", name="volatility_before"),
        migrations.RemoveField(model_name="ratingchange", name="volatility_after"),
    ]
