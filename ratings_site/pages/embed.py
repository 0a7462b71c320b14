"""Widgets for a club's own website: the top of a list, the live list and a player's card,
each a small page made to sit in an ``iframe`` on the club's site (docs/tasks/embedding.md).

What sets them apart from the other public pages:

- they may be framed, and only by the websites the club's owner lists
  (``Club.embed_origins``): their Content-Security-Policy's ``frame-ancestors`` is this
  site and those origins, and ``X-Frame-Options`` is left off (it cannot name origins);
  every other page keeps ``frame-ancestors 'none'``;
- they are anonymous whoever looks: the cookies a browser sends are dropped before the
  session is read (``ratings_site.middleware.widgets_without_cookies``), so a member's
  session changes nothing and no answer sets a cookie; a private club has no widgets;
- they are kept in the cache of public views like the pages (the list and the card
  under the published generation, the live list under the live one), their headers with
  them, and say ``Cache-Control: public`` for a minute so a club site's visitors and a
  proxy may keep them too.

Their look follows a few query parameters (``WidgetForm``); a bad one answers 400 with the
parameter named, inside the frame, where the site's maintainer sees it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from csp.utils import build_policy
from django import forms
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_safe

from players.errors import DomainError, NotFoundError
from players.http.cache import cached_or_claimed, published_entry
from players.models import Club
from players.selectors import Generation, club_get_visible
from ratings_site.pages.base import published_club_page
from ratings_site.pages.lists import (
    ListFilters,
    closed_period_for_page,
    club_home,
    rating_list_for_page,
    rating_list_page,
)
from ratings_site.pages.live import live_list_page
from ratings_site.pages.player import player_for_page, player_lists

# How long a browser or a proxy may keep a widget: a close shows on the club's site within
# a minute, and a busy club site's visitors cost one request a minute each at most.
WIDGET_MAX_AGE = 60
TOP_DEFAULT = 10
TOP_MAX = 50

Widget = Callable[..., HttpResponse]


class WidgetForm(forms.Form):
    """The documented parameters of every widget (docs/tasks/embedding.md)."""

    theme = forms.ChoiceField(
        choices=[("light", "light"), ("dark", "dark"), ("auto", "auto")],
        required=False,
        error_messages={"invalid_choice": gettext_lazy("Use light, dark or auto.")},
    )
    accent = forms.RegexField(
        regex=r"^(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$",
        required=False,
        error_messages={
            "invalid": gettext_lazy("A colour as 3 or 6 hex digits without #, such as 1a7f37.")
        },
    )
    n = forms.IntegerField(
        min_value=1,
        max_value=TOP_MAX,
        required=False,
        error_messages={
            # Spelled out (TOP_MAX): a lazy text formatted here would be fixed at import.
            "invalid": gettext_lazy("A whole number of rows, 1 to 50."),
            "min_value": gettext_lazy("At least 1 row."),
            "max_value": gettext_lazy("At most 50 rows."),
        },
    )
    header = forms.ChoiceField(
        choices=[("1", "1"), ("0", "0")],
        required=False,
        error_messages={"invalid_choice": gettext_lazy("Use 1 (show the heading) or 0.")},
    )

    def look(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "theme": data["theme"] or "light",
            "accent": data["accent"].lower() if data["accent"] else "",
            "rows": data["n"] or TOP_DEFAULT,
            "header": data["header"] != "0",
        }


def frame_policy(club: Club | None) -> str:
    """The site's Content-Security-Policy with ``frame-ancestors`` opened to this site and
    the club's websites (``None``: no club, framed by nobody)."""
    origins = ["'self'", *club.embed_origins] if club is not None else ["'none'"]
    return str(build_policy(replace={"frame-ancestors": origins}))


def _headers(club: Club | None) -> dict[str, str]:
    return {
        "Content-Security-Policy": frame_policy(club),
        "Cache-Control": f"public, max-age={WIDGET_MAX_AGE}",
    }


def _framable(response: HttpResponse) -> HttpResponse:
    # frame-ancestors says who may frame it; X-Frame-Options could only say "nobody".
    response.xframe_options_exempt = True
    return response


def _error(request: HttpRequest, club: Club | None, status: int, message: str) -> HttpResponse:
    response = render(
        request, "embed/error.html", {"club": club, "message": message}, status=status
    )
    for header, value in _headers(club).items():
        response[header] = value
    return response


