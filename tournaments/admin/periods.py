"""Rating periods and their actions: preview, close (after a confirmation), reopen, replay.

Close, reopen and replay start jobs and go to the job's page (players/admin/jobs.py),
which follows the job and shows its result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Count, IntegerField, QuerySet, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from players.admin.jobs import job_page_url
from players.errors import DomainError
from players.http.admin import (
    LIST_CLUB_FILTER,
    ClubScopedAdmin,
    report_domain_error,
    role_allows,
)
from players.jobs import job_start
from players.models import (
    Club,
    Job,
    KChangeReason,
    KReason,
    RatingChange,
    RatingPeriod,
    Role,
    translated_choices,
)
from players.names import display_name
from players.selectors import player_names
from tournaments import services
from tournaments.selectors import periods_close_outlook


@admin.register(RatingPeriod)
class RatingPeriodAdmin(ClubScopedAdmin):
    list_display = ("label", "rating_list", "status", "games_count", "closed_by", "closed_at")
    list_filter = ("status", "rating_list__kind", LIST_CLUB_FILTER)
    search_fields = ("rating_list__club__name",)
    list_select_related = ("rating_list__club", "closed_by")
    date_hierarchy = "month"
    ordering = ("rating_list", "-month")
    change_form_template = "admin/tournaments/ratingperiod/change_form.html"
    readonly_fields = ("rating_list", "month", "status", "closed_by", "closed_at")
    club_lookup = "rating_list__club"
    # Periods appear when games are entered; their state changes only through the actions.
    add_role = None
    change_role = None
    delete_role = None
    read_only = True
    actions = ["preview_period", "close_period", "reopen_period", "replay_list"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset: QuerySet[Any] = super().get_queryset(request)
        annotated: QuerySet[Any] = queryset.annotate(games_total=Count("games"))
        return annotated

    def get_ordering(self, request: HttpRequest) -> list[Any]:
        # The periods an officer acts on (open, then reopened) before the history. An
        # expression: ``ordering`` itself may name model fields only (admin.E033).
        status_rank = Case(
            When(status=RatingPeriod.Status.OPEN, then=Value(0)),
            When(status=RatingPeriod.Status.NEEDS_REPLAY, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )
        return [status_rank.asc(), "-month", "rating_list"]

    def get_urls(self) -> list[URLPattern]:
        preview = path(
            "<path:object_id>/preview/",
            self.admin_site.admin_view(self.preview_view),
            name="players_ratingperiod_preview",
        )
        return [preview, *super().get_urls()]

    def preview_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The preview as a page of its own (GET: it writes nothing), for links such as
        the member home's "due to close"."""
        period = self.get_object(request, object_id)
        if not self.has_period_action_permission(request, period):
            raise PermissionDenied
        response = self.preview_period(request, self.get_queryset(request).filter(pk=period.pk))
        if response is None:
            return HttpResponseRedirect(reverse("admin:tournaments_ratingperiod_changelist"))
        return response

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        period = self.get_object(request, object_id)
        allowed = self.has_period_action_permission(request, period)
        status = RatingPeriod.Status
        # The actions this period's state admits, each posted to the list's action (the
        # same checks and the same confirmation as choosing it there).
        buttons = [
            ("preview_period", "Preview the close", period.status != status.CLOSED),
            ("close_period", "Close the period", period.status == status.OPEN),
            ("reopen_period", "Reopen the period", period.status == status.CLOSED),
            ("replay_list", "Replay the list", period.status == status.NEEDS_REPLAY),
        ]
        context = {
            **(extra_context or {}),
            "period_actions": [(name, label) for name, label, fits in buttons if fits]
            if allowed
            else [],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return super().change_view(request, object_id, form_url, context)

    @admin.display(description="period", ordering="month")
    def label(self, obj: RatingPeriod) -> str:
        return obj.label

    @admin.display(description="games", ordering="games_total")
    def games_count(self, obj: RatingPeriod) -> int:
        return int(getattr(obj, "games_total", 0))

    def has_period_action_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.OFFICER, self._obj_club_id(obj))

    def _allowed(self, request: HttpRequest, periods: Sequence[RatingPeriod]) -> bool:
        if all(self.has_period_action_permission(request, p) for p in periods):
            return True
        messages.error(request, "This needs the rating officer role in the period's club.")
        return False

    def _periods(self, queryset: QuerySet[RatingPeriod]) -> list[RatingPeriod]:
        return list(queryset.select_related("rating_list__club").order_by("rating_list", "month"))

    @admin.action(description="Preview the close (writes nothing)", permissions=["period_action"])
    def preview_period(
        self, request: HttpRequest, queryset: QuerySet[RatingPeriod]
    ) -> HttpResponse | None:
        periods = self._periods(queryset)
        if len(periods) != 1:
            messages.error(request, "Select exactly one period to preview.")
            return None
        if not self._allowed(request, periods):
            return None
        period = periods[0]
        try:
            preview = services.period_preview(period=period, by=request.user)
        except DomainError as error:
            report_domain_error(request, error, prefix=f"{period}: ")
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": f"Preview of {period}",
            "opts": self.opts,
            "period": period,
            "preview": preview,
            "rows": preview_rows(preview, name_order=period.rating_list.name_order),
            "k_changes": preview_k_changes(preview),
            "can_close": period.status == RatingPeriod.Status.OPEN,
            "not_over": not period.month_over(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tournaments/ratingperiod/preview.html", context)

    @admin.action(description="Close the period (publish the list)", permissions=["period_action"])
    def close_period(
        self, request: HttpRequest, queryset: QuerySet[RatingPeriod]
    ) -> HttpResponse | None:
        periods = self._periods(queryset)
        if not self._allowed(request, periods):
            return None
        if not periods:
            # Selected ids outside the user's clubs fall out of the scoped queryset.
            messages.error(request, "None of the selected periods is in your clubs.")
            return None
        # Publishing is undone only by a reopen and a replay: ask first, as Django's own
        # delete action does. The confirmation (or the preview) posts back post=yes.
        early = request.POST.get("early") == "yes"
        if request.POST.get("post") != "yes":
            return self._confirm_close(request, periods)
        if not early and any(not p.month_over() for p in periods):
            # The month is still running: only a ticked box says the early close is meant.
            return self._confirm_close(request, periods, early_missing=True)
        return self._start_period_jobs(request, periods, "close", {"early": early})

    def _confirm_close(
        self, request: HttpRequest, periods: list[RatingPeriod], *, early_missing: bool = False
    ) -> HttpResponse:
        items = periods_close_outlook(periods=periods)
        context = {
            **self.admin_site.each_context(request),
            "title": "Close the period?" if len(items) == 1 else "Close the periods?",
            "opts": self.opts,
            "items": items,
            "can_close": any(not item.refusal for item in items),
            "not_over": [item for item in items if not item.refusal and item.not_over],
            "early_missing": early_missing,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(
            request, "admin/tournaments/ratingperiod/close_confirmation.html", context
        )

    @admin.action(description="Reopen the period (for corrections)", permissions=["period_action"])
    def reopen_period(
        self, request: HttpRequest, queryset: QuerySet[RatingPeriod]
    ) -> HttpResponse | None:
        periods = self._periods(queryset)
        if not self._allowed(request, periods) or not periods:
            return None
        return self._start_period_jobs(request, periods, "reopen")

    def _start_period_jobs(
        self,
        request: HttpRequest,
        periods: list[RatingPeriod],
        action: str,
        extra: dict[str, Any] | None = None,
    ) -> HttpResponse | None:
        """One job per club: ``action`` ("close" or "reopen") on its one period, or on its
        several periods in order (the "periods" job); then the job's page."""
        by_club: dict[Club, list[RatingPeriod]] = {}
        for period in periods:
            by_club.setdefault(period.rating_list.club, []).append(period)
        jobs = []
        for club, chosen in by_club.items():
            params: dict[str, Any]
            if len(chosen) == 1:
                kind, params = action, {"period": chosen[0].pk}
            else:
                kind, params = "periods", {"action": action, "periods": [p.pk for p in chosen]}
            params.update(extra or {})
            try:
                jobs.append(job_start(kind=kind, club=club, by=request.user, params=params))
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{club}: ")
        return self._follow(request, jobs)

    def _follow(self, request: HttpRequest, jobs: list[Job]) -> HttpResponse | None:
        """The job's page for one job; for several, a message per job and the job list."""
        if len(jobs) == 1:
            return HttpResponseRedirect(job_page_url(jobs[0]))
        for job in jobs:
            messages.info(
                request,
                format_html(
                    'Started <a href="{}">{} in {}</a>.', job_page_url(job), job.kind, job.club
                ),
            )
        return HttpResponseRedirect(reverse("admin:players_job_changelist")) if jobs else None

    @admin.action(
        description="Replay the list from its reopened periods", permissions=["period_action"]
    )
    def replay_list(
        self, request: HttpRequest, queryset: QuerySet[RatingPeriod]
    ) -> HttpResponse | None:
        periods = self._periods(queryset)
        if not self._allowed(request, periods):
            return None
        lists = {p.rating_list_id: p.rating_list for p in periods}
        jobs = []
        for rating_list in lists.values():
            try:
                job = job_start(
                    kind="replay",
                    club=rating_list.club,
                    by=request.user,
                    params={"list": rating_list.pk},
                )
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{rating_list}: ")
            else:
                jobs.append(job)
        return self._follow(request, jobs)


@dataclass(frozen=True)
class PreviewRow:
    """One line of the preview table: what the close would publish for a player."""

    player: str
    rating_before: int | None
    rating_after: int | None
    change: int | None
    change_unrounded: str
    k_factor: int | None
    k_reason: str
    games: int
    score: str
    expected: str
    event: str
    k_next: str


def _number(value: Any, places: int = 2) -> str:
    if value is None:
        return ""
    return f"{float(value):.{places}f}"


def preview_rows(plan: services.PeriodPlan, *, name_order: str = "") -> list[PreviewRow]:
    """The plan's changes, with player names (one query, in the list's ``name_order``) and
    labels, best rating first."""
    names = player_names(ids=[c.player_id for c in plan.changes])
    k_labels = dict(translated_choices(KReason))
    events = dict(translated_choices(RatingChange.Event))
    rows = [
        PreviewRow(
            player=display_name(names[c.player_id], name_order)
            if name_order and c.player_id in names
            else names.get(c.player_id, str(c.player_id)),
            rating_before=c.rating_before,
            rating_after=c.rating_after,
            change=c.change,
            change_unrounded=_number(c.change_unrounded),
            k_factor=c.k_factor,
            k_reason=str(k_labels.get(c.k_reason, c.k_reason)),
            games=c.games,
            score=_number(c.score, 1),
            expected=_number(c.expected),
            event=str(events.get(c.event, c.event)),
            k_next=(
                ""
                if c.k_next is None
                else f"{c.k_next.value} ({k_labels.get(c.k_next.reason, c.k_next.reason)})"
            ),
        )
        for c in plan.changes
    ]
    rows.sort(key=lambda r: (r.rating_after is None, -(r.rating_after or 0), r.player))
    return rows


def preview_k_changes(plan: services.PeriodPlan) -> list[dict[str, Any]]:
    names = player_names(ids=[k.player_id for k in plan.k_changes])
    reasons = dict(translated_choices(KChangeReason))
    return [
        {
            "player": names.get(k.player_id, str(k.player_id)),
            "old": "" if k.old is None else k.old.value,
            "new": k.new.value,
            "reason": reasons.get(k.reason, k.reason),
        }
        for k in plan.k_changes
    ]
