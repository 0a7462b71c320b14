"""Django admin for club staff: clubs, members, players, lists, ratings and K history.

Access
    The admin only lets in users with ``is_staff`` (Django's rule). A superuser sees and
    changes everything. Any other staff user sees only the rows of clubs where they hold a
    Membership, and may do there what their role allows:

    - viewer: view everything of the club;
    - arbiter: also add and change players, tournaments and games (of open periods);
    - officer: also preview, close, reopen and replay periods, and set K overrides;
    - owner: also the club itself, its memberships and its rating lists.

    Membership roles alone decide. Django's per-user model permissions are not consulted:
    every ``has_*_permission`` method of these admins is overridden, so giving a club's
    staff access needs nothing more than ``is_staff`` and a Membership, and a permission
    ticked by mistake in the user admin cannot widen a role. The auth admin (users,
    groups) keeps Django's permissions and therefore stays superuser-only in practice.

    A row of a club the user cannot see answers 404 (not a redirect), so a private club's
    rows do not reveal that they exist.

Writes
    The admin never computes or stores a rating or a rule. Every save that changes state
    calls a service (players/services.py, tournaments/services/), which validates (closed
    periods, players of another club) and raises ``DomainError``; the admin shows that as a
    form error or an admin message, never a 500. The computed and audit rows
    (RatingChange, KFactorChange, RatingRun, PlayerRating) are read-only here.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from players import services
from players.charts import lines_chart
from players.errors import DomainError
from players.models import (
    RATING_MAX,
    RATING_MIN,
    Club,
    KFactorChange,
    ListKind,
    Membership,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    Role,
)
from players.selectors import roles_by_club
from players.services import PLAYER_FIELDS

# Filters by club list only the clubs present in the user's (scoped) rows; the plain
# related filter would list every club on the site, private ones included.
CLUB_FILTER = ("club", admin.RelatedOnlyFieldListFilter)
LIST_CLUB_FILTER = ("rating_list__club", admin.RelatedOnlyFieldListFilter)

admin.site.site_header = "Club ratings administration"
admin.site.site_title = "Club ratings admin"
admin.site.index_title = "Clubs, players, games and rating periods"

# ---------------------------------------------------------------------------------------
# Scoping by membership role


def user_roles(request: HttpRequest) -> dict[int, Role]:
    """Club id -> the request user's role there; one query per request (cached on it)."""
    cached: dict[int, Role] | None = getattr(request, "_club_roles", None)
    if cached is None:
        cached = roles_by_club(request.user)
        request._club_roles = cached  # type: ignore[attr-defined]
    return cached


def is_superuser(request: HttpRequest) -> bool:
    return bool(request.user.is_active and getattr(request.user, "is_superuser", False))


def club_ids_with(request: HttpRequest, role: Role) -> list[int]:
    """The clubs where the user's role includes ``role``'s rights."""
    return [club_id for club_id, held in user_roles(request).items() if Role.includes(held, role)]


def role_allows(request: HttpRequest, role: Role | None, club_id: int | None) -> bool:
    """Whether the user may act with ``role`` in ``club_id`` (None: in any of their clubs).

    ``role`` None means nobody but a superuser.
    """
    if not request.user.is_active or not getattr(request.user, "is_staff", False):
        return False
    if is_superuser(request):
        return True
    if role is None:
        return False
    if club_id is None:
        return bool(club_ids_with(request, role))
    held = user_roles(request).get(club_id)
    return held is not None and Role.includes(held, role)


def club_id_of(obj: Model, lookup: str) -> int | None:
    """Follow ``lookup`` (an ORM path such as ``rating_list__club``) to the club's id."""
    if lookup in ("", "pk"):
        own: int | None = obj.pk
        return own
    *path, last = lookup.split("__")
    current: Any = obj
    for part in path:
        current = getattr(current, part, None)
        if current is None:
            return None
    club_id: int | None = getattr(current, f"{last}_id", None)
    return club_id


