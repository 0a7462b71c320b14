"""Django admin for tournaments, games, rating periods and the published results.

Scoping and roles as described in players/admin/ (membership roles alone decide). Every
write calls a service (tournaments/services/); period actions (preview, close, reopen,
replay) need the rating officer role. RatingChange and RatingRun are read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from players.admin.base import (
    CLUB_FILTER,
    LIST_CLUB_FILTER,
    ClubScopedAdmin,
    ServiceRefused,
    report_domain_error,
    role_allows,
)
from players.errors import DomainError
from players.models import (
    KChangeReason,
    KReason,
    Player,
    RatingChange,
    RatingPeriod,
    RatingRun,
    Role,
)
from tournaments import services
from tournaments.admin_imports import import_urls
from tournaments.models import Game, Tournament
from tournaments.selectors import periods_close_outlook

GAME_FIELDS = ("date", "round", "white", "black", "result", "rated")


def game_item(data: dict[str, Any]) -> dict[str, Any]:
    """A game form's cleaned data -> the keys the game services take."""
    item = {field: data.get(field) for field in GAME_FIELDS}
    item["rated"] = bool(item["rated"])
    if data.get("rating_list") is not None:
        item["list"] = data["rating_list"]
    if "tournament" in data:
        item["tournament"] = data["tournament"]
    return item


# ---------------------------------------------------------------------------------------
# Tournaments and games


class GameInline(admin.TabularInline):  # type: ignore[type-arg]
    """A tournament's games; saved through games_create_bulk / game_update / game_delete."""

    model = Game
    fields = ("date", "round", "white", "black", "result", "rated", "period")
    readonly_fields = ("period",)
    autocomplete_fields = ("white", "black")
    extra = 3
    ordering = ("round", "date", "id")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("white", "black", "period")

    # The parent tournament's club decides, as for the tournament itself.
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.VIEWER, None if obj is None else obj.club_id)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.ARBITER, None if obj is None else obj.club_id)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.ARBITER, None if obj is None else obj.club_id)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.ARBITER, None if obj is None else obj.club_id)


@admin.register(Tournament)
class TournamentAdmin(ClubScopedAdmin):
    list_display = (
        "name",
        "club",
        "list_kind",
        "start_date",
        "end_date",
        "rounds",
        "city",
        "games_count",
    )
    list_filter = ("rating_list__kind", CLUB_FILTER)
    search_fields = ("name", "city")
    list_select_related = ("club", "rating_list__club")
    date_hierarchy = "end_date"
    fields = ("club", "name", "rating_list", "start_date", "end_date", "rounds", "city")
    inlines = [GameInline]
    # The "Import tournament file" page lives in admin_imports.py (the imports branch).
    change_list_template = "admin/tournaments/tournament/change_list.html"

    def get_urls(self) -> list[Any]:
        return import_urls(self) + super().get_urls()

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset: QuerySet[Any] = super().get_queryset(request)
        annotated: QuerySet[Any] = queryset.annotate(games_total=Count("games"))
        return annotated

    @admin.display(description="list", ordering="rating_list__kind")
    def list_kind(self, obj: Tournament) -> str:
        return obj.rating_list.get_kind_display()

    @admin.display(description="games", ordering="games_total")
    def games_count(self, obj: Tournament) -> int:
        return int(getattr(obj, "games_total", 0))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("club",) if obj is not None else ()

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        # Games are added once the tournament exists ("Save and continue editing"), so a
        # refused game never leaves a half-created tournament behind an "Add" page.
        if obj is None:
            return []
        return list(super().get_inline_instances(request, obj))

    def service_save(
        self, request: HttpRequest, obj: Tournament, form: Any, change: bool
    ) -> Tournament:
        data = form.cleaned_data
        values = {
            f: data[f] for f in ("name", "rating_list", "start_date", "end_date", "rounds", "city")
        }
        if change:
            changed = {f: v for f, v in values.items() if f in form.changed_data}
            if not changed:
                return obj
            return services.tournament_update(tournament=obj, by=request.user, **changed)
        return services.tournament_create(club=data["club"], by=request.user, **values)

    def service_delete(self, request: HttpRequest, obj: Tournament) -> None:
        services.tournament_delete(tournament=obj, by=request.user)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        tournament: Tournament = form.instance
        try:
            self._save_games(request, tournament, formset)
        except DomainError as error:
            raise ServiceRefused(error) from error

    def _save_games(self, request: HttpRequest, tournament: Tournament, formset: Any) -> None:
        new_items: list[dict[str, Any]] = []
        # The admin's change message reads what formset.save() would have recorded.
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        for game_form in formset.forms:
            if not game_form.has_changed() and game_form.instance.pk is None:
                continue
            deleting = formset.can_delete and formset._should_delete_form(game_form)
            data = {**game_form.cleaned_data, "tournament": tournament}
            if game_form.instance.pk is None:
                if not deleting:
                    new_items.append(game_item(data))
            elif deleting:
                services.game_delete(game=game_form.instance, by=request.user)
                formset.deleted_objects.append(game_form.instance)
            elif game_form.has_changed():
                game = Game.objects.select_related("club", "rating_list").get(
                    pk=game_form.instance.pk
                )
                changes = {
                    key: value
                    for key, value in game_item(data).items()
                    if key in game_form.changed_data
                }
                services.game_update(game=game, by=request.user, **changes)
                formset.changed_objects.append((game, game_form.changed_data))
        if new_items:
            formset.new_objects = services.games_create_bulk(
                club=tournament.club, by=request.user, games=new_items
            )


class GameForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Game
        fields = ("rating_list", "tournament", "date", "round", "white", "black", "result", "rated")


@admin.register(Game)
class GameAdmin(ClubScopedAdmin):
    form = GameForm
    list_display = (
        "date",
        "white",
        "black",
        "result",
        "rated",
        "round",
        "tournament",
        "period",
        "club",
    )
    list_filter = ("result", "rated", "rating_list__kind", "period__status", CLUB_FILTER)
    search_fields = ("white__name", "black__name", "tournament__name")
    list_select_related = ("white", "black", "tournament", "period__rating_list__club", "club")
    autocomplete_fields = ("white", "black", "tournament")
    date_hierarchy = "date"
    field_map = {"list": "rating_list"}

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("club", "period") if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fields = tuple(GameForm.Meta.fields)
        return ("club", "period", *fields) if obj is not None else fields

    def service_save(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> Game:
        item = game_item(form.cleaned_data)
        if change:
            changes = {
                key: value
                for key, value in item.items()
                if key in form.changed_data
                or (key == "list" and "rating_list" in form.changed_data)
            }
            game = Game.objects.select_related("club", "rating_list").get(pk=obj.pk)
            return services.game_update(game=game, by=request.user, **changes)
        club = form.cleaned_data["rating_list"].club
        return services.game_create(club=club, by=request.user, **item)

    def service_delete(self, request: HttpRequest, obj: Game) -> None:
        services.game_delete(game=obj, by=request.user)


# ---------------------------------------------------------------------------------------
# Periods and their actions


@admin.register(RatingPeriod)
class RatingPeriodAdmin(ClubScopedAdmin):
    list_display = ("label", "rating_list", "status", "games_count", "closed_by", "closed_at")
    list_filter = ("status", "rating_list__kind", LIST_CLUB_FILTER)
    search_fields = ("rating_list__club__name",)
    list_select_related = ("rating_list__club", "closed_by")
    date_hierarchy = "month"
    ordering = ("rating_list", "-month")
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
            "rows": preview_rows(preview),
            "k_changes": preview_k_changes(preview),
            "can_close": period.status != RatingPeriod.Status.CLOSED,
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
        if request.POST.get("post") != "yes":
            return self._confirm_close(request, periods)
        self._each_period(request, periods, services.period_close, "closed")
        return None

    def _confirm_close(self, request: HttpRequest, periods: list[RatingPeriod]) -> HttpResponse:
        items = periods_close_outlook(periods=periods)
        context = {
            **self.admin_site.each_context(request),
            "title": "Close the period?" if len(items) == 1 else "Close the periods?",
            "opts": self.opts,
            "items": items,
            "can_close": any(not item.refusal for item in items),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(
            request, "admin/tournaments/ratingperiod/close_confirmation.html", context
        )

    @admin.action(description="Reopen the period (for corrections)", permissions=["period_action"])
    def reopen_period(self, request: HttpRequest, queryset: QuerySet[RatingPeriod]) -> None:
        periods = self._periods(queryset)
        if self._allowed(request, periods):
            self._each_period(request, periods, services.period_reopen, "reopened")

    def _each_period(
        self,
        request: HttpRequest,
        periods: list[RatingPeriod],
        service: Callable[..., Any],
        done: str,
    ) -> None:
        """Run ``service`` on each period in turn (list and month order); a refusal is an
        error message for that period and the others go on."""
        for period in periods:
            try:
                run = service(period=period, by=request.user)
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{period}: ")
            else:
                messages.success(request, f"{period}: {done}. {run_summary(run)}")

    @admin.action(
        description="Replay the list from its reopened periods", permissions=["period_action"]
    )
    def replay_list(self, request: HttpRequest, queryset: QuerySet[RatingPeriod]) -> None:
        periods = self._periods(queryset)
        if not self._allowed(request, periods):
            return
        lists = {p.rating_list_id: p.rating_list for p in periods}
        for rating_list in lists.values():
            try:
                run = services.list_replay(rating_list=rating_list, by=request.user)
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{rating_list}: ")
            else:
                messages.success(request, f"{rating_list}: replayed. {run_summary(run)}")


def run_summary(run: Any) -> str:
    if isinstance(run, RatingRun):
        periods = ", ".join(run.periods) or "no periods"
        return f"{run.players_changed} player(s) changed ({periods})."
    return ""


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


def preview_rows(plan: services.PeriodPlan) -> list[PreviewRow]:
    """The plan's changes, with player names (one query) and labels, best rating first."""
    names = dict(
        Player.objects.filter(pk__in=[c.player_id for c in plan.changes]).values_list("pk", "name")
    )
    k_labels = dict(KReason.choices)
    events = dict(RatingChange.Event.choices)
    rows = [
        PreviewRow(
            player=names.get(c.player_id, str(c.player_id)),
            rating_before=c.rating_before,
            rating_after=c.rating_after,
            change=c.change,
            change_unrounded=_number(c.change_unrounded),
            k_factor=c.k_factor,
            k_reason=k_labels.get(c.k_reason, c.k_reason),
            games=c.games,
            score=_number(c.score, 1),
            expected=_number(c.expected),
            event=events.get(c.event, c.event),
            k_next=f"{c.k_next.value} ({k_labels.get(c.k_next.reason, c.k_next.reason)})",
        )
        for c in plan.changes
    ]
    rows.sort(key=lambda r: (r.rating_after is None, -(r.rating_after or 0), r.player))
    return rows


def preview_k_changes(plan: services.PeriodPlan) -> list[dict[str, Any]]:
    names = dict(
        Player.objects.filter(pk__in=[k.player_id for k in plan.k_changes]).values_list(
            "pk", "name"
        )
    )
    reasons = dict(KChangeReason.choices)
    return [
        {
            "player": names.get(k.player_id, str(k.player_id)),
            "old": "" if k.old is None else k.old.value,
            "new": k.new.value,
            "reason": reasons.get(k.reason, k.reason),
        }
        for k in plan.k_changes
    ]


# ---------------------------------------------------------------------------------------
# Published results and runs (read-only)


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
