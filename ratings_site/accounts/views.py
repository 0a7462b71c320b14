"""The member's home and its token actions, and the invitation's page; the sign-in pages
are Django's auth views."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from players import services
from players.errors import DomainError
from players.selectors import member_home as member_home_data
from players.services import api_token_create, api_token_revoke, invitation_open
from ratings_site.lockout import lockout_clear_username
from ratings_site.pages.base import error_page


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Token name"),
        max_length=100,
        help_text=gettext_lazy("e.g. the script or tool that will use it"),
    )


def _home(
    request: HttpRequest, *, form: TokenForm, new_token: str = "", status: int = 200
) -> HttpResponse:
    home = member_home_data(user=request.user)  # type: ignore[arg-type]
    return render(
        request,
        "accounts/home.html",
        {"home": home, "form": form, "new_token": new_token},
        status=status,
    )


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
                and invitation.user_id is not None
                and invitation.user_id != request.user.pk
            ),
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, secret: str) -> HttpResponse:
    """The invitation's link: a signed-in user accepts; a new person chooses a username and
    password (and then logs in); an existing user logs in first (``?next=`` brings them
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
    messages.success(
        request,
        gettext("Your account %(username)s is ready; your role at %(club)s is %(role)s. Log in.")
        % {
            "username": membership.user.get_username(),
            "role": membership.get_role_display(),
            "club": membership.club.name,
        },
    )
    return redirect(f"{reverse('login')}?next={reverse('club', args=[membership.club.slug])}")


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's, and a password reset by email lifts the username's lockout: whoever
    holds the mailbox owns the account (ratings_site/lockout.py)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        lockout_clear_username(username=form.user.get_username())
        return response