def club_lookup_for(model: type[Model]) -> str | None:
    """The ORM path from ``model`` to its club, or None when the model has no club."""
    if model is Club:
        return "pk"
    field_names = {field.name for field in model._meta.get_fields()}
    for candidate in ("club", "rating_list", "player", "period"):
        if candidate in field_names:
            if candidate == "club":
                return "club"
            target = model._meta.get_field(candidate).related_model
            assert isinstance(target, type)
            inner = club_lookup_for(target)
            return None if inner is None else f"{candidate}__{inner}"
    return None


def scope_queryset(queryset: QuerySet[Any], request: HttpRequest, role: Role) -> QuerySet[Any]:
    """``queryset`` limited to the clubs where the user's role includes ``role``."""
    if is_superuser(request):
        return queryset
    lookup = club_lookup_for(queryset.model)
    if lookup is None:
        return queryset.none()
    return queryset.filter(**{f"{lookup}__in": club_ids_with(request, role)})


class ClubScopedMixin:
    """Row scoping and role checks shared by the model admins and inlines.

    ``club_lookup`` is the ORM path to the row's club. The ``*_role`` attributes name the
    least role that may do each thing; None means only a superuser; ``read_only`` refuses
    add/change/delete to everyone, superusers too (computed and audit rows).
    """

    club_lookup: str = "club"
    view_role: Role = Role.VIEWER
    add_role: Role | None = Role.ARBITER
    change_role: Role | None = Role.ARBITER
    delete_role: Role | None = Role.ARBITER
    read_only: bool = False

    def _obj_club_id(self, obj: Model | None) -> int | None:
        return None if obj is None else club_id_of(obj, self.club_lookup)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return role_allows(request, self.view_role, None)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return role_allows(request, self.view_role, self._obj_club_id(obj))

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        # Inlines pass the parent object; its club decides.
        parent = args[0] if args else None
        if self.read_only:
            return False
        return role_allows(request, self.add_role, self._obj_club_id(parent))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.read_only:
            return False
        return role_allows(request, self.change_role, self._obj_club_id(obj))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.read_only:
            return False
        return role_allows(request, self.delete_role, self._obj_club_id(obj))

    def scoped_choices(self, queryset: QuerySet[Any], request: HttpRequest) -> QuerySet[Any]:
        """Choices for a foreign key: the rows of clubs where the user may add or change."""
        role = self.add_role or self.change_role or Role.OWNER
        return scope_queryset(queryset, request, role)


class ServiceRefused(Exception):
    """A service refused a save or delete; carries its DomainError to the admin view."""

    def __init__(self, error: DomainError) -> None:
        super().__init__(error.message)
        self.error = error


