"""What the closes published and recorded: rating changes and runs, read-only."""

from __future__ import annotations

from django.contrib import admin

from players.http.admin import (
    LIST_CLUB_FILTER,
    ClubScopedAdmin,
)
from players.models import (
    RatingChange,
    RatingRun,
)


@admin.register(RatingChange)
class RatingChangeAdmin(ClubScopedAdmin):
    list_display = (
        "player",
        "period",
        "event",
        "rating_before",
        "rating_after",
        "change",
        "k_factor",
        "k_reason",
        "games",
        "score",
        "expected",
        "current",
    )
    list_filter = ("event", "current", "k_reason", "rating_list__kind", LIST_CLUB_FILTER)
    search_fields = ("player__name",)
    list_select_related = ("player", "period__rating_list__club")
    date_hierarchy = "period__month"
    readonly_fields = [f.name for f in RatingChange._meta.fields if f.name != "id"]
    club_lookup = "rating_list__club"
    read_only = True


@admin.register(RatingRun)
class RatingRunAdmin(ClubScopedAdmin):
    list_display = ("kind", "rating_list", "period_labels", "players_changed", "by", "started")
    list_filter = ("kind", "rating_list__kind", LIST_CLUB_FILTER)
    search_fields = ("report",)
    list_select_related = ("rating_list__club", "by")
    date_hierarchy = "started"
    readonly_fields = [f.name for f in RatingRun._meta.fields if f.name != "id"]
    club_lookup = "rating_list__club"
    read_only = True

    @admin.display(description="periods")
    def period_labels(self, obj: RatingRun) -> str:
        return ", ".join(obj.periods)
