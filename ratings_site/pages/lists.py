"""Read helpers for the public pages: clubs, a club's home, a rating list, a player.

Shaped for the pages (ranks, filters, page windows); the tracker's own reads stay in
players/selectors.py. Every helper costs a fixed number of queries whatever the number of players:
rows come in with ``select_related``/``values`` and are shaped in Python, never fetched
one by one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.paginator import Page, Paginator
from django.db.models import Count, OuterRef, QuerySet, Subquery

from players import rating as engine
from players.errors import NotFoundError
from players.models import (
    Club,
    KFactorChange,
    KReason,
    ListKind,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    inactive_cutoff,
)
from players.rating.rounding import round_half_away
from players.selectors import User, clubs_visible_to, parse_month, with_inactive
from tournaments.models import Tournament

LIST_PAGE_SIZE = 100
TOP_PLAYERS = 10
RECENT_TOURNAMENTS = 8
# FIDE 8.3.3: a junior is at most 18 in the year of the period (the same test the K rule uses).
JUNIOR_MAX_AGE = 18

_KIND_ORDER = {kind: index for index, kind in enumerate(ListKind.values)}


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


def closed_periods_query(rating_list: RatingList) -> QuerySet[RatingPeriod]:
    return RatingPeriod.objects.filter(
        rating_list=rating_list, status=RatingPeriod.Status.CLOSED
    ).order_by("-month")


def club_home(*, club: Club) -> ClubHome:
    """The club's lists with their latest closed period, its size and top players, and
    the latest tournaments. 2 + (one per list, at most three) queries."""
    latest = RatingPeriod.objects.filter(
        rating_list=OuterRef("pk"), status=RatingPeriod.Status.CLOSED
    ).order_by("-month")
    lists = sorted(
        RatingList.objects.filter(club=club).annotate(
            latest_id=Subquery(latest.values("id")[:1]),
            latest_month=Subquery(latest.values("month")[:1]),
        ),
        key=lambda rl: _KIND_ORDER.get(rl.kind, 99),
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
            RatingChange.objects.filter(
                period_id=latest_id, current=True, rating_after__isnull=False
            )
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
    tournaments = list(
        Tournament.objects.filter(club=club)
        .select_related("rating_list")
        .order_by("-end_date", "-id")[:RECENT_TOURNAMENTS]
    )
    return ClubHome(club, summaries, tournaments)


def _rated_count(period_id: int) -> QuerySet[Any, Any]:
    # The list's size rides along with its top rows: one query per list, not two.
    return (
        RatingChange.objects.filter(period_id=period_id, current=True, rating_after__isnull=False)
        .order_by()
        .values("period_id")
        .annotate(n=Count("id"))
        .values("n")
    )


def rating_list_for_page(*, club: Club, kind: str) -> RatingList:
    rating_list = RatingList.objects.filter(club=club, slug=kind).first()
    if rating_list is None:
        raise NotFoundError(f"{club.name} keeps no {kind} list.")
    rating_list.club = club
    return rating_list


def closed_period_for_page(*, rating_list: RatingList, label: str | None) -> RatingPeriod | None:
    """The closed period named ``YYYY-MM`` (ValidationFailed when malformed, NotFoundError
    when the list has no such closed period); None means the latest, or None if none."""
    if label is None or label == "":
        return closed_periods_query(rating_list).first()
    month = parse_month(label)
    period = closed_periods_query(rating_list).filter(month=month).first()
    if period is None:
        raise NotFoundError(
            f"The {rating_list.kind} list has no closed period {month:%Y-%m}; "
            "pick one of the published lists."
        )
    return period


# -- the rating list ----------------------------------------------------------------------


@dataclass(frozen=True)
class ListFilters:
    q: str = ""
    title: str = ""
    junior: bool = False
    active: bool = False

    @property
    def any(self) -> bool:
        return bool(self.q or self.title or self.junior or self.active)


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


def rating_list_page(
    *,
    rating_list: RatingList,
    period: RatingPeriod | None,
    filters: ListFilters,
    page_number: str | int | None = 1,
) -> ListPage:
    """One page of the list published after ``period``: ranks over the whole list (a
    search keeps each player's place), a page of rows with the player joined in.

    Five queries: periods, ranks, count, page rows (plus nothing per row).
    """
    periods = list(closed_periods_query(rating_list).only("id", "month", "status"))
    if period is None:
        return ListPage(rating_list, None, periods, filters, None)
    listed = RatingChange.objects.filter(period=period, current=True, rating_after__isnull=False)
    ratings: list[int] = sorted(
        rating
        for rating in listed.order_by().values_list("rating_after", flat=True)
        if rating is not None  # never: filtered above; tells the type checker
    )
    rows = listed.select_related("player").only(
        "rating_after",
        "rating_before",
        "change",
        "k_factor",
        "k_reason",
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
    if filters.q:
        rows = rows.filter(player__name__icontains=filters.q)
    if filters.title == "titled":
        rows = rows.exclude(player__title="")
    elif filters.title:
        rows = rows.filter(player__title=filters.title)
    if filters.junior:
        rows = rows.filter(player__birth_year__gte=period.month.year - JUNIOR_MAX_AGE)
    rows = with_inactive(rows, period=period)
    if filters.active:
        # Active: played a rated game on the list in the last 12 months (FIDE), and not
        # marked inactive by the club.
        rows = rows.filter(player__active=True).exclude(
            last_active_month__lte=inactive_cutoff(period.month)
        )
    rows = rows.order_by("-rating_after", "player__name", "player_id")
    paginator = Paginator(rows, LIST_PAGE_SIZE)
    page = paginator.get_page(page_number)
    # Standard competition ranking (1, 2, 2, 4): one place per higher rating on the list.
    count = len(ratings)
    ranked = [
        RankedRow(count - bisect_right(ratings, cast(int, row.rating_after)) + 1, row)
        for row in page
    ]
    return ListPage(rating_list, period, periods, filters, page, ranked, count)


# -- the player page ----------------------------------------------------------------------


@dataclass
class ListStanding:
    """A player's current state on one list."""

    rating: PlayerRating
    rating_class: str | None
    k_reason_label: str

    @property
    def kind_label(self) -> str:
        return self.rating.rating_list.label

    @property
    def uncertainty(self) -> int | None:
        """Glicko-2 lists: two RDs, the rating's spread at about 95% (None elsewhere)."""
        rd = self.rating.rd
        return None if rd is None else round_half_away(2 * rd)


@dataclass
class PlayerLists:
    player: Player
    standings: list[ListStanding]
    history: dict[int, list[RatingChange]]
    k_history: dict[int, list[KFactorChange]]
    lists: dict[int, RatingList]


def player_for_page(*, club: Club, player_id: int) -> Player:
    player = Player.objects.filter(club=club, pk=player_id).first()
    if player is None:
        raise NotFoundError(f"{club.name} has no player {player_id}.")
    player.club = club
    return player


def player_lists(*, player: Player) -> PlayerLists:
    """Current standing, published history and K history on each list: three queries."""
    standings: list[ListStanding] = []
    lists: dict[int, RatingList] = {}
    ratings = PlayerRating.objects.filter(player=player).select_related("rating_list")
    for pr in sorted(ratings, key=lambda r: _KIND_ORDER.get(r.rating_list.kind, 99)):
        pr.rating_list.club = player.club
        lists[pr.rating_list_id] = pr.rating_list
        label = KReason(pr.k_reason).label if pr.k_reason else ""
        standings.append(
            ListStanding(
                pr, engine.rating_class(pr.rating) if pr.rating is not None else None, label
            )
        )
    history: dict[int, list[RatingChange]] = defaultdict(list)
    for change in (
        RatingChange.objects.filter(player=player, current=True)
        .select_related("period")
        .order_by("period__month", "id")
    ):
        history[change.rating_list_id].append(change)
    k_history: dict[int, list[KFactorChange]] = defaultdict(list)
    for k_change in KFactorChange.objects.filter(player=player, current=True).order_by(
        "effective_month", "id"
    ):
        k_history[k_change.rating_list_id].append(k_change)
    return PlayerLists(player, standings, dict(history), dict(k_history), lists)
