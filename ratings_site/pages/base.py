"""What every public club page shares: finding the club the visitor may see, turning
domain errors into a readable HTML page (404 for what is not there, 400 for a malformed
parameter) instead of a server error, and the cache of what anonymous visitors see.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from players.api.cache import published_entry
from players.errors import DomainError, NotFoundError
from players.models import Club
from players.selectors import club_get_visible

P = ParamSpec("P")
ClubView = Callable[Concatenate[HttpRequest, Club, P], HttpResponse]


def error_page(request: HttpRequest, error: DomainError) -> HttpResponse:
    status = error.status if error.status in (400, 403, 404) else 400
    titles = {
        400: gettext("That request cannot be answered"),
        403: gettext("Not allowed"),
        404: gettext("Not found"),
    }
    return render(
        request,
        "error.html",
        {"title": titles[status], "message": error.message, "status": status},
        status=status,
    )


def club_page(view: ClubView[P]) -> Callable[..., HttpResponse]:
    """Resolve ``club`` (the slug in the URL) through the tracker's visibility rule.

    Django passes ``club`` by keyword (from the URL), so the wrapper is typed loosely.
    A club the visitor may not see: anonymous visitors are sent to log in (whether or not
    it exists, so a private club's name does not leak); a signed-in non-member gets 404.
    """
    return _club_page(view, cached=False)


def published_club_page(view: ClubView[P]) -> Callable[..., HttpResponse]:
    """``club_page``, served from the cache of public views (players.api.cache) to
    anonymous visitors of a public club when it holds the page's current answer (before
    the club is read: an entry exists only for a public club, and a club made private has
    a new generation); the 200 answers such a visitor gets are stored."""
    return _club_page(view, cached=True)


def _club_page(view: ClubView[P], *, cached: bool) -> Callable[..., HttpResponse]:
    def wrapper(request: HttpRequest, club: str, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        entry = (
            published_entry(request=request, user=request.user, slug=club, variant="page")
            if cached
            else None
        )
        if entry is not None and entry.value is not None:
            content, content_type = entry.value
            return HttpResponse(content, content_type=content_type)
        try:
            found = club_get_visible(user=request.user, slug=club)
        except NotFoundError as error:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            return error_page(request, error)
        try:
            response = view(request, found, *args, **kwargs)
        except DomainError as error:
            return error_page(request, error)
        if entry is not None and response.status_code == 200 and not response.streaming:
            entry.store(club=found, value=(response.content, response["Content-Type"]))
        return response

    functools.update_wrapper(wrapper, view)
    return wrapper