def widget(scope: Generation) -> Callable[[Widget], Callable[..., HttpResponse]]:
    """A widget view: ``view(request, club, look, **url kwargs)`` renders it for the club
    (public, found by slug) with the checked parameters; the answer is kept in the cache
    of public views under the club's ``scope`` generation, headers and all."""

    def decorate(view: Widget) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, club: str, **kwargs: Any) -> HttpResponse:
            # The cookies are gone already; a session made some other way changes nothing.
            request.user = AnonymousUser()
            entry = published_entry(
                request=request, user=request.user, slug=club, variant="widget", scope=scope
            )
            stored, claimed = cached_or_claimed(entry)
            if stored is not None:
                return _framable(stored)
            try:
                try:
                    found = club_get_visible(user=None, slug=club)
                except NotFoundError:
                    message = gettext("No public club %(slug)s.") % {"slug": club}
                    return _framable(_error(request, None, 404, message))
                if claimed and entry is not None:
                    entry.vouch_public(found)
                form = WidgetForm(request.GET)
                if not form.is_valid():
                    message = " ".join(
                        f"{name}: {' '.join(map(str, errors))}"
                        for name, errors in form.errors.items()
                    )
                    return _framable(_error(request, found, 400, message))
                try:
                    response = view(request, found, form.look(), **kwargs)
                except DomainError as error:
                    status = 404 if error.status == 404 else 400
                    return _framable(_error(request, found, status, error.message))
                headers = _headers(found)
                for header, value in headers.items():
                    response[header] = value
                if entry is not None and response.status_code == 200:
                    stored_value = (response.content, response["Content-Type"], headers)
                    entry.store(club=found, value=stored_value)
                return _framable(response)
            finally:
                if claimed and entry is not None:
                    entry.release()

        return require_safe(wrapper)

    return decorate


@widget(Generation.PUBLISHED)
def list_widget(request: HttpRequest, club: Club, look: dict[str, Any], kind: str) -> HttpResponse:
    """The top of the list as last published (``n`` rows, ranks over the whole list)."""
    the_list = rating_list_for_page(club=club, kind=kind)
    period = closed_period_for_page(rating_list=the_list, label=None)
    listing = rating_list_page(
        rating_list=the_list, period=period, filters=ListFilters(top=look["rows"])
    )
    return render(
        request,
        "embed/list.html",
        {"club": club, "rating_list": the_list, "listing": listing, "look": look},
    )


@widget(Generation.LIVE)
def live_widget(request: HttpRequest, club: Club, look: dict[str, Any], kind: str) -> HttpResponse:
    """The top of the list's live figures (what the next close would publish)."""
    the_list = rating_list_for_page(club=club, kind=kind)
    listing = live_list_page(rating_list=the_list)
    return render(
        request,
        "embed/live.html",
        {
            "club": club,
            "rating_list": the_list,
            "live": listing.live,
            "rows": listing.rows[: look["rows"]],
            "look": look,
        },
    )


@widget(Generation.PUBLISHED)
def player_widget(
    request: HttpRequest, club: Club, look: dict[str, Any], player_id: int
) -> HttpResponse:
    """A player's card: their published rating on each list, with the last change, the
    peak and the games rated."""
    player = player_for_page(club=club, player_id=player_id)
    lists = player_lists(player=player)
    cards = []
    for standing in lists.standings:
        history = lists.history.get(standing.rating.rating_list_id, [])
        if standing.rating.rating is None and not history:
            continue  # a list the player has not played on: nothing to show
        last = history[-1] if history else None
        cards.append(
            {
                "standing": standing,
                "last": last,
                "rank": None
                if last is None or last.rating_after is None
                else (getattr(last, "above", 0) or 0) + 1,
            }
        )
    return render(
        request,
        "embed/player.html",
        {"club": club, "player": player, "cards": cards, "look": look},
    )


@require_safe
@published_club_page
def embed_help(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's widgets with the line that puts each on a website, and a preview."""
    home = club_home(club=club)
    player = next((s.top[0].player for s in home.lists if s.top), None)
    return render(
        request,
        "pages/embed_help.html",
        {
            "club": club,
            "lists": [s.rating_list for s in home.lists],
            "player": player,
            "site": request.build_absolute_uri("/").rstrip("/"),
        },
    )
