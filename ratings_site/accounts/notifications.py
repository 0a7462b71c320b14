"""The member's choice of rating emails (a form on the member's home) and the one-click
unsubscribe link every rating email carries (docs/reference/notifications.md)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from players.emails import services
from players.errors import DomainError
from players.models import RatingEmails
from ratings_site.pages.base import error_page

CHOICES = [
    (RatingEmails.EVERY_CLOSE.value, gettext_lazy("After every close of a list I am on")),
    (RatingEmails.CHANGED.value, gettext_lazy("Only when my rating changed")),
    (RatingEmails.NEVER.value, gettext_lazy("Never")),
]


class RatingEmailsForm(forms.Form):
    rating_emails = forms.ChoiceField(
        label=gettext_lazy("Rating emails"), choices=CHOICES, widget=forms.RadioSelect
    )


@require_POST
@login_required
def rating_emails_choose(request: HttpRequest) -> HttpResponse:
    form = RatingEmailsForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose one of the options."))
        return redirect("account-home")
    services.rating_emails_set(user=request.user, choice=form.cleaned_data["rating_emails"])
    messages.success(request, gettext("Your choice of rating emails is saved."))
    return redirect("account-home")


# The link's signature is what authorises it (no sign-in, no session: RFC 8058's one-click
# POST comes from the mail provider, which has no CSRF token).
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a page that asks to confirm (mail scanners follow links; a GET changes
    nothing). POST: no more rating emails."""
    try:
        if request.method == "POST":
            services.unsubscribe(token=token)
            return render(
                request,
                "accounts/message.html",
                {
                    "title": gettext("Unsubscribed"),
                    "message": gettext(
                        "You will get no more rating emails. You can choose again on your "
                        "account page."
                    ),
                    "link_url": "/accounts/",
                    "link_text": gettext("Your account"),
                },
            )
        user = services.unsubscribe_user(token)
    except DomainError as error:
        return error_page(request, error)
    return render(request, "accounts/unsubscribe.html", {"username": user.get_username()})
