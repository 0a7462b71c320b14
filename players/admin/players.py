"""Players: their details, the ratings they bring, their history inlines and chart."""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from players import services
from players.admin.base import (
    CLUB_FILTER,
    AuditedAdmin,
    ReadOnlyInline,
    changed_values,
)
from players.charts import lines_chart
from players.models import (
    RATING_MAX,
    RATING_MIN,
    KFactorChange,
    ListKind,
    Player,
    PlayerRating,
    RatingChange,
    Role,
)
from players.services import PLAYER_FIELDS


class PlayerRatingInline(ReadOnlyInline):
    model = PlayerRating
    fields = (
        "rating_list",
        "rating",
        "rated_games",
        "k_factor",
        "k_reason",
        "k_override",
        "reached_2400",
        "entry_rating",
        "entry_month",
    )
    club_lookup = "club"
    verbose_name_plural = "current ratings"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("rating_list__club")


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    fields = (
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
    )
    verbose_name_plural = "rating history (published rows)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return (
            super()
            .get_queryset(request)
            .filter(current=True)
            .select_related("period__rating_list__club")
            .order_by("period__rating_list__kind", "-period__month")
        )


class KFactorChangeInline(ReadOnlyInline):
    model = KFactorChange
    fields = ("rating_list", "period", "old_k", "new_k", "new_reason", "reason", "note")
    verbose_name_plural = "K factor history"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return tuple(self.fields)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return (
            super()
            .get_queryset(request)
            .filter(current=True)
            .select_related("rating_list__club")
            .order_by("rating_list__kind", "-effective_month", "-id")
        )


# The ratings a new player brings, one row of fields per list; ratings[i] in the service's
# errors is the i-th kind here (every kind is always sent, unrated when left empty).
ENTRY_PARTS = ("rating", "rated_games", "reached_2400")


def _entry_fields() -> dict[str, forms.Field]:
    fields: dict[str, forms.Field] = {}
    for kind in ListKind.values:
        fields[f"{kind}_rating"] = forms.IntegerField(
            label="Rating",
            required=False,
            min_value=RATING_MIN,
            max_value=RATING_MAX,
            help_text="Empty: unrated on this list.",
        )
        fields[f"{kind}_rated_games"] = forms.IntegerField(
            label="Rated games so far", required=False, min_value=0, initial=0
        )
        fields[f"{kind}_reached_2400"] = forms.BooleanField(
            label="Has had a published rating of 2400 or more (K 10 for good)", required=False
        )
    return fields


# A ModelForm with the entry fields declared, so the admin's fieldsets may name them.
PlayerAddForm: type[forms.ModelForm] = type(  # type: ignore[type-arg]
    "PlayerAddForm", (forms.ModelForm,), {**_entry_fields(), "__module__": __name__}
)


