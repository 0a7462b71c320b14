"""Scoping by membership role and writes through services: the bases of every admin.

The rules are in the package's docstring (players/admin/__init__.py): membership roles alone
decide, another club's row answers 404, and saves and deletes go through the services.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from simple_history.admin import SimpleHistoryAdmin

from players.errors import DomainError
from players.models import (
    Club,
    Role,
)
from players.selectors import roles_by_club

# Filters by club list only the clubs present in the user's (scoped) rows; the plain
# related filter would list every club on the site, private ones included.
CLUB_FILTER = ("club", admin.RelatedOnlyFieldListFilter)
LIST_CLUB_FILTER = ("rating_list__club", admin.RelatedOnlyFieldListFilter)


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


class AuditedAdmin(SimpleHistoryAdmin, ClubScopedAdmin):  # type: ignore[misc]
    """A ClubScopedAdmin whose "History" page is the audit trail (django-simple-history):
    each change with who, when, through what and the fields before and after. The page
    checks the object's club like every other page; reverting is off
    (SIMPLE_HISTORY_REVERT_DISABLED: it would bypass the services)."""

    history_list_display = ["via"]

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # simple-history looks the id up as given: "x" for a number was a server error.
        try:
            self.model._meta.pk.to_python(unquote(object_id))
        except ValidationError:
            raise Http404 from None
        response: HttpResponse = super().history_view(request, object_id, extra_context)
        return response

    def history_form_view(
        self,
        request: HttpRequest,
        object_id: str,
        version_id: str,
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # SIMPLE_HISTORY_REVERT_DISABLED only hides the button: a POST to a version's page
        # still saved it, past the change role (an invitation's was a server error).
        if request.method not in ("GET", "HEAD"):
            raise PermissionDenied("Reverting to an earlier version is off; change the row.")
        response: HttpResponse = super().history_form_view(
            request, object_id, version_id, extra_context
        )
        return response
