"""Claims of player records: a club's officers (and owners) approve or decline them here,
as on their home page and through the API; every decision goes through claim_decide."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from players import services
from players.errors import DomainError
from players.http.admin import CLUB_FILTER, AuditedAdmin, report_domain_error
from players.models import PlayerClaim, Role


@admin.register(PlayerClaim)
class PlayerClaimAdmin(AuditedAdmin):
    """Shown read-only to the club's officers; decided by the two actions."""

    list_display = ("player", "user", "club", "status", "created", "decided", "decided_by")
    list_filter = ("status", CLUB_FILTER)
    search_fields = ("player__name", "user__username", "club__name")
    list_select_related = ("player", "user", "club", "decided_by")
    # A member's claims are theirs and their club officers' only: not the arbiters' or
    # viewers' (the API and the home page scope them the same way).
    view_role = Role.OFFICER
    add_role = None
    change_role = None
    delete_role = None
    actions = ["approve", "decline"]
    fields = readonly_fields = (
        "club",
        "player",
        "user",
        "status",
        "created",
        "decided",
        "decided_by",
        "note",
    )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Decided by the actions, never edited: the decision links the record.
        return False

    @admin.action(description="Approve the selected claims (link each record to its member)")
    def approve(self, request: HttpRequest, queryset: QuerySet[PlayerClaim]) -> None:
        self._decide(request, queryset, approve=True)

    @admin.action(description="Decline the selected claims")
    def decline(self, request: HttpRequest, queryset: QuerySet[PlayerClaim]) -> None:
        self._decide(request, queryset, approve=False)

    def _decide(
        self, request: HttpRequest, queryset: QuerySet[PlayerClaim], *, approve: bool
    ) -> None:
        done = 0
        for claim in queryset.select_related("club", "player", "user").order_by("created", "id"):
            try:
                services.claim_decide(claim=claim, by=request.user, approve=approve)
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{claim.player} ({claim.user}): ")
            else:
                done += 1
        verb = "approved" if approve else "declined"
        messages.success(request, f"{done} claim(s) {verb}.")
