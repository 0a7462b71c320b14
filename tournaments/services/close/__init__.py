"""The period close, preview and replay: read (``read.py``), plan (the list's rating
system in ``players.rating.systems``), write (``write.py``), tied together in ``run.py``."""

from __future__ import annotations

from tournaments.services.close.run import (
    check_month_over,
    compute_plan,
    list_replay,
    period_close,
    period_preview,
    preview_and_inputs,
    preview_inputs,
    replay_targets,
    system_plan,
)
from tournaments.services.close.start import StartRows, start_rows, starts_kept

__all__ = [
    "StartRows",
    "check_month_over",
    "compute_plan",
    "list_replay",
    "period_close",
    "period_preview",
    "preview_and_inputs",
    "preview_inputs",
    "replay_targets",
    "start_rows",
    "starts_kept",
    "system_plan",
]
