"""HTML pages of the players app: the calculator and the public club pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_safe

from players.api.calculator import run_calculation
from players.api.calculator_glicko2 import run_glicko2
from players.charts import PHONE, history_chart
from players.errors import ValidationFailed
from players.models import Club, Player
from players.selectors import claim_choice, club_players, membership_role, rules_rated_under
from players.selectors.names import with_shown_names
from ratings_site.pages.base import (
    error_page,
    live_club_page,
    published_club_page,
    with_member_parts,
)
from ratings_site.pages.calculator_systems import SystemCalculatorForm, calculate, system_choices
from ratings_site.pages.forms import (
    LIST_FILTERS,
    CalculatorForm,
    GameFormSet,
    Glicko2Form,
    Glicko2GameFormSet,
    ListFilterForm,
    PlayerSearchForm,
    calculation_data,
    field_errors,
    glicko2_data,
    sort_links,
)
from ratings_site.pages.games import period_report as period_report_data
from ratings_site.pages.games import player_games
from ratings_site.pages.headtohead import head_to_head
from ratings_site.pages.lists import (
    JUNIOR_MAX_AGE,
    ListFilters,
    closed_period_for_page,
    clubs_for_index,
    players_search,
    rating_list_for_page,
    rating_list_page,
)
from ratings_site.pages.lists import club_home as club_home_data
from ratings_site.pages.live import live_details, live_list_page
from ratings_site.pages.player import player_for_page, player_lists, player_rating_lists
from ratings_site.pages.statistics import statistics_charts
from ratings_site.pages.tournaments import tournament_for_page, tournament_view, tournaments_page
from tournaments.statistics import list_statistics as list_statistics_data
from tournaments.statistics import period_medians

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


# A calculation writes nothing, so its form needs no CSRF token: without one the page is
# the same for every visitor (and HEAD answers as GET does).
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
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
    template = "pages/_calculator_result.html" if fragment else "pages/calculator.html"
    status = 200 if valid else 400
    context = {
        "form": form,
        "games": games,
        "result": result,
        "field_errors": [] if valid else field_errors(form, games),
    }
    return render(request, template, context, status=status)


GLICKO2_INPUT = {
    "rating": "1500",
    "rd": "200",
    "volatility": "0.06",
    "tau": "0.5",
    "games-TOTAL_FORMS": "3",
    "games-INITIAL_FORMS": "0",
    "games-0-opponent_rating": "1400",
    "games-0-opponent_rd": "30",
    "games-0-result": "1",
    "games-1-opponent_rating": "1550",
    "games-1-opponent_rd": "100",
    "games-1-result": "0",
    "games-2-opponent_rating": "1700",
    "games-2-opponent_rd": "300",
    "games-2-result": "0",
}


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def calculator_glicko2(request: HttpRequest) -> HttpResponse:
    """The calculator's Glicko-2 mode: one player's rating period with each opponent's
    rating and RD (a plain form post; opens on Glickman's worked example)."""
    data = request.POST if request.method == "POST" else GLICKO2_INPUT
    form = Glicko2Form(data)
    games = Glicko2GameFormSet(data, prefix="games")
    valid = form.is_valid() and games.is_valid()
    body = run_glicko2(glicko2_data(form, games)) if valid else None
    if "add_game" in data:
        rows = [g.cleaned_data if g.is_valid() else {} for g in games.forms]
        games = Glicko2GameFormSet(initial=[*rows, {"opponent_rd": 350}], prefix="games")
    return render(
        request,
        "pages/calculator_glicko2.html",
        {"form": form, "games": games, "result": body},
        status=200 if valid else 400,
    )


SYSTEMS_INPUT = {
    "rating": "1500",
    "games-TOTAL_FORMS": "2",
    "games-INITIAL_FORMS": "0",
    "games-0-opponent_rating": "1600",
    "games-0-result": "1",
    "games-1-opponent_rating": "1450",
    "games-1-result": "0.5",
}


@require_safe
def calculator_systems(request: HttpRequest) -> HttpResponse:
    """The calculator's "every system" mode: one month under any system of the registry
    (a GET form: it writes nothing, and a result has an address to share)."""
    data = request.GET if "system" in request.GET else None
    form = SystemCalculatorForm(data or {**SYSTEMS_INPUT, "system": system_choices()[0][0]})
    games = GameFormSet(data or SYSTEMS_INPUT, prefix="games")
    valid = form.is_valid() and games.is_valid()
    result = calculate(form, games) if valid else None
    if data is not None and "add_game" in data:
        rows = [g.cleaned_data if g.is_valid() else {} for g in games.forms]
        games = GameFormSet(initial=[*rows, {"result": "1"}], prefix="games")
    return render(
        request,
        "pages/calculator_systems.html",
        {"form": form, "games": games, "result": result},
        status=200 if valid else 400,
    )


# -- public club pages --------------------------------------------------------------------


@require_safe
def clubs_index(request: HttpRequest) -> HttpResponse:
    """The clubs the visitor may see (public ones, plus their own)."""
    clubs = list(clubs_for_index(user=request.user))
    return render(request, "pages/clubs.html", {"clubs": clubs})


@require_safe
@published_club_page
def club_home(request: HttpRequest, club: Club) -> HttpResponse:
    return render(
        request, "pages/club_home.html", {"club": club, "home": club_home_data(club=club)}
    )


@require_safe
@published_club_page
def rating_list(request: HttpRequest, club: Club, kind: str) -> HttpResponse:
    """The list published after a closed period (``?period=YYYY-MM``, default the latest),
    ranked, searchable and filterable, a page of LIST_PAGE_SIZE players at a time."""
    the_list = rating_list_for_page(club=club, kind=kind)
    period = closed_period_for_page(rating_list=the_list, label=request.GET.get("period"))
    form = ListFilterForm(request.GET)
    if not form.is_valid():
        raise ValidationFailed(
            gettext("The filters are not valid: %(errors)s")
            % {
                "errors": "; ".join(
                    f"{name}: {' '.join(str(e) for e in errors)}"
                    for name, errors in form.errors.items()
                )
            }
        )
    filters = ListFilters(**{name: form.cleaned_data[name] for name in LIST_FILTERS})
    listing = rating_list_page(
        rating_list=the_list, period=period, filters=filters, page_number=request.GET.get("page")
    )
    keep = request.GET.copy()
    keep.pop("page", None)
    return render(
        request,
        "pages/rating_list.html",
        {
            "club": club,
            "rating_list": the_list,
            "listing": listing,
            "form": form,
            "query_without_page": keep.urlencode(),
            "sort_links": sort_links(request.GET, filters.sort),
            "junior_year": period.month.year - JUNIOR_MAX_AGE if period else None,
            # Which rules the period was rated under (FIDE's by the month, Glicko-2, Elo),
            # as its run recorded them: the list's rules may have changed since.
            "rules": rules_rated_under(period) if period else "",
        },
    )


def _player_member_parts(request: HttpRequest, *, club: str, player_id: int) -> dict[str, str]:
    """The player page's part for a signed-in visitor, around the stored public page: the
    link to the member's account (two small queries: the player's account, the role) or
    the "this is me" button of a member without a record (three more)."""
    player = club_players(club=club).select_related("user", "club").filter(pk=player_id)
    found = player.first()
    context: dict[str, object] = {}
    if found is not None:
        context = {"player": found, "club": found.club, **_member_link(request, found.club, found)}
    html = render_to_string("pages/_member_link.html", context, request=request)
    return {"member-link": html}


@require_safe
@live_club_page
def rating_list_live(request: HttpRequest, club: Club, kind: str) -> HttpResponse:
    """The list's live view: what the next close would publish for the games entered so
    far (the close's preview), ranked by live rating, marked as not published."""
    the_list = rating_list_for_page(club=club, kind=kind)
    form = PlayerSearchForm(request.GET)
    if not form.is_valid():
        raise ValidationFailed(f"q: {form.errors['q'][0]}")
    q = form.cleaned_data["q"]
    listing = live_list_page(rating_list=the_list, q=q, page_number=request.GET.get("page"))
    keep = request.GET.copy()
    keep.pop("page", None)
    return render(
        request,
        "pages/rating_list_live.html",
        {
            "club": club,
            "rating_list": the_list,
            "listing": listing,
            "q": q,
            "query_without_page": keep.urlencode(),
        },
    )


def _player_live_parts(request: HttpRequest, club: Club, *, player_id: int) -> dict[str, str]:
    """The player page's live figures, apart from the published page around them: a game
    changes them alone (ratings_site/pages/base.py: ``live_parts``)."""
    player = player_for_page(club=club, player_id=player_id)
    live = live_details(club=club, player=player, lists=player_rating_lists(player=player))
    html = render_to_string(
        "pages/_player_live.html", {"club": club, "player": player, "live": live}, request=request
    )
    return {"live-figures": html}


@require_safe
@with_member_parts(_player_member_parts, live_parts=_player_live_parts)
def player_detail(request: HttpRequest, club: Club, player_id: int) -> HttpResponse:
    player = player_for_page(club=club, player_id=player_id)
    lists = player_lists(player=player)
    games = player_games(player=player, lists=lists.lists, history=lists.history)
    # The list's median in each period the player was on it: the comparison line.
    medians = period_medians(periods=[c.period for h in lists.history.values() for c in h])
    sections = []
    for standing in lists.standings:
        list_id = standing.rating.rating_list_id
        history = lists.history.get(list_id, [])
        if not history and standing.rating.rating is None:
            continue
        series = [(c.period.label, c.rating_after) for c in history if c.rating_after is not None]
        # The band the list's system shows around the rating (Glicko-2: two RDs).
        spread_of = standing.system.spread_of
        spread = {
            c.period.label: band for c in history if (band := spread_of(c.state_after)) is not None
        }
        median = {c.period.label: medians[c.period_id] for c in history if c.period_id in medians}
        sections.append(
            {
                "standing": standing,
                "history": [
                    (change, games.periods.get(change.period_id)) for change in reversed(history)
                ],
                "chart": history_chart(series, spread=spread, median=median),
                "phone_chart": history_chart(series, spread=spread, size=PHONE, median=median),
                "medians": [(label, rating, median.get(label)) for label, rating in series],
                "k_history": lists.k_history.get(list_id, []),
            }
        )
    return render(
        request,
        "pages/player.html",
        {
            "club": club,
            "player": player,
            "standings": lists.standings,
            "sections": sections,
            "events": games.events,
            **_member_link(request, club, player),
            # Not published: what the next close would publish for the games so far.
            "live": live_details(club=club, player=player, lists=lists.lists),
        },
    )


def _member_link(request: HttpRequest, club: Club, player: Player) -> dict[str, str]:
    """The member-link part's context: whose record this is, and whether the visitor may
    claim it ("this is me") or has claimed it already."""
    return {
        "member": _linked_member(request, club, player),
        "claim": claim_choice(user=request.user, player=player),
    }


def _linked_member(request: HttpRequest, club: Club, player: Player) -> str:
    """Whose record this is: "you" for the member themself, the username for the club's
    members (members are personal data: nobody else is told)."""
    if player.user is None or not request.user.is_authenticated:
        return ""
    if player.user_id == request.user.pk:
        return "you"
    return player.user.get_username() if membership_role(request.user, club) else ""


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The front page lists the clubs the visitor may see, like /clubs/."""
    return render(request, "home.html", {"clubs": list(clubs_for_index(user=request.user))})


@require_safe
@published_club_page
def period_report(request: HttpRequest, club: Club, kind: str, month: str) -> HttpResponse:
    """What one closed period did to the list."""
    the_list = rating_list_for_page(club=club, kind=kind)
    period = closed_period_for_page(rating_list=the_list, label=month)
    assert period is not None  # a label always names one period or raises
    return render(
        request,
        "pages/period_report.html",
        {"club": club, "rating_list": the_list, "report": period_report_data(period=period)},
    )


@require_safe
@published_club_page
def list_statistics(request: HttpRequest, club: Club, kind: str) -> HttpResponse:
    """The list in force in figures: its distribution and rating classes, activity by
    month, the year's climbers and the most played pairings (published figures only:
    kept under the published generation)."""
    the_list = rating_list_for_page(club=club, kind=kind)
    stats = list_statistics_data(rating_list=the_list)
    return render(
        request,
        "pages/list_statistics.html",
        {"club": club, "rating_list": the_list, "stats": stats, **statistics_charts(stats)},
    )


@require_safe
@live_club_page
def tournaments_index(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's tournaments, newest first, a page at a time."""
    page = tournaments_page(club=club, page_number=request.GET.get("page"))
    return render(request, "pages/tournaments.html", {"club": club, "page": page})


