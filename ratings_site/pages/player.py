"""Read helpers for the player page: the player's standing on each list (with peak and
best rank), published history and K history, in a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, OuterRef, Subquery
from django.utils.translation import gettext

from players import rating as engine
from players.errors import NotFoundError
from players.models import (
    Club,
    KFactorChange,
    KReason,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    translated_label,
)
from players.rating.rounding import round_half_away
from players.rating.systems import RatingSystem
from players.rating.systems.explain import StateField
from players.selectors import club_players, current_rows, k_changes_in_force, player_ratings
from ratings_site.pages.lists import kind_order
from ratings_site.pages.systems import fragment_names


@dataclass
class ListStanding:
    """A player's current state on one list."""

    rating: PlayerRating
    rating_class: engine.RatingClass | None
    k_reason_label: str
    peak: RatingChange | None = None  # the first period with the highest published rating
    best_rank: int | None = None
    best_rank_period: RatingPeriod | None = None

    @property
    def kind_label(self) -> str:
        return self.rating.rating_list.label

    @property
    def system(self) -> RatingSystem:
        return self.rating.rating_list.rating_system

    @property
    def state(self) -> dict[str, float]:
        """What the list's system keeps beside the rating (by its declared names)."""
        state = self.rating.state or {}
        return {name: state[name] for name in self.system.state_names if name in state}

    @property
    def state_figures(self) -> list[tuple[StateField, float]]:
        state = self.state
        return [(f, state[f.name]) for f in self.system.state_fields if f.name in state]

    @property
    def spread(self) -> int | None:
        """The spread the system shows around the rating (Glicko-2: two RDs, about 95%)."""
        spread = self.system.spread_of(self.rating.state)
        return None if spread is None else round_half_away(spread)

    @property
    def current_fragment(self) -> list[str]:
        return fragment_names(self.system, "current.html")


@dataclass
class PlayerLists:
    player: Player
    standings: list[ListStanding]
    history: dict[int, list[RatingChange]]
    k_history: dict[int, list[KFactorChange]]
    lists: dict[int, RatingList]


def player_for_page(*, club: Club, player_id: int) -> Player:
    player = club_players(club=club).filter(pk=player_id).select_related("user").first()
    if player is None:
        raise NotFoundError(
            gettext("%(club)s has no player %(id)s.") % {"club": club.name, "id": player_id}
        )
    player.club = club
    return player


def player_rating_lists(*, player: Player) -> dict[int, RatingList]:
    """The lists the player has a rating row on, in the lists' order (one query): what
    the page's live figures are asked for, as ``player_lists`` gives them."""
    ratings = player_ratings(player=player)
    lists: dict[int, RatingList] = {}
    for pr in sorted(ratings, key=lambda r: kind_order(r.rating_list.kind)):
        pr.rating_list.club = player.club
        lists[pr.rating_list_id] = pr.rating_list
    return lists


def player_lists(*, player: Player) -> PlayerLists:
    """Current standing, published history and K history on each list: three queries."""
    standings: list[ListStanding] = []
    lists: dict[int, RatingList] = {}
    ratings = player_ratings(player=player)
    for pr in sorted(ratings, key=lambda r: kind_order(r.rating_list.kind)):
        pr.rating_list.club = player.club
        lists[pr.rating_list_id] = pr.rating_list
        label = str(translated_label(KReason(pr.k_reason))) if pr.k_reason else ""
        standings.append(
            ListStanding(
                pr, engine.rating_band(pr.rating) if pr.rating is not None else None, label
            )
        )
    history: dict[int, list[RatingChange]] = defaultdict(list)
    # Each published period's rank rides along: one place per higher rating in the same
    # period (the list's own ranking), counted by the database with the
    # current rows' (period, rating_after) index.
    above = (
        current_rows(period_id=OuterRef("period_id"), rating_after__gt=OuterRef("rating_after"))
        .order_by()
        .values("period_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    for change in (
        current_rows(player=player)
        .select_related("period")
        .annotate(above=Subquery(above))
        .order_by("period__month", "id")
    ):
        history[change.rating_list_id].append(change)
    by_list = {s.rating.rating_list_id: s for s in standings}
    for list_id, changes in history.items():
        standing = by_list.get(list_id)
        if standing is not None:
            _peak_and_best_rank(standing, changes)
    k_history: dict[int, list[KFactorChange]] = defaultdict(list)
    for k_change in k_changes_in_force(player=player).order_by("effective_month", "id"):
        k_history[k_change.rating_list_id].append(k_change)
    return PlayerLists(player, standings, dict(history), dict(k_history), lists)


def _peak_and_best_rank(standing: ListStanding, changes: list[RatingChange]) -> None:
    """The highest published rating and the best rank, each the first time it was held."""
    for change in changes:
        if change.rating_after is None:
            continue
        if standing.peak is None or change.rating_after > (standing.peak.rating_after or 0):
            standing.peak = change
        rank = (getattr(change, "above", None) or 0) + 1
        if standing.best_rank is None or rank < standing.best_rank:
            standing.best_rank, standing.best_rank_period = rank, change.period
