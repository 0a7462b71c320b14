"""The member's home and its token actions, and the invitation's page; the sign-in pages
are Django's auth views."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from players import services
from players.emails import rating_emails_of
from players.errors import DomainError, PermissionDeniedError
from players.models import Club, Role
from players.selectors import MemberHome, roles_by_club
from players.selectors import member_home as member_home_data
from players.selectors.names import with_shown_names
from players.services import api_token_create, api_token_revoke, invitation_open
from ratings_site.accounts.corner import corners, member_claims
from ratings_site.accounts.notifications import CHOICES as EMAIL_CHOICES
from ratings_site.accounts.notifications import RatingEmailsForm
from ratings_site.lockout import lockout_clear_username
from ratings_site.pages.base import error_page
from tournaments.selectors import periods_due


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Token name"),
        max_length=100,
        help_text=gettext_lazy("e.g. the script or tool that will use it"),
    )


class ClubCreateForm(forms.Form):
    """The fields of the API's club create (players/api/clubs.py ClubCreateSerializer);
    the rules (who may, how many a day, unique names and slugs) are the service's."""

    name = forms.CharField(label=gettext_lazy("Club name"), max_length=200)
    slug = forms.SlugField(
        label=gettext_lazy("Short name for addresses"),
        max_length=50,
        help_text=gettext_lazy("Letters, digits and hyphens, e.g. riverside"),
    )
    public = forms.BooleanField(
        label=gettext_lazy("Public: anyone may read its lists"), required=False
    )


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def club_create(request: HttpRequest) -> HttpResponse:
    """A new club, its owner the signed-in user (when the site lets them create clubs)."""
    if not services.may_create_clubs(request.user):
        error = PermissionDeniedError(
            gettext("Creating clubs is not open to this account; ask the staff.")
        )
        return error_page(request, error)
    form = ClubCreateForm(request.POST if request.method == "POST" else None)
    status = 400 if request.method == "POST" else 200
    if request.method == "POST" and form.is_valid():
        try:
            club = services.club_create(by=request.user, **form.cleaned_data)
        except DomainError as error:
            for field, problems in error.fields.items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
            if not error.fields:
                form.add_error(None, error.message)
            status = error.status
        else:
            messages.success(
                request, gettext("%(club)s is created; you are its owner.") % {"club": club.name}
            )
            return redirect("club", club.slug)
    return render(request, "accounts/club_create.html", {"form": form}, status=status)


def _home(
    request: HttpRequest, *, form: TokenForm, new_token: str = "", status: int = 200
) -> HttpResponse:
    home = member_home_data(user=request.user)  # type: ignore[arg-type]
    with_shown_names(home.players)
    officer_clubs = [
        club_id
        for club_id, role in roles_by_club(request.user).items()
        if Role.includes(role, Role.OFFICER)
    ]
    due = periods_due(club_ids=officer_clubs, today=timezone.localdate()) if officer_clubs else []
    emails = rating_emails_of(request.user)
    return render(
        request,
        "accounts/home.html",
        {
            "home": home,
            "form": form,
            "new_token": new_token,
            "officer": bool(officer_clubs),
            "may_create_clubs": services.may_create_clubs(request.user),
            "due": due,
            "invitations": services.invitations_for(user=request.user),  # type: ignore[arg-type]
            "emails_form": RatingEmailsForm(initial={"rating_emails": emails}),
            "emails_label": dict(EMAIL_CHOICES).get(emails, ""),
            "corners": corners(players=home.players),
            "claims": member_claims(user=request.user),  # type: ignore[arg-type]
            "unlinked_clubs": _clubs_without_record(home),
        },
        status=status,
    )


def _clubs_without_record(home: MemberHome) -> list[Club]:
    """The member's clubs where no record is theirs yet: where they may look for it."""
    linked = {player.club_id for player in home.players}
    return [m.club for m in home.memberships if m.club_id not in linked]


@require_safe
@login_required
def member_home(request: HttpRequest) -> HttpResponse:
    return _home(request, form=TokenForm())


@require_POST
@login_required
def token_create(request: HttpRequest) -> HttpResponse:
    """Create a token and show it once, on this answer (only its hash is kept)."""
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _home(request, form=form, status=400)
    try:
        _, raw = api_token_create(user=request.user, name=form.cleaned_data["name"])  # type: ignore[arg-type]
    except DomainError as error:
        form.add_error("name", error.message)
        return _home(request, form=form, status=400)
    return _home(request, form=TokenForm(), new_token=raw)


@require_POST
@login_required
def token_revoke(request: HttpRequest, digest: str) -> HttpResponse:
    try:
        api_token_revoke(user=request.user, digest=digest)  # type: ignore[arg-type]
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, gettext("The token is revoked."))
    return redirect("account-home")


def _invitation_page(
    request: HttpRequest, *, secret: str, form: UserCreationForm[Any] | None, status: int = 200
) -> HttpResponse:
    try:
        invitation = invitation_open(secret=secret)
    except DomainError as error:
        return error_page(request, error)
    return render(
        request,
        "accounts/invitation.html",
        {
            "invitation": invitation,
            "form": form or UserCreationForm(),
            "for_other": bool(
                request.user.is_authenticated
                and invitation.for_account
                and invitation.user_id != request.user.pk
            ),
        },
        status=status,
    )


@require_POST
@login_required
def invitation_accept_mine(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """The member's home: accept an invitation addressed to this account (no link)."""
    try:
        membership = services.invitation_accept_mine(
            invitation_id=invitation_id,
            user=request.user,  # type: ignore[arg-type]
        )
    except DomainError as error:
        return error_page(request, error)
    messages.success(
        request,
        gettext("Welcome to %(club)s: your role is %(role)s.")
        % {"club": membership.club.name, "role": membership.get_role_display()},
    )
    return redirect("club", membership.club.slug)


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, secret: str) -> HttpResponse:
    """The invitation's link: a signed-in user accepts; a new person chooses a username and
    password (and is signed in with it); an existing user logs in first (``?next=`` brings them
    back here)."""
    if request.method == "GET":
        return _invitation_page(request, secret=secret, form=None)
    try:
        if request.user.is_authenticated:
            membership = services.invitation_accept(secret=secret, user=request.user)
            messages.success(
                request,
                gettext("Welcome to %(club)s: your role is %(role)s.")
                % {"club": membership.club.name, "role": membership.get_role_display()},
            )
            return redirect("club", membership.club.slug)
        if invitation_open(secret=secret).for_account:
            # Before the form: "that username is taken" would tell who has an account.
            raise PermissionDeniedError(
                gettext("This invitation is for an existing account: log in to accept.")
            )
        form: UserCreationForm[Any] = UserCreationForm(request.POST)
        if not form.is_valid():
            return _invitation_page(request, secret=secret, form=form, status=400)
        membership = services.invitation_accept_new_user(
            secret=secret,
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
        )
    except DomainError as error:
        return error_page(request, error)
    # They just chose the password: asking for it again at once would only be a hurdle.
    # The ModelBackend by name: the lockout backend in front needs the request it has not.
    login(request, membership.user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(
        request,
        gettext(
            "Your account %(username)s is ready and you are signed in; your role at "
            "%(club)s is %(role)s."
        )
        % {
            "username": membership.user.get_username(),
            "role": membership.get_role_display(),
            "club": membership.club.name,
        },
    )
    return redirect("club", membership.club.slug)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's, and a password reset by email lifts the username's lockout: whoever
    holds the mailbox owns the account (ratings_site/lockout.py)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        lockout_clear_username(username=form.user.get_username())
        return response
