"""Site-wide pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from players.selectors_pages import clubs_for_index


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The front page lists the clubs the visitor may see, like /clubs/."""
    return render(request, "home.html", {"clubs": list(clubs_for_index(user=request.user))})