class PlayerChangeForm(forms.ModelForm):  # type: ignore[type-arg]
    # A username box, as for memberships: no list of every account on the site.
    member = forms.CharField(
        required=False,
        max_length=150,
        label="Member (username)",
        help_text="The club member this player record belongs to (rating officer or above "
        "may change it); empty: nobody.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        user = self.instance.user if self.instance.user_id else None
        self.fields["member"].initial = user.get_username() if user else ""


@admin.register(Player)
class PlayerAdmin(AuditedAdmin):
    list_display = (
        "name",
        "club",
        "birth_year",
        "sex",
        "federation",
        "title",
        "fide_id",
        "active",
    )
    list_filter = ("active", CLUB_FILTER, "sex", "title")
    search_fields = ("name", "fide_id", "federation")
    list_select_related = ("club",)
    readonly_fields = ("created", "rating_chart")
    fields = ("club", *PLAYER_FIELDS, "member", "created", "rating_chart")
    inlines = [PlayerRatingInline, RatingChangeInline, KFactorChangeInline]
    delete_role = Role.OFFICER

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # A player never moves between clubs: their games and history belong to the club.
        if obj is not None:
            return ("club", "created", "rating_chart")
        return ("created", "rating_chart")

    field_map = {
        "user": "member",
        **{
            f"ratings[{index}].{part}": f"{kind}_{part}"
            for index, kind in enumerate(ListKind.values)
            for part in ENTRY_PARTS
        },
    }

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return tuple(f for f in self.fields if f not in ("member", "created", "rating_chart"))
        return tuple(self.fields)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None:
            return super().get_fieldsets(request, obj)
        # Adding: the ratings the player already holds start their history (the API's
        # player create takes the same); later changes come only from closed periods.
        lists = [
            (
                f"{label} rating the player brings",
                {
                    "fields": [(f"{kind}_rating", f"{kind}_rated_games"), f"{kind}_reached_2400"],
                    "description": "An existing rating, e.g. from FIDE or the national "
                    "federation: the start of the player's history on this list.",
                },
            )
            for kind, label in ListKind.choices
        ]
        return [(None, {"fields": self.get_fields(request, obj)}), *lists]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        kwargs["form"] = PlayerAddForm if obj is None else PlayerChangeForm
        return super().get_form(request, obj, change, **kwargs)

    def service_save(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> Player:
        if change:
            changes = changed_values(form, PLAYER_FIELDS)
            if "member" in form.changed_data:
                changes["user"] = form.cleaned_data["member"] or None
            return services.player_update(player=obj, by=request.user, **changes)
        data = form.cleaned_data
        ratings = [
            {
                "list": kind,
                "rating": data.get(f"{kind}_rating"),
                "rated_games": data.get(f"{kind}_rated_games") or 0,
                "reached_2400": bool(data.get(f"{kind}_reached_2400")),
            }
            for kind in ListKind.values
        ]
        return services.player_create(
            club=data["club"],
            by=request.user,
            ratings=ratings,
            **{f: data[f] for f in PLAYER_FIELDS},
        )

    def service_delete(self, request: HttpRequest, obj: Player) -> None:
        services.player_delete(player=obj, by=request.user)

    @admin.display(description="rating history")
    def rating_chart(self, obj: Player) -> SafeString:
        if obj.pk is None:
            return SafeString("")
        return rating_history_svg(player_rating_series(obj))


# ---------------------------------------------------------------------------------------
# Rating-history chart: players/charts.py's geometry (the public player page's), a line per list

CHART_COLOURS = ("#1f6feb", "#d1242f", "#1a7f37")


def rating_history_svg(series: Mapping[str, Sequence[tuple[datetime.date, int]]]) -> SafeString:
    """An inline SVG line chart of ratings by month, one line per list, with a legend.

    ``series`` maps a label (the list) to (month, rating) points in month order; the
    template escapes the labels.
    """
    chart = lines_chart(
        {
            label: [(f"{month:%Y-%m}", rating) for month, rating in values]
            for label, values in series.items()
        }
    )
    lines = [] if chart is None else chart.lines
    colours = [CHART_COLOURS[number % len(CHART_COLOURS)] for number in range(len(lines))]
    return mark_safe(  # noqa: S308 - rendered by an autoescaping template
        render_to_string(
            "admin/players/player/rating_chart.html",
            {"chart": chart, "lines": list(zip(colours, lines, strict=True))},
        )
    )


def player_rating_series(player: Player) -> dict[str, list[tuple[datetime.date, int]]]:
    """The player's published ratings by month on each list, from current change rows."""
    rows = (
        RatingChange.objects.filter(player=player, current=True, rating_after__isnull=False)
        .select_related("period", "rating_list")
        .order_by("rating_list__kind", "period__month")
    )
    series: dict[str, list[tuple[datetime.date, int]]] = defaultdict(list)
    for row in rows:
        assert row.rating_after is not None
        series[row.rating_list.get_kind_display()].append((row.period.month, row.rating_after))
    return dict(series)
