"""A member's claim of a player record ("this is me", a button on the player page) and an
officer's decision (buttons on their home page): forms that call the claims services."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from players import services
from players.errors import DomainError
from players.selectors import claim_to_decide, club_get_visible
from players.services.claims import NOTE_MAX
from ratings_site.pages.base import error_page


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("approve", gettext_lazy("Approve")), ("decline", gettext_lazy("Decline"))]
    )
    note = forms.CharField(
        label=gettext_lazy("Note to the member"), required=False, max_length=NOTE_MAX
    )


def _refusal(error: DomainError) -> str:
    """The service's words without the field's name in front (the page says which)."""
    return " ".join(m for problems in error.fields.values() for m in problems) or error.message


@require_POST
@login_required
def claim_create(request: HttpRequest, club: str, player_id: int) -> HttpResponse:
    """ "This is me" on the player page: the signed-in member claims the record."""
    try:
        found = club_get_visible(user=request.user, slug=club)
        claim = services.claim_create(
            club=found,
            player_id=player_id,
            by=request.user,  # type: ignore[arg-type]
        )
    except DomainError as error:
        if error.status == 404:
            return error_page(request, error)
        messages.error(request, _refusal(error))
        return redirect("player", club, player_id)
    messages.success(
        request,
        gettext("Your claim of %(name)s is sent: an officer of %(club)s approves or declines it.")
        % {"name": claim.player.name, "club": found.name},
    )
    return redirect("account-home")


@require_POST
@login_required
def claim_decide(request: HttpRequest, claim_id: int) -> HttpResponse:
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose to approve or decline the claim."))
        return redirect("account-home")
    try:
        claim = claim_to_decide(claim_id=claim_id, user=request.user)
        approve = form.cleaned_data["decision"] == "approve"
        services.claim_decide(
            claim=claim, by=request.user, approve=approve, note=form.cleaned_data["note"]
        )
    except DomainError as error:
        if error.status == 404:
            return error_page(request, error)
        messages.error(request, _refusal(error))
        return redirect("account-home")
    text = (
        gettext("%(name)s is now linked to %(user)s.")
        if approve
        else gettext("The claim of %(user)s on %(name)s is declined.")
    )
    messages.success(request, text % {"name": claim.player.name, "user": claim.user.get_username()})
    return redirect("account-home")
