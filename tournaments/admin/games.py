"""Tournaments (their games inline, the import page's URLs) and games."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from players.errors import DomainError
from players.http.admin import (
    CLUB_FILTER,
    AuditedAdmin,
    ServiceRefused,
    role_allows,
)
from players.models import (
    Role,
)
from tournaments import services
from tournaments.admin.fide_list import fide_list_urls
from tournaments.admin.imports import import_urls
from tournaments.admin.merge import merge_urls
from tournaments.models import Game, Tournament, TournamentEntry
from tournaments.selectors import game_get

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


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]
    """The tournament's entry list (the forecasts' field); saved whole through
    tournament_entries_set, the officer's."""

    model = TournamentEntry
    fields = ("player",)
    autocomplete_fields = ("player",)
    extra = 3
    verbose_name = "entered player"
    verbose_name_plural = "entry list (the forecasts' field)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("player")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.VIEWER, None if obj is None else obj.club_id)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.OFFICER, None if obj is None else obj.club_id)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.OFFICER, None if obj is None else obj.club_id)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.OFFICER, None if obj is None else obj.club_id)


def _entered_ids(formset: Any) -> list[int] | None:
    """The entry list the inline's forms describe (None: unchanged)."""
    if not formset.has_changed():
        return None
    ids: list[int] = []
    for entry_form in formset.forms:
        player = entry_form.cleaned_data.get("player")
        if player is None or (formset.can_delete and formset._should_delete_form(entry_form)):
            continue
        ids.append(player.pk)
    return ids


@admin.register(Tournament)
class TournamentAdmin(AuditedAdmin):
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
    inlines = [EntryInline, GameInline]
    field_map = {"list": "rating_list"}
    # The "Import tournament file" page lives in imports.py (the imports branch).
    change_list_template = "admin/tournaments/tournament/change_list.html"

    def get_urls(self) -> list[Any]:
        return import_urls(self) + merge_urls(self) + fide_list_urls(self) + super().get_urls()

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
            if formset.model is TournamentEntry:
                self._save_entries(request, tournament, formset)
                return
            self._save_games(request, tournament, formset)
        except DomainError as error:
            raise ServiceRefused(error) from error

    def _save_entries(self, request: HttpRequest, tournament: Tournament, formset: Any) -> None:
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        ids = _entered_ids(formset)
        if ids is not None:
            services.tournament_entries_set(tournament=tournament, by=request.user, player_ids=ids)

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
                game = game_get(game_id=game_form.instance.pk)
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
class GameAdmin(AuditedAdmin):
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
            game = game_get(game_id=obj.pk)
            return services.game_update(game=game, by=request.user, **changes)
        club = form.cleaned_data["rating_list"].club
        return services.game_create(club=club, by=request.user, **item)

    def service_delete(self, request: HttpRequest, obj: Game) -> None:
        services.game_delete(game=obj, by=request.user)
