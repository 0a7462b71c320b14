"""Services for tournaments, games and rating periods: the only code that writes them."""

from __future__ import annotations

from players.rating.period import PeriodPlan
from tournaments.services.close import (
    check_month_over,
    list_replay,
    period_close,
    period_preview,
)
from tournaments.services.entries import tournament_entries_add, tournament_entries_set
from tournaments.services.games import (
    game_create,
    game_delete,
    game_update,
    games_add,
    games_create_bulk,
)
from tournaments.services.merge import MergeReport, player_merge
from tournaments.services.periods import period_open, period_reopen
from tournaments.services.tournaments import (
    tournament_add,
    tournament_create,
    tournament_delete,
    tournament_update,
)

__all__ = [
    "MergeReport",
    "PeriodPlan",
    "check_month_over",
    "game_create",
    "game_delete",
    "game_update",
    "games_add",
    "games_create_bulk",
    "list_replay",
    "period_close",
    "period_open",
    "period_preview",
    "period_reopen",
    "player_merge",
    "tournament_add",
    "tournament_create",
    "tournament_delete",
    "tournament_entries_add",
    "tournament_entries_set",
    "tournament_update",
]