@require_safe
@live_club_page
def tournament_detail(request: HttpRequest, club: Club, tournament_id: int) -> HttpResponse:
    """One tournament: standings with FIDE's tie-breaks, the crosstable, downloads; a
    page of players at a time (``?page=``)."""
    tournament = tournament_for_page(club=club, tournament_id=tournament_id)
    return render(
        request,
        "pages/tournament.html",
        {
            "club": club,
            "view": tournament_view(tournament=tournament, page_number=request.GET.get("page")),
        },
    )


@require_safe
@live_club_page
def head_to_head_page(
    request: HttpRequest, club: Club, player_id: int, opponent_id: int
) -> HttpResponse:
    """Two players' games against each other: score, games by date, expected and actual."""
    meeting = head_to_head(club=club, player_id=player_id, opponent_id=opponent_id)
    return render(request, "pages/head_to_head.html", {"club": club, "h2h": meeting})


@require_safe
def player_search(request: HttpRequest) -> HttpResponse:
    """Players by name across every club the visitor may see."""
    form = PlayerSearchForm(request.GET)
    if not form.is_valid():
        return error_page(request, ValidationFailed(f"q: {form.errors['q'][0]}"))
    q = form.cleaned_data["q"]
    found = with_shown_names(players_search(user=request.user, q=q))
    return render(request, "pages/player_search.html", {"form": form, "q": q, "players": found})
