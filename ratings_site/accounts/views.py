"""The member's home and its token actions; the sign-in pages are Django's auth views."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from players.errors import DomainError
from players.selectors import member_home as member_home_data
from players.services import api_token_create, api_token_revoke


class TokenForm(forms.Form):
    name = forms.CharField(
        label="Token name", max_length=100, help_text="e.g. the script or tool that will use it"
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
        messages.success(request, "The token is revoked.")
    return redirect("account-home")
