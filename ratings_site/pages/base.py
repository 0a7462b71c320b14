"""What every public club page shares: finding the club the visitor may see, turning
domain errors into a readable HTML page (404 for what is not there, 400 for a malformed
parameter) instead of a server error, and the cache of what anonymous visitors see.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from players.api.cache import published_cache_key
from players.errors import DomainError, NotFoundError
from players.models import Club
from players.selectors import club_get_visible

P = ParamSpec("P")
ClubView = Callable[Concatenate[HttpRequest, Club, P], HttpResponse]


def error_page(request: HttpRequest, error: DomainError) -> HttpResponse:
    status = error.status if error.status in (400, 403, 404) else 400
    titles = {400: "That request cannot be answered", 403: "Not allowed", 404: "Not found"}
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

    def wrapper(request: HttpRequest, club: str, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            found = club_get_visible(user=request.user, slug=club)
        except NotFoundError as error:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            return error_page(request, error)
        try:
            return view(request, found, *args, **kwargs)
        except DomainError as error:
            return error_page(request, error)

    functools.update_wrapper(wrapper, view)
    return wrapper


def published_page(view: ClubView[P]) -> ClubView[P]:
    """Serve the page from the cache of public views (players.api.cache) to anonymous
    visitors of a public club; store what such a visitor was shown (a 200 only).

    Under ``club_page``, so the club is the one the visitor may see. A visitor with a
    message waiting (set by a previous page) is shown it on a fresh page.
    """

    def wrapper(
        request: HttpRequest, club: Club, /, *args: P.args, **kwargs: P.kwargs
    ) -> HttpResponse:
        key = published_cache_key(request=request, user=request.user, club=club, variant="page")
        if key is not None and get_messages(request):
            key = None
        if key is not None:
            found = cache.get(key)
            if found is not None:
                content, content_type = found
                return HttpResponse(content, content_type=content_type)
        response = view(request, club, *args, **kwargs)
        if key is not None and response.status_code == 200 and not response.streaming:
            cache.set(
                key, (response.content, response["Content-Type"]), settings.PUBLISHED_CACHE_SECONDS
            )
        return response

    functools.update_wrapper(wrapper, view)
    return wrapper
