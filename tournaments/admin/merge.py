"""The admin's "Duplicate players" page: likely pairs with reasons and score, and merging;
and the merges done, read-only ("Player merges").

Reached from the players list. A club where the user is a rating officer (or above) is
chosen; each pair has "Preview merge" (a dry run showing what would move) and, on the
preview, "Merge". The service checks the role again and refuses what cannot be right.
It lives in this app because a merge moves games.

Each merge is one PlayerMerge record (who, when, through what, the kept player, the
duplicate's id and name, what moved); its admin shows them to the club's members like the
other records (a viewer sees them; another club's answer 404), and nobody edits them.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from players.errors import DomainError
from players.http.admin import (
    CLUB_FILTER,
    ClubScopedAdmin,
    club_ids_with,
    is_superuser,
    report_domain_error,
    role_allows,
)
from players.models import Club, Player, PlayerMerge, Role
from players.selectors import club_players, clubs_by_name, duplicate_pairs
from tournaments.services import MergeReport, player_merge

#: Pairs shown on one page (best first); the API pages through all of them.
SHOWN_PAIRS = 200


class MergeForm(forms.Form):
    kept = forms.IntegerField(widget=forms.HiddenInput)
    duplicate = forms.IntegerField(widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)


def _clubs(request: HttpRequest) -> Any:
    clubs = clubs_by_name()
    if not is_superuser(request):
        clubs = clubs.filter(pk__in=club_ids_with(request, Role.OFFICER))
    return clubs


def merge_urls(model_admin: admin.ModelAdmin[Any]) -> list[URLPattern]:
    """The URL to add to an admin's get_urls() (the tournament admin's, like the import)."""

    def view(request: HttpRequest) -> HttpResponse:
        return duplicates_view(model_admin, request)

    return [path("duplicates/", model_admin.admin_site.admin_view(view), name="player_duplicates")]


def duplicates_view(model_admin: admin.ModelAdmin[Any], request: HttpRequest) -> HttpResponse:
    if not role_allows(request, Role.OFFICER, None):
        raise PermissionDenied
    clubs = _clubs(request)
    club = clubs.filter(pk=request.GET.get("club") or 0).first() or (
        clubs.first() if clubs.count() == 1 else None
    )
    preview: MergeReport | None = None
    if request.method == "POST" and club is not None:
        form = MergeForm(request.POST)
        if form.is_valid():
            preview = _merge(request, club, form.cleaned_data)
            if preview is not None and not preview.dry_run:
                return HttpResponseRedirect(f"{request.path}?club={club.pk}")
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Duplicate players",
        # The players' breadcrumbs: the page is about players, whichever admin serves it.
        "opts": Player._meta,
        "clubs": clubs,
        "club": club,
        "pairs": duplicate_pairs(club=club)[:SHOWN_PAIRS] if club is not None else [],
        "preview": preview,
        "player_url": reverse("admin:players_player_changelist"),
    }
    return TemplateResponse(request, "admin/players/player/duplicates.html", context)


def _merge(request: HttpRequest, club: Club, data: dict[str, Any]) -> MergeReport | None:
    players = club_players(club=club).in_bulk([data["kept"], data["duplicate"]])
    if len(players) != 2:
        messages.error(request, "One of the players is not in this club (any more).")
        return None
    try:
        report = player_merge(
            kept=players[data["kept"]],
            duplicate=players[data["duplicate"]],
            by=request.user,
            dry_run=not data["confirm"],
        )
    except DomainError as error:
        report_domain_error(request, error, prefix="Not merged: ")
        return None
    if not report.dry_run:
        replay = "; ".join(
            f"{kind}: {', '.join(months)}" for kind, months in report.needs_replay.items()
        )
        messages.success(
            request,
            f"Merged {report.duplicate_name} into {report.kept_name}: {report.games_moved} games "
            f"moved." + (f" Needing a replay: {replay}." if replay else ""),
        )
    return report


# The summary's counts, in the order the merge report gives them, with their labels.
_MOVED = (
    ("games_moved", "games"),
    ("byes_moved", "byes"),
    ("history_moved", "published rows"),
    ("k_changes_moved", "K changes"),
)


@admin.register(PlayerMerge)
class PlayerMergeAdmin(ClubScopedAdmin):
    list_display = ("at", "duplicate", "kept", "moved", "by", "via", "club")
    list_filter = ("via", CLUB_FILTER)
    search_fields = ("duplicate_name", "kept__name")
    list_select_related = ("club", "kept", "by")
    date_hierarchy = "at"
    fields = (
        *("club", "at", "by", "via", "kept", "duplicate"),
        *("moved", "entries_taken", "details_taken", "needs_replay"),
    )
    readonly_fields = fields
    read_only = True

    @admin.display(description="duplicate (deleted)", ordering="duplicate_name")
    def duplicate(self, merge: PlayerMerge) -> str:
        return f"{merge.duplicate_name} (#{merge.duplicate_id})"

    @admin.display(description="moved")
    def moved(self, merge: PlayerMerge) -> str:
        return ", ".join(f"{merge.summary.get(key, 0)} {label}" for key, label in _MOVED)

    @admin.display(description="entered ratings taken (lists)")
    def entries_taken(self, merge: PlayerMerge) -> str:
        return ", ".join(merge.summary.get("entries_taken", [])) or "-"

    @admin.display(description="details taken")
    def details_taken(self, merge: PlayerMerge) -> str:
        return ", ".join(merge.summary.get("details_taken", [])) or "-"

    @admin.display(description="periods needing a replay")
    def needs_replay(self, merge: PlayerMerge) -> str:
        replay = merge.summary.get("needs_replay", {})
        return "; ".join(f"{kind}: {', '.join(months)}" for kind, months in replay.items()) or "-"
