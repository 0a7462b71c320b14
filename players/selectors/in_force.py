"""The ratings a game is scored with: the one rule the period close and the player page
share."""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from players.models import (
    FirstRatingPolicy,
    PlayerRating,
    RatingList,
    RatingPeriod,
)
from players.rating import ListKind
from players.selectors.published import current_rows

InForceKey = tuple[int, datetime.date]
# The list the others fall back on: the club's list named "standard".
_STANDARD = ListKind.STANDARD.value


def ratings_in_force(
    *,
    lists: Mapping[int, RatingList],
    months: Iterable[InForceKey],
    players: Collection[int] | QuerySet[Any, int] | None = None,
    known: Mapping[InForceKey, Mapping[int, int | None]] | None = None,
    fixed_start: bool = True,
) -> dict[InForceKey, dict[int, int | None]]:
    """The ratings a game is scored with, per (list id, month): the one rule the period
    close and the player page share.

    For ``month`` (a tournament's first month, or the period's own month), a player's
    rating is the one on the list published before it: their row in the latest closed
    period of the list before ``month``, else the rating the club entered (None:
    unrated). On a rapid or blitz list a player unrated there who holds a standard
    rating in force at ``month`` (same rule, on the club's standard list) uses it and
    counts as rated (FIDE rapid and blitz regulations). On a list with a fixed starting
    rating a player still unrated counts at it (``with_fixed_start``), unless
    ``fixed_start`` is False: the close applies it itself, after telling who counts
    through the standard rating (their K depends on it).
    ``known`` gives the published ratings the caller has already read for some keys (the
    close's period-start states); the rules above still apply to them. ``players`` limits
    the players read (None: every player of the lists; a queryset of ids: read as a
    subquery). At most three queries, whatever the number of months, games or players.
    """
    wanted = list(dict.fromkeys(months))
    known = known or {}
    # FIDE rapid and blitz (a kind that counts_standard): an unrated player who holds a
    # standard rating at the start of the event uses it and counts as rated.
    counting = {
        list_id for list_id, rating_list in lists.items() if rating_list.list_kind.counts_standard
    }
    published = _Published.read(
        lists,
        to_read=[key for key in wanted if key not in known],
        needs_standard=[key for key in wanted if key[0] in counting],
        players=players,
    )
    result: dict[InForceKey, dict[int, int | None]] = {}
    for key in wanted:
        list_id, month = key
        ratings = dict(known[key]) if key in known else published.before(list_id, month)
        rating_list = lists[list_id]
        if list_id in counting:
            ratings = published.standard_for_unrated(rating_list.club_id, month, ratings)
        result[key] = with_fixed_start(rating_list, ratings) if fixed_start else ratings
    return result


@dataclass
class _Published:
    """What ``ratings_in_force`` reads: each list's closed periods (newest first), their
    published rows, the ratings the club entered, and each club's standard list."""

    closed: dict[int, list[tuple[datetime.date, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    rows: dict[int, dict[int, int | None]] = field(default_factory=lambda: defaultdict(dict))
    entries: dict[int, dict[int, int | None]] = field(default_factory=lambda: defaultdict(dict))
    standard_of: dict[int, int] = field(default_factory=dict)

    @classmethod
    def read(
        cls,
        lists: Mapping[int, RatingList],
        *,
        to_read: list[InForceKey],
        needs_standard: list[InForceKey],
        players: Collection[int] | QuerySet[Any, int] | None,
    ) -> _Published:
        """What the keys need: the lists published before the months of ``to_read``, and
        for ``needs_standard`` the club's standard list published before theirs. The
        club's standard list is read with the lists themselves (same queries), found by
        its club and kind."""
        published = cls()
        if not (to_read or needs_standard):
            return published
        standard_clubs = {lists[list_id].club_id for list_id, _ in needs_standard}
        scope = Q(rating_list_id__in={list_id for list_id, _ in to_read}) | Q(
            rating_list__club_id__in=standard_clubs, rating_list__slug=_STANDARD
        )
        published.read_periods(scope)

        def standard_list(key: InForceKey) -> int | None:
            return published.standard_of.get(lists[key[0]].club_id)

        sources = {published.source(list_id, month) for list_id, month in to_read}
        sources |= {published.source(standard_list(key), key[1]) for key in needs_standard}
        published.read_rows(sources, scope, players)
        return published

    def read_periods(self, scope: Q) -> None:
        for list_id, club_id, kind, month, period_id in (
            RatingPeriod.objects.filter(scope, status=RatingPeriod.Status.CLOSED)
            .order_by("-month")
            .values_list(
                "rating_list_id", "rating_list__club_id", "rating_list__slug", "month", "id"
            )
        ):
            self.closed[list_id].append((month, period_id))
            if kind == _STANDARD:
                self.standard_of[club_id] = list_id

    def read_rows(
        self,
        sources: set[int | None],
        scope: Q,
        players: Collection[int] | QuerySet[Any, int] | None,
    ) -> None:
        sources.discard(None)
        if sources:
            rows = current_rows(period_id__in=sources)
            if players is not None:
                rows = rows.filter(player_id__in=players)
            for period_id, player_id, rating in rows.order_by().values_list(
                "period_id", "player_id", "rating_after"
            ):
                self.rows[period_id][player_id] = rating
        rated = PlayerRating.objects.filter(scope)
        if players is not None:
            rated = rated.filter(player_id__in=players)
        for list_id, club_id, kind, player_id, rating in rated.order_by().values_list(
            "rating_list_id",
            "rating_list__club_id",
            "rating_list__slug",
            "player_id",
            "entry_rating",
        ):
            self.entries[list_id][player_id] = rating
            if kind == _STANDARD:
                self.standard_of[club_id] = list_id

    def source(self, list_id: int | None, month: datetime.date) -> int | None:
        """The latest closed period of the list before ``month``."""
        if list_id is None:
            return None
        return next((pid for m, pid in self.closed[list_id] if m < month), None)

    def before(self, list_id: int | None, month: datetime.date) -> dict[int, int | None]:
        """The list published before ``month``: each player's row there, else the
        rating the club entered."""
        if list_id is None:
            return {}
        source_id = self.source(list_id, month)
        rows_of = self.rows.get(source_id, {}) if source_id is not None else {}
        return {
            player_id: rows_of.get(player_id, entered)
            for player_id, entered in self.entries[list_id].items()
        }

    def standard_for_unrated(
        self, club_id: int, month: datetime.date, ratings: dict[int, int | None]
    ) -> dict[int, int | None]:
        """``ratings`` with each unrated player's standard rating in force at ``month``
        (the club's standard list, same rule), where they hold one."""
        standard = self.before(self.standard_of.get(club_id), month)
        return {pid: standard.get(pid) if r is None else r for pid, r in ratings.items()}


def with_fixed_start(
    rating_list: RatingList, ratings: dict[int, int | None]
) -> dict[int, int | None]:
    """On a list with a fixed starting rating a player still unrated counts at it; other
    lists: ``ratings`` itself."""
    if rating_list.first_rating_policy != FirstRatingPolicy.FIXED:
        return ratings
    fixed = rating_list.starting_rating
    return {pid: fixed if r is None else r for pid, r in ratings.items()}
