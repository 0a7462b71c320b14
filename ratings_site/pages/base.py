"""What every public club page shares: finding the club the visitor may see, turning
domain errors into a readable HTML page (404 for what is not there, 400 for a malformed
parameter) instead of a server error, and the cache of what anonymous visitors see.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext

from players.errors import DomainError, NotFoundError
from players.http.cache import (
    PublishedEntry,
    after_response,
    cached_or_claimed,
    published_entry,
    rebuilt_once,
)
from players.models import Club
from players.selectors import Generation, club_get_visible

P = ParamSpec("P")
ClubView = Callable[Concatenate[HttpRequest, Club, P], HttpResponse]


# A page's parts that differ for a signed-in visitor: (request, club=slug, **the URL's
# kwargs) -> region name -> HTML.
MemberParts = Callable[..., dict[str, str]]
# A page's parts that a game changes, on a page kept under the published generation:
# (request, club, **the URL's kwargs) -> region name -> HTML.
LiveParts = Callable[..., dict[str, str]]


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
    """``club_page``, served from the cache of public views (players.http.cache) to
    anonymous visitors of a public club when it holds the page's current answer (before
    the club is read: an entry exists only for a public club, and a club made private has
    a new generation); the 200 answers such a visitor gets are stored.

    A signed-in visitor of a public club gets the same stored page with their own parts
    rendered into it (``member_page``): the site header (their menu, the log-out form's
    CSRF token), and what a ``with_member_parts`` page adds."""
    return _club_page(view, cached=True)


def live_club_page(view: ClubView[P]) -> Callable[..., HttpResponse]:
    """``published_club_page`` for a page that a game changes (the live list, the
    tournaments, the head-to-head page): kept under the club's live generation, which
    every game replaces, as does everything that publishes."""
    return _club_page(view, cached=True, scope=Generation.LIVE)


def with_member_parts(
    member_parts: MemberParts, *, live_parts: LiveParts | None = None
) -> Callable[[ClubView[P]], Callable[..., HttpResponse]]:
    """``published_club_page`` whose page has more regions that differ for a signed-in
    visitor: ``member_parts(request, club=slug, **url kwargs)`` renders them (the player
    page's link to the member's account). ``live_parts(request, club, **url kwargs)``
    renders the regions a game changes (the player page's live figures): they are kept
    apart under the club's live generation and put into the stored page as it is served,
    so a game retires them alone and the page around them stays cached."""

    def decorate(view: ClubView[P]) -> Callable[..., HttpResponse]:
        return _club_page(view, cached=True, member_parts=member_parts, live_parts=live_parts)

    return decorate


def _club_page(
    view: ClubView[P],
    *,
    cached: bool,
    scope: Generation = Generation.PUBLISHED,
    member_parts: MemberParts | None = None,
    live_parts: LiveParts | None = None,
) -> Callable[..., HttpResponse]:
    def wrapper(request: HttpRequest, club: str, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        entry = (
            published_entry(
                request=request, user=request.user, slug=club, variant="page", scope=scope
            )
            if cached
            else None
        )
        # entry is None for a member
        stored, claimed = cached_or_claimed(entry, previous_first=True)

        def built(shared: PublishedEntry | None, *, vouch: bool) -> HttpResponse:
            # Read before the page is built: a game after it retires what is stored under it.
            live_entry = _live_entry(request, club) if cached and live_parts is not None else None
            try:
                return _page_built(
                    request,
                    club,
                    lambda request, found: view(request, found, *args, **kwargs),
                    lambda request: _parts(member_parts, request, club, kwargs),
                    entry=entry,
                    shared=shared,
                    vouch=vouch,
                    live_entry=live_entry,
                )
            finally:
                if claimed and entry is not None:
                    entry.release()

        if stored is not None:
            if live_parts is not None:
                regions, later = _live(live_parts, request, club, kwargs, page_rebuilt=claimed)
                stored.content = with_regions(stored.content, regions)
                if later is not None:
                    after_response(stored, later)
            if claimed:
                # The previous page, answered: this request rebuilds it once it is
                # delivered (before ``later``: the last attached runs first). Its claim
                # vouched for the club already.
                after_response(stored, lambda: built(None, vouch=False))
            return stored
        shared = _members_entry(request, club, scope) if cached else None
        if shared is not None and shared.value is not None:
            parts = _parts(member_parts, request, club, kwargs)
            later = None
            if live_parts is not None:
                regions, later = _live(live_parts, request, club, kwargs)
                parts.update(regions)
            page = member_page(request, shared.value, parts)
            return page if later is None else after_response(page, later)
        return built(shared, vouch=claimed)

    functools.update_wrapper(wrapper, view)
    return wrapper


def _page_built(
    request: HttpRequest,
    club: str,
    render: Callable[[HttpRequest, Club], HttpResponse],
    parts: Callable[[HttpRequest], dict[str, str]],
    *,
    entry: PublishedEntry | None,
    shared: PublishedEntry | None,
    vouch: bool,
    live_entry: PublishedEntry | None,
) -> HttpResponse:
    """The page of a cache miss: the club as the visitor may see it (else the sign-in
    page or the error page), rendered; a 200 stored in ``entry`` (the anonymous page, for
    a signed-in visitor of a public club: ``shared``, then served with their ``parts``); its
    live regions in ``live_entry``. ``vouch``: the request holds the entry's rebuild and
    tells the others once it has read the club (``PublishedEntry.vouch_public``)."""
    try:
        found = club_get_visible(user=request.user, slug=club)
    except NotFoundError as error:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return error_page(request, error)
    if vouch and entry is not None:
        entry.vouch_public(found)
    member = request
    if shared is not None and found.public:
        # The anonymous page, stored for everyone, with the member's parts in it.
        request = copy.copy(member)
        request.user = AnonymousUser()
        entry = shared
    try:
        response = render(request, found)
    except DomainError as error:
        return error_page(member, error)
    if entry is not None and response.status_code == 200 and not response.streaming:
        value = (response.content, response["Content-Type"])
        entry.store(club=found, value=value)
        if live_entry is not None:
            live_entry.store(club=found, value=regions_of(value[0], _LIVE_REGIONS))
        if entry is shared:
            return member_page(member, value, parts(member))
    return response


def _members_entry(request: HttpRequest, slug: str, scope: Generation) -> PublishedEntry | None:
    """The anonymous visitors' entry of this page, for a signed-in visitor (None for
    anyone else, a write, or a message waiting to be shown)."""
    if not request.user.is_authenticated:
        return None
    return published_entry(
        request=request, user=AnonymousUser(), slug=slug, variant="page", scope=scope
    )


# The regions ``live_parts`` render: what a stored page's fresh build gives the live entry.
_LIVE_REGIONS = ("live-figures",)


def _live_entry(request: HttpRequest, slug: str) -> PublishedEntry | None:
    """The entry of this page's live regions: the same for every visitor of a public
    club (they name no member), kept under the club's live generation."""
    return published_entry(
        request=request, user=AnonymousUser(), slug=slug, variant="page-live", scope=Generation.LIVE
    )


