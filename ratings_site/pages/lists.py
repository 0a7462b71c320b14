"""Read helpers for the public pages: clubs, a club's home, a rating list, the search
(the player page's: player.py).

Shaped for the pages (ranks, filters, page windows); the tracker's own reads stay in
players/selectors/. Every helper costs a fixed number of queries whatever the number of players:
rows come in with ``select_related``/``values`` and are shaped in Python, never fetched
one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.utils.translation import gettext

from players.errors import NotFoundError
from players.models import (
    Club,
    Player,
    RatingChange,
    RatingList,
    RatingPeriod,
    Sex,
    inactive_cutoff,
    list_kind_values,
)
from players.rating import categories as engine_categories
from players.selectors import (
    User,
    closed_periods,
    club_lists,
    clubs_visible_to,
    parse_month,
    players_in_clubs,
    published_rows,
    rating_histogram,
    with_inactive,
    with_rules_rated_under,
)
from tournaments.models import Tournament
from tournaments.selectors import club_tournaments

LIST_PAGE_SIZE = 100
TOP_PLAYERS = 10
RECENT_TOURNAMENTS = 8
# FIDE 8.3.3: a junior is at most 18 in the year of the period (the same test the K rule uses).
JUNIOR_MAX_AGE = 18


def kind_order(kind: str) -> int:
    """Where a list of ``kind`` comes among the club's lists: the kinds' order (standard
    first), a kind no longer registered last."""
    kinds = list_kind_values()
    return kinds.index(kind) if kind in kinds else len(kinds)


# -- clubs --------------------------------------------------------------------------------


def clubs_for_index(*, user: User | None) -> QuerySet[Club]:
    """The clubs ``user`` may see, each with ``players_count``: one query."""
    return clubs_visible_to(user).annotate(players_count=Count("players")).order_by("name", "id")


@dataclass(frozen=True)
class ListSummary:
    rating_list: RatingList
    latest: RatingPeriod | None
    rated_players: int
    top: Sequence[RatingChange]

    @property
    def kind_label(self) -> str:
        return self.rating_list.label


@dataclass(frozen=True)
class ClubHome:
    club: Club
    lists: list[ListSummary]
    tournaments: Sequence[Tournament]


def club_home(*, club: Club) -> ClubHome:
    """The club's lists with their latest closed period, its size and top players, and
    the latest tournaments. 2 + (one per list, at most three) queries."""
    latest = closed_periods(rating_list=OuterRef("pk"))
    lists = sorted(
        club_lists(club=club).annotate(
            latest_id=Subquery(latest.values("id")[:1]),
            latest_month=Subquery(latest.values("month")[:1]),
        ),
        key=lambda rl: kind_order(rl.kind),
    )
    summaries: list[ListSummary] = []
    for rating_list in lists:
        latest_id = rating_list.latest_id
        if latest_id is None:
            summaries.append(ListSummary(rating_list, None, 0, []))
            continue
        period = RatingPeriod(
            id=latest_id,
            rating_list=rating_list,
            month=rating_list.latest_month,
            status=RatingPeriod.Status.CLOSED,
        )
        rows = list(
            published_rows(period_id=latest_id)
            .select_related("player")
            .only(
                "rating_after",
                "change",
                "event",
                "player__id",
                "player__name",
                "player__title",
            )
            .annotate(total=Subquery(_rated_count(latest_id)))
            .order_by("-rating_after", "player__name", "player_id")[:TOP_PLAYERS]
        )
        total = rows[0].total if rows else 0
        summaries.append(ListSummary(rating_list, period, total or 0, rows))
    # No games count: counting a big club's tournaments' games costs more than the rest
    # of the page; the rounds say how long each event was.
    tournaments = list(club_tournaments(club=club)[:RECENT_TOURNAMENTS])
    return ClubHome(club, summaries, tournaments)


def _rated_count(period_id: int) -> QuerySet[Any, Any]:
    # The list's size rides along with its top rows: one query per list, not two.
    return (
        published_rows(period_id=period_id)
        .order_by()
        .values("period_id")
        .annotate(n=Count("id"))
        .values("n")
    )


def rating_list_for_page(*, club: Club, kind: str) -> RatingList:
    rating_list = club_lists(club=club).filter(slug=kind).first()
    if rating_list is None:
        raise NotFoundError(
            gettext("%(club)s keeps no %(kind)s list.") % {"club": club.name, "kind": kind}
        )
    rating_list.club = club
    return rating_list


def closed_period_for_page(*, rating_list: RatingList, label: str | None) -> RatingPeriod | None:
    """The closed period named ``YYYY-MM`` (ValidationFailed when malformed, NotFoundError
    when the list has no such closed period); None means the latest, or None if none."""
    # The rules it was rated under come in the same query (rules_rated_under).
    periods = with_rules_rated_under(closed_periods(rating_list=rating_list))
    if label is None or label == "":
        return periods.first()
    month = parse_month(label)
    period = periods.filter(month=month).first()
    if period is None:
        raise NotFoundError(
            gettext(
                "The %(kind)s list has no closed period %(month)s; pick one of the published lists."
            )
            % {"kind": rating_list.label, "month": f"{month:%Y-%m}"}
        )
    return period


# -- the rating list ----------------------------------------------------------------------


@dataclass(frozen=True)
class ListFilters:
    q: str = ""
    title: str = ""
    junior: bool = False
    active: bool = False
    category: str = ""
    women: bool = False
    federation: str = ""
    top: int | None = None
    sort: str = ""

    @property
    def any(self) -> bool:
        return bool(
            self.q
            or self.title
            or self.junior
            or self.active
            or self.category
            or self.women
            or self.federation
            or self.top
        )


# Column -> the ORM order (descending first where "highest first" is the natural reading).
_ORDERS: dict[str, tuple[str, ...]] = {
    "rank": ("-rating_after", "player_id"),
    "rating": ("-rating_after", "player_id"),
    "name": ("player__name", "player_id"),
    "change": ("-change", "-rating_after", "player_id"),
    "games": ("-games", "-rating_after", "player_id"),
}


def _order(sort: str) -> list[str]:
    """``sort`` (``name``, ``-rating``...) -> ORDER BY; ``-`` reverses the column's order."""
    column = sort.removeprefix("-") or "rank"
    fields = _ORDERS.get(column, _ORDERS["rank"])
    if not sort.startswith("-"):
        return list(fields)
    return [f.removeprefix("-") if f.startswith("-") else f"-{f}" for f in fields]


