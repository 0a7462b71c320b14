"""Clubs, their members and invitations (owners change all three)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse

from players import services
from players.errors import DomainError
from players.http.admin import (
    CLUB_FILTER,
    AuditedAdmin,
    ReadOnlyInline,
    report_domain_error,
)
from players.models import (
    Club,
    Invitation,
    Membership,
    Role,
)


class MembershipInline(ReadOnlyInline):
    # Shown only; memberships are changed on their own page, through membership_set.
    model = Membership
    fields = ("user", "role", "created")
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("user")


class ClubForm(forms.ModelForm):  # type: ignore[type-arg]
    # One website per line rather than the JSON list the model keeps: an owner types
    # addresses, not JSON. The service checks each (its errors land on this field).
    embed_origins = forms.CharField(
        label="Websites that may embed the widgets",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 50}),
        help_text="One origin per line, such as https://club.example.org (scheme, host, "
        "perhaps a port; no path). Only these sites may show the club's widgets in a "
        "frame; leave empty to allow none.",
    )

    class Meta:
        model = Club
        fields = ("name", "slug", "public", "embed_origins")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None and "embed_origins" in self.fields:
            self.initial["embed_origins"] = "\n".join(self.instance.embed_origins or [])

    def clean_embed_origins(self) -> list[str]:
        text: str = self.cleaned_data.get("embed_origins") or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


@admin.register(Club)
class ClubAdmin(AuditedAdmin):
    form = ClubForm
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

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        # A new club has no widgets to place yet; its websites are set once it exists.
        fields = ["name", "slug", "public", "created"]
        return [*fields, "embed_origins"] if obj is not None else fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting a club deletes its whole history; not a click in the admin.
        return False

    def service_save(self, request: HttpRequest, obj: Club, form: Any, change: bool) -> Club:
        data = form.cleaned_data
        if change:
            return services.club_update(
                club=obj,
                by=request.user,
                name=data["name"],
                public=data["public"],
                embed_origins=data["embed_origins"],
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
class MembershipAdmin(AuditedAdmin):
    form = MembershipForm
    list_display = ("user", "club", "role", "created")
    list_filter = ("role", CLUB_FILTER)
    search_fields = ("user__username", "user__email", "club__name")
    list_select_related = ("user", "club")
    # Only the site's superuser adds a member here (the first owner of a club, say): an
    # owner invites (the invitations page), and the account joins when it accepts. Adding
    # directly would tell the owner which usernames exist, and needs no one's consent.
    add_role = None
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


class InvitationForm(forms.ModelForm):  # type: ignore[type-arg]
    username = forms.CharField(
        required=False,
        max_length=150,
        help_text="A username (only that account can accept; nothing says whether it exists), "
        "or give an email address instead.",
    )

    class Meta:
        model = Invitation
        fields = ("club", "email", "role")


@admin.register(Invitation)
class InvitationAdmin(AuditedAdmin):
    """Owners invite here as through the API; the link is shown once, after saving."""

    form = InvitationForm
    list_display = ("invitee", "club", "role", "status", "created_by", "created", "expires")
    list_filter = ("role", CLUB_FILTER)
    search_fields = ("email", "user__username", "club__name")
    list_select_related = ("user", "club", "created_by")
    view_role = Role.OWNER
    add_role = Role.OWNER
    change_role = None
    delete_role = None
    actions = ["revoke"]
    readonly_fields = (
        "club",
        "email",
        "user",
        "role",
        "status",
        "created_by",
        "created",
        "expires",
        "accepted",
        "accepted_by",
        "revoked",
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is not None else ()

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is not None else ("club", "email", "username", "role")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Shown read-only: an invitation is revoked (the action), never edited.
        return False

    def service_save(
        self, request: HttpRequest, obj: Invitation, form: Any, change: bool
    ) -> Invitation:
        data = form.cleaned_data
        invitation, url = services.invitation_create(
            club=data["club"],
            by=request.user,
            role=data["role"],
            email=data.get("email") or "",
            username=data.get("username") or "",
            accept_url=lambda secret: request.build_absolute_uri(
                reverse("invitation-accept", args=[secret])
            ),
        )
        messages.success(request, f"The invitation's link (shown only now): {url}")
        return invitation

    @admin.action(description="Revoke the selected invitations")
    def revoke(self, request: HttpRequest, queryset: QuerySet[Invitation]) -> None:
        revoked = 0
        for invitation in queryset.select_related("club"):
            try:
                services.invitation_revoke(invitation=invitation, by=request.user)
            except DomainError as error:
                report_domain_error(request, error, prefix=f"{invitation}: ")
            else:
                revoked += 1
        messages.success(request, f"{revoked} invitation(s) revoked.")
