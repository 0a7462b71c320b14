"""Forecasts' pages (docs/tasks/forecasting.md): a tournament's forecast for its entry list
(a table, and the same as CSV for the arbiter) and a player's next game. The figures are
the service's (tournaments.services.forecast: the list's own plan); nothing is computed
here."""

from __future__ import annotations

import csv
import io
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_safe

from players.errors import ConflictError, invalid_field
from players.models import Club
from players.selectors import club_lists, club_players
from players.selectors.names import with_shown_names
from ratings_site.pages.base import club_page, live_club_page
from ratings_site.pages.player import player_for_page
from ratings_site.pages.tournaments import tournament_for_page
from tournaments.services.forecast import (
    GameForecast,
    TournamentForecast,
    next_game_forecast,
    tournament_forecast,
)

# The CSV's columns: one row per entrant and score.
CSV_COLUMNS = (
    "player",
    "name",
    "title",
    "federation",
    "rating",
    "games",
    "expected",
    "k_factor",
    "k_reason",
    "score",
    "wins",
    "draws",
    "losses",
    "rating_after",
    "change",
    "event",
)


def too_many_page(request: HttpRequest, error: ConflictError) -> HttpResponse:
    """409, as the API answers, beyond the entrants a forecast takes (the site's error
    page answers other refusals as 400)."""
    context = {"title": gettext("Too many entrants"), "message": error.message, "status": 409}
    return render(request, "error.html", context, status=409)


@require_safe
@live_club_page
def tournament_forecast_page(request: HttpRequest, club: Club, tournament_id: int) -> HttpResponse:
    """Each entrant's expected score against the field and their change for every score,
    in a round robin of the entry list (409 beyond 100 entrants)."""
    tournament = tournament_for_page(club=club, tournament_id=tournament_id)
    try:
        forecast = tournament_forecast(tournament=tournament)
    except ConflictError as error:
        return too_many_page(request, error)
    return render(
        request,
        "pages/tournament_forecast.html",
        {
            "club": club,
            "tournament": tournament,
            "forecast": forecast,
            "name_order": tournament.rating_list.name_order,
            "scores": [row.score for row in forecast.rows[0][1].scores] if forecast.rows else [],
        },
    )


def forecast_csv(forecast: TournamentForecast) -> str:
    """The arbiter's table: one row per entrant and score, figures as the API gives them
    (English, decimal points, never localized)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entrant, figures in forecast.rows:
        head = [
            entrant.player_id,
            entrant.name,
            entrant.title,
            entrant.federation,
            figures.rating,
            figures.games,
            "" if figures.expected is None else f"{float(figures.expected):.2f}",
            figures.k_factor,
            figures.k_reason,
        ]
        for row in figures.scores:
            tail = [f"{float(row.score):g}", row.wins, row.draws, row.losses]
            writer.writerow([*head, *tail, row.rating_after, row.change, str(row.event)])
    return out.getvalue()


@require_safe
@club_page  # a file, not a page: its name (Content-Disposition) is not kept by the cache
def tournament_forecast_download(
    request: HttpRequest, club: Club, tournament_id: int
) -> HttpResponse:
    """The forecast as CSV (``CSV_COLUMNS``), for the arbiter."""
    tournament = tournament_for_page(club=club, tournament_id=tournament_id)
    try:
        forecast = tournament_forecast(tournament=tournament)
    except ConflictError as error:
        return too_many_page(request, error)
    response = HttpResponse(forecast_csv(forecast), content_type="text/csv; charset=utf-8")
    name = f"{club.slug}-tournament-{tournament.pk}-forecast.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class NextGameForm(forms.Form):
    list = forms.SlugField(label=gettext_lazy("List"), required=False, max_length=32)
    opponent = forms.IntegerField(
        label=gettext_lazy("Opponent"), required=False, min_value=1, max_value=2**63 - 1
    )


def _next_game(club: Club, player_id: int, data: dict[str, Any]) -> dict[str, Any]:
    player = player_for_page(club=club, player_id=player_id)
    lists = list(club_lists(club=club).order_by("id"))
    slug = data.get("list") or (lists[0].slug if lists else "")
    rating_list = next((rl for rl in lists if rl.slug == slug), None)
    if rating_list is None:
        raise invalid_field(
            "list",
            gettext("%(club)s has no list %(slug)s.")
            % {
                "club": club.name,
                "slug": slug,
            },
        )
    rating_list.club = club
    opponents = with_shown_names(
        list(
            club_players(club=club)
            .exclude(pk=player.pk)
            .order_by("name", "id")
            .only("id", "name", "club_id")
        )
    )
    game: GameForecast | None = None
    if data.get("opponent") is not None:
        game = next_game_forecast(
            rating_list=rating_list, player=player, opponent_id=data["opponent"]
        )
    return {
        "player": player,
        "lists": lists,
        "rating_list": rating_list,
        "opponents": opponents,
        "game": game,
        "rows": [] if game is None else list(reversed(game.forecast.scores)),
    }


@require_safe
@club_page
def next_game_page(request: HttpRequest, club: Club, player_id: int) -> HttpResponse:
    """The player's next game against an opponent picked from the club's players: the
    expected score and the change for a win, a draw and a loss (not cached: it is today's)."""
    form = NextGameForm(request.GET)
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise invalid_field(field, str(errors[0]))
    context = _next_game(club, player_id, form.cleaned_data)
    return render(
        request,
        "pages/next_game.html",
        {"club": club, "form": form, "name_order": context["rating_list"].name_order, **context},
    )