@dataclass
class RankedRow:
    rank: int
    row: RatingChange


@dataclass
class ListPage:
    rating_list: RatingList
    period: RatingPeriod | None
    periods: list[RatingPeriod]
    filters: ListFilters
    page: Page[Any] | None
    rows: list[RankedRow] = field(default_factory=list)
    total: int = 0


def _filtered(
    listed: QuerySet[RatingChange], filters: ListFilters, period: RatingPeriod
) -> QuerySet[RatingChange]:
    rows = listed
    if filters.q:
        rows = rows.filter(player__name__icontains=filters.q)
    if filters.title == "titled":
        rows = rows.exclude(player__title="")
    elif filters.title:
        rows = rows.filter(player__title=filters.title)
    year = period.month.year
    if filters.junior:
        rows = rows.filter(player__birth_year__gte=year - JUNIOR_MAX_AGE)
    if filters.category:
        earliest, latest = engine_categories.age_category(filters.category).birth_years(year)
        if earliest is not None:
            rows = rows.filter(player__birth_year__gte=earliest)
        if latest is not None:
            rows = rows.filter(player__birth_year__lte=latest)
    if filters.women:
        rows = rows.filter(player__sex=Sex.FEMALE)
    if filters.federation:
        rows = rows.filter(player__federation=filters.federation)
    rows = with_inactive(rows, period=period)
    if filters.active:
        # Active: played a rated game on the list in the last 12 months (FIDE), and not
        # marked inactive by the club.
        rows = rows.filter(player__active=True).exclude(
            last_active_month__lte=inactive_cutoff(period.month)
        )
    return rows


