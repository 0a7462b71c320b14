"""HTML pages of the tournaments app: the period report."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from players.models import Club
from players.selectors_pages import closed_period_for_page, rating_list_for_page
from ratings_site.pages import club_page
from tournaments.selectors_pages import period_report as period_report_data


@require_safe
@club_page
def period_report(request: HttpRequest, club: Club, kind: str, month: str) -> HttpResponse:
    """What one closed period did to the list."""
    the_list = rating_list_for_page(club=club, kind=kind)
    period = closed_period_for_page(rating_list=the_list, label=month)
    assert period is not None  # a label always names one period or raises
    return render(
        request,
        "tournaments/period_report.html",
        {"club": club, "rating_list": the_list, "report": period_report_data(period=period)},
    )
