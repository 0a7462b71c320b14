"""HTML pages of the players app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from players.api.calculator import run_calculation
from players.forms import CalculatorForm, GameFormSet, calculation_data

# What the page opens with, as if posted: the seeds' default example, 1500 at K 20 beating
# a 1700 player. Opening with a worked result shows at once what the page does.
DEFAULT_INPUT = {
    "rating": "1500",
    "k_choice": "20",
    "expected_score": "fide_table",
    "rating_list": "standard",
    "apply_400_rule": "on",
    "games-TOTAL_FORMS": "1",
    "games-INITIAL_FORMS": "0",
    "games-0-opponent_rating": "1700",
    "games-0-result": "1",
}


@require_http_methods(["GET", "POST"])
def calculator(request: HttpRequest) -> HttpResponse:
    """The calculator for people. Works as a plain form post; with JavaScript the page posts
    the same form in the background and swaps in the result fragment this view renders."""
    data = request.POST if request.method == "POST" else DEFAULT_INPUT
    form = CalculatorForm(data)
    games = GameFormSet(data, prefix="games")
    valid = form.is_valid() and games.is_valid()
    result = run_calculation(calculation_data(form, games)) if valid else None
    if "add_game" in data:
        # No-JavaScript "add a game": the same rows plus an empty one.
        rows = [g.cleaned_data if g.is_valid() else {} for g in games.forms]
        games = GameFormSet(initial=[*rows, {"result": "1"}], prefix="games")
    fragment = request.headers.get("X-Fragment") == "result"
    template = "players/_calculator_result.html" if fragment else "players/calculator.html"
    status = 200 if valid else 400
    return render(
        request, template, {"form": form, "games": games, "result": result}, status=status
    )