def rating_list_page(
    *,
    rating_list: RatingList,
    period: RatingPeriod | None,
    filters: ListFilters,
    page_number: str | int | None = 1,
) -> ListPage:
    """One page of the list published after ``period``: ranks over the whole list (a
    search or a category keeps each player's place), a page of rows with the player
    joined in, in the order asked for (default: rank).

    Four or five queries: periods, the ratings' histogram (ranks), count, page rows.
    """
    periods = list(closed_periods(rating_list=rating_list).only("id", "month", "status"))
    if period is None:
        return ListPage(rating_list, None, periods, filters, None)
    listed = published_rows(period=period)
    # The ranks as a histogram of the ratings (kept in the cache: rating_histograms).
    histogram = rating_histogram(period=period)
    above: dict[int, int] = {}
    running = 0
    for rating, count in histogram:
        above[rating] = running
        running += count
    rows = (
        _filtered(listed, filters, period)
        .select_related("player")
        .only(
            "rating_after",
            "rating_before",
            "change",
            "k_factor",
            "k_reason",
            "state_after",
            "games",
            "rated_games_after",
            "event",
            "player__id",
            "player__name",
            "player__title",
            "player__federation",
            "player__birth_year",
            "player__active",
        )
    )
    if filters.top:
        # Top N: the N best of what the filters left, then in the order asked for.
        best = rows.order_by(*_order("rank"))[: filters.top].values("id")
        rows = rows.filter(id__in=Subquery(best))
    rows = rows.order_by(*_order(filters.sort))
    if filters.any or filters.sort not in ("", "rank", "rating"):
        page = Paginator(rows, LIST_PAGE_SIZE).get_page(page_number)
    else:
        page = _whole_list_page(rows, histogram, above, running, page_number)
    # Standard competition ranking (1, 2, 2, 4): one place per higher rating on the list.
    ranked = [RankedRow(above[cast(int, row.rating_after)] + 1, row) for row in page]
    return ListPage(rating_list, period, periods, filters, page, ranked, running)


class _CountedPaginator(Paginator):  # type: ignore[type-arg]
    """A paginator told its count (the histogram's total) instead of counting again."""

    def __init__(self, object_list: Any, per_page: int, count: int) -> None:
        super().__init__(object_list, per_page)
        self._known_count = count

    @property
    def count(self) -> int:
        return self._known_count


def _whole_list_page(
    rows: QuerySet[RatingChange],
    histogram: list[tuple[int, int]],
    above: dict[int, int],
    total: int,
    page_number: str | int | None,
) -> Page[Any]:
    """A page of the whole list in rank order without OFFSET over the rows before it.

    The histogram says which rating the page's first row has and how many rows of that
    rating come before it, so the query starts at that rating on the (period, current,
    rating_after) index and skips only the few rows of equal rating: the middle and the
    last page of a 200,000-player list cost what the first does.
    """
    paginator = _CountedPaginator(rows, LIST_PAGE_SIZE, total)
    # As Paginator.get_page: not a number -> the first page, beyond the end -> the last.
    try:
        number = paginator.validate_number(1 if page_number is None else page_number)
    except PageNotAnInteger:
        number = 1
    except EmptyPage:
        number = paginator.num_pages
    offset = (number - 1) * LIST_PAGE_SIZE
    start_rating = next(
        (rating for rating, count in histogram if above[rating] + count > offset), None
    )
    if start_rating is None:
        return Page([], number, paginator)
    skip = offset - above[start_rating]
    chosen = list(rows.filter(rating_after__lte=start_rating)[skip : skip + LIST_PAGE_SIZE])
    return Page(chosen, number, paginator)


# -- the site-wide search ------------------------------------------------------------------

SEARCH_LIMIT = 50


def players_search(*, user: User | None, q: str) -> list[Player]:
    """Players whose name contains ``q``, in every club ``user`` may see (public clubs and
    their own): at most SEARCH_LIMIT, by name; one query."""
    if not q:
        return []
    return list(
        players_in_clubs(clubs=clubs_visible_to(user))
        .filter(name__icontains=q)
        .select_related("club")
        .only("id", "name", "title", "federation", "birth_year", "club__slug", "club__name")
        .order_by("name", "club__name", "id")[:SEARCH_LIMIT]
    )
