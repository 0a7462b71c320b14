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
from players.charts import lines_chart
from players.errors import DomainError, ValidationFailed
from players.http.admin import (
    CLUB_FILTER,
    AuditedAdmin,
    ReadOnlyInline,
    changed_values,
)
from players.models import (
    RATING_MAX,
    RATING_MIN,
    Club,
    KFactorChange,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    Role,
    list_kind_values,
)
from players.rating.systems import SYSTEMS
from players.rating.systems.explain import StateField
from players.selectors import every_list, published_rows
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
            # Oldest first, as on the player page and in the API: the last row per list is
            # the K in force.
            .order_by("rating_list__kind", "effective_month", "id")
        )


# The ratings a new player brings: a row of fields per list slug of the clubs the user may
# add players to (a slug shared by several clubs, e.g. "standard", is one row). Lists whose
# system has a K take a rating, rated games and the 2400 mark; a system that keeps a state
# beside the rating (Glicko-2: RD, volatility) takes its declared fields. Only the chosen
# club's lists are sent to the service.
K_PARTS = ("rating", "rated_games", "reached_2400")


def _entry_lists(lists: Sequence[RatingList]) -> dict[str, list[RatingList]]:
    """The lists by slug: the three FIDE kinds first, then the rest by slug."""
    order = {kind: number for number, kind in enumerate(list_kind_values())}
    by_slug: dict[str, list[RatingList]] = defaultdict(list)
    for rating_list in sorted(lists, key=lambda rl: (order.get(rl.slug, len(order)), rl.slug)):
        by_slug[rating_list.slug].append(rating_list)
    return dict(by_slug)


def _parts(lists: Sequence[RatingList]) -> tuple[str, ...]:
    parts = ["rating"]
    for rating_list in lists:
        system = rating_list.rating_system
        parts.extend(K_PARTS if system.uses_k else ())
        parts.extend(system.state_names)
    return tuple(dict.fromkeys(parts))


def _state_help(field: StateField, lists: Sequence[RatingList]) -> str:
    """Where a state field starts when left empty: the system's start on each list."""
    starts = {
        f"{start[field.name]:g}"
        for rating_list in lists
        if field.name
        in (start := rating_list.rating_system.entered_state({}, rating_list.settings()))
    }
    known = f" ({', '.join(sorted(starts))})" if starts else ""
    return f"Empty: the list's starting {field.label}{known}."


def _entry_fields(slug: str, lists: Sequence[RatingList]) -> dict[str, forms.Field]:
    starts = {rl.rating_system.start_rating for rl in lists}
    rated = ", ".join(str(start) for start in sorted(s for s in starts if s is not None))
    rating_help = (
        "Empty: unrated on this list."
        if not rated
        else f"Empty: {rated} (the rating system's start)."
        if None not in starts
        else f"Empty: unrated on this list ({rated} where the system rates everyone)."
    )
    made: dict[str, forms.Field] = {
        "rating": forms.IntegerField(
            label="Rating",
            required=False,
            min_value=RATING_MIN,
            max_value=RATING_MAX,
            help_text=rating_help,
        ),
        "rated_games": forms.IntegerField(
            label="Rated games so far", required=False, min_value=0, initial=0
        ),
        "reached_2400": forms.BooleanField(
            label="Has had a published rating of 2400 or more (K 10 for good)", required=False
        ),
    }
    # Bounds are the service's (they depend on the list): its message names the field.
    for rating_list in lists:
        for field in rating_list.rating_system.state_fields:
            made.setdefault(
                field.name,
                forms.FloatField(
                    label=field.label[:1].upper() + field.label[1:],
                    required=False,
                    help_text=_state_help(field, lists),
                ),
            )
    return {f"{slug}_{part}": made[part] for part in _parts(lists)}


def player_add_form(lists: Sequence[RatingList]) -> type[forms.ModelForm]:  # type: ignore[type-arg]
    """A ModelForm with the entry fields of ``lists`` declared, so fieldsets may name them."""
    fields: dict[str, Any] = {}
    for slug, same_slug in _entry_lists(lists).items():
        fields.update(_entry_fields(slug, same_slug))
    return type("PlayerAddForm", (forms.ModelForm,), {**fields, "__module__": __name__})


def _entry_field_names(lists: Sequence[RatingList]) -> set[str]:
    return {
        f"{slug}_{part}"
        for slug, same_slug in _entry_lists(lists).items()
        for part in _parts(same_slug)
    }


