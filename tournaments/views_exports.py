"""Downloads: a published list (CSV, TXT), a player's history (CSV), a tournament (TRF, PGN).

Scoped like the public pages: the club comes through ``club_get_visible``, so a private
club's files need a signed-in member and answer 404 to anyone else. The files are built by
tournaments.exports; these views only deliver them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_safe

from players.errors import DomainError, NotFoundError
from players.http.cache import (
    PublishedEntry,
    after_response,
    cached_or_claimed,
    published_entry,
)
from players.models import Club
from players.selectors import club_get_visible, club_players, rating_list_get
from tournaments.exports import (
    export_period,
    history_csv,
    list_export,
    tournament_pgn,
    tournament_trf,
)
from tournaments.selectors import tournament_in_club

_CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "trf": "text/plain; charset=utf-8",
    "pgn": "application/x-chess-pgn; charset=utf-8",
}


def _download(text: str, filename: str, kind: str) -> HttpResponse:
    response = HttpResponse(text, content_type=_CONTENT_TYPES[kind])
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def machine_format(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Files are read by programs: never in the browser's language (no translated words,
    no decimal commas), whatever Accept-Language the download came with."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        with translation.override(None):
            return view(request, *args, **kwargs)

    return wrapper


def _club(request: HttpRequest, slug: str) -> Club:
    try:
        return club_get_visible(user=request.user, slug=slug)
    except NotFoundError as error:
        raise Http404(error.message) from None


def _published(
    request: HttpRequest, slug: str, answer: Callable[[Club], HttpResponse]
) -> HttpResponse:
    """``answer(club)``, or its bytes from the cache of public views (players.http.cache),
    as the published list's CSV of the API is: an anonymous visitor of a public club is
    given the stored file of the club's current generation (read before the club is: a
    club made private or changed has a new generation, and a private club's file is never
    stored), and after a change one request rebuilds it while the others get the previous
    one, marked, or wait for it. Signed-in members get the file afresh."""
    entry = published_entry(request=request, user=request.user, slug=slug, variant="download")
    stored, claimed = cached_or_claimed(entry, previous_first=True)
    if stored is not None and claimed and entry is not None:
        # The previous file, answered: this request makes the new one once it is delivered.
        return after_response(stored, lambda: _kept(request, slug, entry, answer))
    if stored is not None:
        return stored
    try:
        the_club = _club(request, slug)
        if claimed and entry is not None:
            entry.vouch_public(the_club)
        response = answer(the_club)
        if entry is not None and response.status_code == 200:
            _store(entry, the_club, response)
        return response
    finally:
        if claimed and entry is not None:
            entry.release()


def _store(entry: PublishedEntry, the_club: Club, response: HttpResponse) -> None:
    headers = {"Content-Disposition": response["Content-Disposition"]}
    entry.store(club=the_club, value=(response.content, response["Content-Type"], headers))


def _kept(
    request: HttpRequest,
    slug: str,
    entry: PublishedEntry,
    answer: Callable[[Club], HttpResponse],
) -> None:
    """``answer(club)`` stored in ``entry``, whose rebuild is then released."""
    try:
        the_club = _club(request, slug)
        response = answer(the_club)
        if response.status_code == 200:
            _store(entry, the_club, response)
    finally:
        entry.release()


@require_safe
@machine_format
def list_download(request: HttpRequest, club: str, list: str, format: str) -> HttpResponse:
    """``?period=YYYY-MM`` picks a closed period; the default is the latest published list.
    Served from the cache of public views (``_published``)."""
    return _published(request, club, lambda the_club: _list_file(request, the_club, list, format))


def _list_file(request: HttpRequest, the_club: Club, list: str, format: str) -> HttpResponse:
    try:
        rating_list = rating_list_get(club=the_club, kind=list)
        period = export_period(rating_list=rating_list, month=request.GET.get("period"))
        text = list_export(rating_list=rating_list, period=period, format=format)
    except NotFoundError as error:
        raise Http404(error.message) from None
    except DomainError as error:
        return HttpResponse(error.message, status=error.status, content_type="text/plain")
    return _download(text, f"{the_club.slug}-{list}-{period.label}.{format}", format)


@require_safe
@machine_format
def player_history_download(request: HttpRequest, club: str, id: int) -> HttpResponse:
    the_club = _club(request, club)
    player = club_players(club=the_club).filter(pk=id).first()
    if player is None:
        raise Http404("No such player in this club.")
    return _download(history_csv(player=player), f"{the_club.slug}-player-{id}-history.csv", "csv")


@require_safe
@machine_format
def tournament_download(
    request: HttpRequest, club: str, id: int, format: str = "trf"
) -> HttpResponse:
    """The tournament as TRF16 (``export.trf``) or PGN headers (``export.pgn``)."""
    the_club = _club(request, club)
    tournament = tournament_in_club(club=the_club, tournament_id=id).first()
    if tournament is None:
        raise Http404("No such tournament in this club.")
    try:
        if format == "pgn":
            text = tournament_pgn(tournament=tournament)
        else:
            text = tournament_trf(tournament=tournament)
    except DomainError as error:
        return HttpResponse(error.message, status=error.status, content_type="text/plain")
    return _download(text, f"{the_club.slug}-tournament-{id}.{format}", format)
