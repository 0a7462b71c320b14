"""Rating lists (their rules), players' current ratings with the K override, K history."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from players import services
from players.errors import DomainError
from players.http.admin import (
    CLUB_FILTER,
    LIST_CLUB_FILTER,
    AuditedAdmin,
    ClubScopedAdmin,
    changed_values,
    report_domain_error,
    role_allows,
)
from players.models import (
    KFactorChange,
    PlayerRating,
    RatingList,
    Role,
)
from players.services import LIST_DISPLAY, LIST_RULES

# What an owner gives when adding a list: the system's preset sets the other rules, which
# the list's page then changes like any list's.
LIST_ADD_FIELDS = (
    "club",
    "slug",
    "name",
    "kind",
    "system",
    "glicko_tau",
    "glicko_rd_start",
    "glicko_rd_min",
    "glicko_rd_max",
)


@admin.register(RatingList)
class RatingListAdmin(AuditedAdmin):
    list_display = ("club", "slug", "name", "kind", "system", "preset", *LIST_RULES)
    list_filter = ("kind", "system", "k_policy", "expected_method", CLUB_FILTER)
    search_fields = ("club__name", "slug", "name")
    list_select_related = ("club",)
    # A club gets its three FIDE lists when it is created; its owner may add more (a
    # Glicko-2 list, a club Elo list). Lists are never deleted: they carry history.
    add_role = Role.OWNER
    change_role = Role.OWNER
    delete_role = None
    field_map = {"tau": "glicko_tau", "rd_start": "glicko_rd_start"} | {
        "rd_min": "glicko_rd_min",
        "rd_max": "glicko_rd_max",
    }

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return LIST_ADD_FIELDS
        return ("club", "slug", "name", "kind", "system", "preset", *LIST_RULES, *LIST_DISPLAY)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else ("club", "slug", "name", "kind", "system", "preset")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def service_save(
        self, request: HttpRequest, obj: RatingList, form: Any, change: bool
    ) -> RatingList:
        if not change:
            data = form.cleaned_data
            return services.rating_list_create(
                club=data["club"],
                by=request.user,
                slug=data["slug"],
                name=data.get("name") or "",
                kind=data["kind"],
                system=data["system"],
                **{name: data[name] for name in LIST_ADD_FIELDS[5:]},
            )
        rules = changed_values(form, (*LIST_RULES, *LIST_DISPLAY))
        if not rules:
            return obj
        return services.rating_list_update(rating_list=obj, by=request.user, **rules)


class KOverrideForm(forms.Form):
    k = forms.IntegerField(
        label="K override",
        min_value=1,
        max_value=100,
        required=False,
        help_text="Blank removes the override: the rules decide K again.",
    )
    note = forms.CharField(
        label="Note (why)", max_length=500, widget=forms.Textarea(attrs={"rows": 3})
    )


@admin.register(PlayerRating)
class PlayerRatingAdmin(ClubScopedAdmin):
    list_display = (
        "player",
        "rating_list",
        "rating",
        "rated_games",
        "k_factor",
        "k_reason",
        "k_override",
        "reached_2400",
        "updated",
    )
    list_filter = ("rating_list__kind", "k_reason", "reached_2400", LIST_CLUB_FILTER)
    search_fields = ("player__name", "player__fide_id")
    list_select_related = ("player", "rating_list__club")
    readonly_fields = [f.name for f in PlayerRating._meta.fields if f.name != "id"]
    club_lookup = "player__club"
    add_role = None
    change_role = None
    delete_role = None
    read_only = True
    actions = ["set_k_override"]

    def has_k_override_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, Role.OFFICER, self._obj_club_id(obj))

    @admin.action(description="Set or clear a K override", permissions=["k_override"])
    def set_k_override(
        self, request: HttpRequest, queryset: QuerySet[PlayerRating]
    ) -> HttpResponse | None:
        rows = list(queryset.select_related("player", "rating_list__club"))
        allowed = [r for r in rows if self.has_k_override_permission(request, r)]
        if len(allowed) != len(rows):
            messages.error(request, "You need the rating officer role in every selected club.")
            return None
        form = KOverrideForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = 0
            for row in allowed:
                try:
                    services.k_override_set(
                        player_rating=row,
                        k=form.cleaned_data["k"],
                        note=form.cleaned_data["note"],
                        by=request.user,
                    )
                except DomainError as error:
                    report_domain_error(request, error, prefix=f"{row.player}: ")
                else:
                    done += 1
            if done:
                messages.success(request, f"K override saved for {done} player(s).")
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Set a K override",
            "opts": self.opts,
            "rows": allowed,
            "form": form,
            "action": "set_k_override",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/players/playerrating/k_override.html", context)


@admin.register(KFactorChange)
class KFactorChangeAdmin(ClubScopedAdmin):
    list_display = (
        "player",
        "rating_list",
        "period",
        "old_k",
        "new_k",
        "new_reason",
        "reason",
        "current",
        "created_by",
    )
    list_filter = ("reason", "new_reason", "current", "rating_list__kind", LIST_CLUB_FILTER)
    search_fields = ("player__name", "note")
    list_select_related = ("player", "rating_list__club", "created_by")
    date_hierarchy = "effective_month"
    readonly_fields = [f.name for f in KFactorChange._meta.fields if f.name != "id"]
    club_lookup = "player__club"
    read_only = True