def _live(
    live_parts: LiveParts,
    request: HttpRequest,
    slug: str,
    kwargs: dict[str, Any],
    *,
    page_rebuilt: bool = False,
) -> tuple[dict[str, str], Callable[[], object] | None]:
    """The page's live regions, from the cache when no game came since they were built
    (the page around them came from it: the club is public); and the rebuild of them to
    run once the page is delivered (``after_response``) when they are the previous ones,
    answered first (a close retired them), else None. ``page_rebuilt``: the page is
    rebuilt after too, and stores its live regions with it: this rebuild only lets go."""
    entry = _live_entry(request, slug)
    if entry is not None and entry.value is not None:
        return dict(entry.value), None
    # Rebuilt once, as the pages are: a close retires every player page's live regions
    # with the pages, and each request that was shown a stored player page computed them
    # afresh, every web worker at once (the minute after a federation's close).
    served, claimed = rebuilt_once(entry, previous_first=True)

    def rebuilt(*, vouch: bool) -> dict[str, str]:
        try:
            try:
                found = club_get_visible(user=request.user, slug=slug)
                if vouch and entry is not None:
                    entry.vouch_public(found)
                parts = live_parts(request, found, **kwargs)
            except DomainError:
                # The club or player went since the stored page was built (its next read
                # builds it afresh): the page is served as it was stored.
                return {}
            if entry is not None:
                entry.store(club=found, value=parts)
            return parts
        finally:
            if claimed and entry is not None:
                entry.release()

    if served is not None:
        if not claimed or entry is None:
            return dict(served[0]), None
        if page_rebuilt:
            return dict(served[0]), entry.release
        # Its claim vouched for the club already.
        return dict(served[0]), lambda: rebuilt(vouch=False)
    return rebuilt(vouch=claimed), None


def regions_of(content: bytes, names: tuple[str, ...]) -> dict[str, str]:
    """Each region ``<!--name-->...<!--/name-->`` of ``content`` named in ``names``."""
    found: dict[str, str] = {}
    for name in names:
        _, start, rest = content.partition(f"<!--{name}-->".encode())
        inside, end, _ = rest.partition(f"<!--/{name}-->".encode())
        if start and end:
            found[name] = inside.decode()
    return found


def with_regions(content: bytes, parts: dict[str, str]) -> bytes:
    """``content`` with each region ``<!--name-->...<!--/name-->`` named in ``parts``
    replaced by its HTML."""
    for name, html in parts.items():
        start, end = f"<!--{name}-->".encode(), f"<!--/{name}-->".encode()
        head, found, rest = content.partition(start)
        _, found_end, tail = rest.partition(end)
        if found and found_end:
            content = head + start + html.encode() + end + tail
    return content


def _parts(
    member_parts: MemberParts | None, request: HttpRequest, club: str, kwargs: dict[str, Any]
) -> dict[str, str]:
    parts: dict[str, str] = {
        "site-header": str(render_to_string("_site_header.html", request=request))
    }
    if member_parts is not None:
        parts.update(member_parts(request, club=club, **kwargs))
    return parts


def member_page(
    request: HttpRequest, value: tuple[bytes, str], parts: dict[str, str]
) -> HttpResponse:
    """The stored anonymous page with each region ``<!--name-->...<!--/name-->`` named in
    ``parts`` replaced by the member's rendering of it."""
    content, content_type = value
    return HttpResponse(with_regions(content, parts), content_type=content_type)