class ClubScopedAdmin(ClubScopedMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    """A ModelAdmin that shows a staff member only their clubs' rows, within their role.

    Saves and deletes go through services: subclasses implement ``service_save`` (return
    the saved object) and ``service_delete``. A refused save re-renders the page with the
    service's messages as field errors, exactly as a form validation error would;
    ``field_map`` renames the services' field names to the form's.
    """

    field_map: dict[str, str] = {}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return scope_queryset(super().get_queryset(request), request, self.view_role)

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            # Django's default is a redirect with "does not exist"; a plain 404 is the
            # honest answer for another club's row and for a missing one alike.
            raise Http404(f"No {self.opts.verbose_name} with id {object_id!r} in your clubs.")
        return obj

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        related = db_field.related_model
        if "queryset" not in kwargs and club_lookup_for(related) is not None:
            kwargs["queryset"] = self.scoped_choices(related._default_manager.all(), request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        # Bulk delete would bypass the services; deletes go one by one through the page.
        actions.pop("delete_selected", None)
        return actions

    # -- writes through services --------------------------------------------------------

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form_class = super().get_form(request, obj, change, **kwargs)
        error: DomainError | None = getattr(request, "_service_error", None)
        if error is None:
            return form_class
        field_map = self.field_map
        refusal: DomainError = error

        class RefusedForm(form_class):  # type: ignore[valid-type,misc]
            def clean(self) -> Any:
                cleaned = super().clean()
                apply_domain_error(self, refusal, field_map)
                return cleaned

        return RefusedForm

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # No outer transaction here (Django's default wraps one): every service owns a
        # durable transaction, which refuses to run nested inside another.
        view: Any = self._changeform_view  # type: ignore[attr-defined]
        try:
            response: HttpResponse = view(request, object_id, form_url, extra_context)
        except ServiceRefused as refused:
            # The service wrote nothing; validate the same POST again with its errors
            # attached, so the page shows them as field errors with the input kept.
            request._service_error = refused.error  # type: ignore[attr-defined]
            response = view(request, object_id, form_url, extra_context)
        return response

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        view: Any = self._delete_view  # type: ignore[attr-defined]
        try:
            response: HttpResponse = view(request, object_id, extra_context)
        except ServiceRefused as refused:
            report_domain_error(request, refused.error, prefix="Not deleted: ")
            return HttpResponseRedirect(
                reverse(
                    f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                    args=[object_id],
                    current_app=self.admin_site.name,
                )
            )
        return response

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        deleted, model_count, _perms_needed, protected = super().get_deleted_objects(objs, request)
        # Django would also demand delete rights on every cascaded row (K history, audit
        # rows), which nobody has here; the delete service decides what may go.
        return deleted, model_count, set(), protected

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        try:
            saved = self.service_save(request, obj, form, change)
        except DomainError as error:
            raise ServiceRefused(error) from error
        # The admin goes on with ``obj`` (log entry, redirect): give it the saved identity.
        obj.pk = saved.pk
        obj._state.adding = False
        obj._state.db = saved._state.db

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        try:
            self.service_delete(request, obj)
        except DomainError as error:
            raise ServiceRefused(error) from error

    def service_save(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> Model:
        raise PermissionDenied(f"{self.opts.verbose_name_plural} are not saved in the admin.")

    def service_delete(self, request: HttpRequest, obj: Any) -> None:
        raise PermissionDenied(f"{self.opts.verbose_name_plural} are not deleted in the admin.")


def changed_values(form: forms.ModelForm, fields: Sequence[str]) -> dict[str, Any]:  # type: ignore[type-arg]
    """The cleaned values of ``fields`` that the form changed."""
    return {f: form.cleaned_data[f] for f in fields if f in form.changed_data}


class ReadOnlyInline(ClubScopedMixin, admin.TabularInline):  # type: ignore[type-arg]
    """A history inline: shown, never edited (the services write these rows)."""

    read_only = True
    extra = 0
    can_delete = False
    show_change_link = False
    club_lookup = "club"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return tuple(str(field) for field in self.fields or ())


def report_domain_error(request: HttpRequest, error: DomainError, *, prefix: str = "") -> None:
    """Show a refused operation as an admin error message (never a 500)."""
    text = f"{prefix}{error.message}" if prefix else error.message
    messages.error(request, text)


def apply_domain_error(
    form: forms.BaseForm, error: DomainError, field_map: dict[str, str] | None = None
) -> None:
    """Put a DomainError's messages on the form fields it names (the rest on the form).

    ``field_map`` renames service field names to form field names (``list`` ->
    ``rating_list``). A field the form does not have keeps its name in the message.
    """
    placed = False
    for name, field_messages in error.fields.items():
        field = (field_map or {}).get(name, name)
        for message in field_messages:
            if field in form.fields:
                form.add_error(field, message)
            else:
                form.add_error(None, f"{name}: {message}")
            placed = True
    if not placed:
        form.add_error(None, error.message)


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


# ---------------------------------------------------------------------------------------
# Clubs and members


class MembershipInline(ReadOnlyInline):
    # Shown only; memberships are changed on their own page, through membership_set.
    model = Membership
    fields = ("user", "role", "created")
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("user")


@admin.register(Club)
class ClubAdmin(ClubScopedAdmin):
    list_display = ("name", "slug", "public", "player_count", "created")
    list_filter = ("public",)
    search_fields = ("name", "slug")
    readonly_fields = ("created",)
    prepopulated_fields = {"slug": ("name",)}
    club_lookup = "pk"
    add_role = None
    change_role = Role.OWNER
    delete_role = None
    inlines = [MembershipInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The slug is in every public URL of the club; it is set once.
        return ("slug", "created") if obj is not None else ("created",)

    def get_prepopulated_fields(self, request: HttpRequest, obj: Any = None) -> dict[str, Any]:
        return {"slug": ("name",)} if obj is None else {}

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting a club deletes its whole history; not a click in the admin.
        return False

    def service_save(self, request: HttpRequest, obj: Club, form: Any, change: bool) -> Club:
        data = form.cleaned_data
        if change:
            return services.club_update(
                club=obj, by=request.user, name=data["name"], public=data["public"]
            )
        return services.club_create(
            name=data["name"], slug=data["slug"], public=data["public"], by=request.user
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset: QuerySet[Any] = super().get_queryset(request)
        annotated: QuerySet[Any] = queryset.annotate(players_total=Count("players"))
        return annotated

    @admin.display(description="players", ordering="players_total")
    def player_count(self, obj: Club) -> int:
        return int(getattr(obj, "players_total", 0))


class MembershipForm(forms.ModelForm):  # type: ignore[type-arg]
    # A username box instead of a select: a club owner must not get a list of every
    # account on the site, and the user admin is not open to them.
    user = forms.ModelChoiceField(
        queryset=get_user_model()._default_manager.all(),
        to_field_name="username",
        widget=forms.TextInput,
        label="Username",
        error_messages={"invalid_choice": "No user with that username."},
    )

    class Meta:
        model = Membership
        fields = ("user", "club", "role")


@admin.register(Membership)
class MembershipAdmin(ClubScopedAdmin):
    form = MembershipForm
    list_display = ("user", "club", "role", "created")
    list_filter = ("role", CLUB_FILTER)
    search_fields = ("user__username", "user__email", "club__name")
    list_select_related = ("user", "club")
    add_role = Role.OWNER
    change_role = Role.OWNER
    delete_role = Role.OWNER

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("user", "club", "created") if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("user", "club", "role", "created") if obj is not None else ("user", "club", "role")

    def service_save(
        self, request: HttpRequest, obj: Membership, form: Any, change: bool
    ) -> Membership:
        club = obj.club if change else form.cleaned_data["club"]
        user = obj.user if change else form.cleaned_data["user"]
        return services.membership_set(
            club=club, user=user, role=form.cleaned_data["role"], by=request.user
        )

    def service_delete(self, request: HttpRequest, obj: Membership) -> None:
        services.membership_remove(club=obj.club, user=obj.user, by=request.user)


# ---------------------------------------------------------------------------------------
# Players and their ratings


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


@admin.register(Player)
class PlayerAdmin(ClubScopedAdmin):
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
    fields = ("club", *PLAYER_FIELDS, "created", "rating_chart")
    inlines = [PlayerRatingInline, RatingChangeInline, KFactorChangeInline]
    delete_role = Role.OFFICER

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # A player never moves between clubs: their games and history belong to the club.
        if obj is not None:
            return ("club", "created", "rating_chart")
        return ("created", "rating_chart")

    field_map = {
        f"ratings[{index}].{part}": f"{kind}_{part}"
        for index, kind in enumerate(ListKind.values)
        for part in ENTRY_PARTS
    }

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return tuple(f for f in self.fields if f not in ("created", "rating_chart"))
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
        if obj is None:
            kwargs["form"] = PlayerAddForm
        return super().get_form(request, obj, change, **kwargs)

    def service_save(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> Player:
        if change:
            return services.player_update(
                player=obj, by=request.user, **changed_values(form, PLAYER_FIELDS)
            )
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


RATING_LIST_RULES = (
    "expected_method",
    "apply_400_rule",
    "k_policy",
    "fixed_k",
    "floor",
    "first_rating_policy",
    "starting_rating",
    "adjust_march_2024",
)


@admin.register(RatingList)
class RatingListAdmin(ClubScopedAdmin):
    list_display = ("club", "kind", "preset", *RATING_LIST_RULES)
    list_filter = ("kind", "k_policy", "expected_method", CLUB_FILTER)
    search_fields = ("club__name",)
    list_select_related = ("club",)
    readonly_fields = ("club", "kind", "preset")
    fields = ("club", "kind", "preset", *RATING_LIST_RULES)
    # Each club gets its three lists when it is created; they are never added or deleted.
    add_role = None
    change_role = Role.OWNER
    delete_role = None

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def service_save(
        self, request: HttpRequest, obj: RatingList, form: Any, change: bool
    ) -> RatingList:
        rules = changed_values(form, RATING_LIST_RULES)
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