def _entry(slug: str, rating_list: RatingList, data: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"list": slug, "rating": data.get(f"{slug}_rating")}
    # A system's state fields go to the service whenever given: the list's system refuses
    # what it does not keep.
    entry.update(
        {
            part: data[f"{slug}_{part}"]
            for part in {n for s in SYSTEMS.values() for n in s.state_names}
            if data.get(f"{slug}_{part}") is not None
        }
    )
    if rating_list.rating_system.uses_k:
        entry.update(
            rated_games=data.get(f"{slug}_rated_games") or 0,
            reached_2400=bool(data.get(f"{slug}_reached_2400")),
        )
    return entry


def _renamed(error: DomainError, slugs: Sequence[str]) -> DomainError:
    """The service's ``ratings[i].part`` fields renamed to the form's ``slug_part``."""
    fields: dict[str, list[str]] = {}
    for name, field_messages in error.fields.items():
        index, dot, part = name.removeprefix("ratings[").partition("].")
        if dot and index.isdigit() and int(index) < len(slugs):
            name = f"{slugs[int(index)]}_{part}"
        fields.setdefault(name, []).extend(field_messages)
    return type(error)(error.message, fields=fields)


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

    # The service's field names that the change form spells differently (the add form
    # renames its rating rows itself: _renamed).
    field_map = {"user": "member"}

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return tuple(f for f in self.fields if f not in ("member", "created", "rating_chart"))
        return tuple(self.fields)

    def entry_lists(self, request: HttpRequest) -> list[RatingList]:
        """The lists of the clubs where the user may add players (cached on the request)."""
        cached: list[RatingList] | None = getattr(request, "_player_entry_lists", None)
        if cached is None:
            cached = list(self.scoped_choices(every_list(), request))
            request._player_entry_lists = cached  # type: ignore[attr-defined]
        return cached

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None:
            return super().get_fieldsets(request, obj)
        # Adding: the ratings the player already holds start their history (the API's
        # player create takes the same); later changes come only from closed periods.
        sections = []
        for slug, lists in _entry_lists(self.entry_lists(request)).items():
            parts = _parts(lists)
            first_row = tuple(f"{slug}_{part}" for part in parts[:3] if part != "reached_2400")
            rest = [f"{slug}_{part}" for part in parts if f"{slug}_{part}" not in first_row]
            clubs = ", ".join(sorted(rl.club.name for rl in lists))
            sections.append(
                (
                    f"{lists[0].label} rating the player brings",
                    {
                        "fields": [first_row, *rest],
                        "description": "An existing rating, e.g. from FIDE or the national "
                        "federation: the start of the player's history on this list "
                        f"(list {slug!r} of {clubs}).",
                    },
                )
            )
        return [(None, {"fields": self.get_fields(request, obj)}), *sections]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = player_add_form(self.entry_lists(request))
        else:
            kwargs["form"] = PlayerChangeForm
        return super().get_form(request, obj, change, **kwargs)

    def service_save(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> Player:
        if change:
            changes = changed_values(form, PLAYER_FIELDS)
            if "member" in form.changed_data:
                changes["user"] = form.cleaned_data["member"] or None
            return services.player_update(player=obj, by=request.user, **changes)
        data = form.cleaned_data
        club: Club = data["club"]
        own = {rl.slug: rl for rl in self.entry_lists(request) if rl.club_id == club.pk}
        # A row filled in for a list the chosen club does not have is refused, not dropped.
        every = _entry_field_names(self.entry_lists(request))
        foreign = sorted(
            name
            for name in every - _entry_field_names(list(own.values()))
            if data.get(name) not in (None, False, 0)
        )
        if foreign:
            message = f"{club.name} has no such list."
            raise ValidationFailed(message, fields={name: [message] for name in foreign})
        slugs = [slug for slug in _entry_lists(list(own.values())) if slug in own]
        try:
            return services.player_create(
                club=club,
                by=request.user,
                ratings=[_entry(slug, own[slug], data) for slug in slugs],
                **{f: data[f] for f in PLAYER_FIELDS},
            )
        except DomainError as error:
            raise _renamed(error, slugs) from error

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
        published_rows(player=player)
        .select_related("period", "rating_list")
        .order_by("rating_list__kind", "period__month")
    )
    series: dict[str, list[tuple[datetime.date, int]]] = defaultdict(list)
    for row in rows:
        assert row.rating_after is not None
        series[row.rating_list.get_kind_display()].append((row.period.month, row.rating_after))
    return dict(series)
