"""The pages' live view: the rating list's "live" tab and the player page's live block,
both from the close's preview (tournaments.services.live), never from arithmetic here.

Both say plainly that the figures are not published: the close of the live period may
differ if games are added or corrected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator

from players.models import Club, Player, RatingList, RatingPeriod
from players.rating.systems import RatingSystem
from players.rating.systems.explain import StateField
from tournaments.game_details import GameDetail
from tournaments.selectors import games_of_player
from tournaments.services.live import LiveList, LiveRow, live_list
from tournaments.services.live_player import live_player

LIVE_PAGE_SIZE = 100


@dataclass
class LiveListPage:
    rating_list: RatingList
    live: LiveList
    q: str
    page: Page[Any] | None
    rows: list[LiveRow] = field(default_factory=list)


def live_list_page(
    *, rating_list: RatingList, q: str = "", page_number: str | int | None = 1
) -> LiveListPage:
    """One page of the list's live figures (by live rank), searched by name."""
    live = live_list(rating_list=rating_list)
    rows: list[LiveRow] = list(live.rows)
    if q:
        wanted = q.casefold()
        rows = [row for row in rows if wanted in row.name.casefold()]
    if not rows:
        return LiveListPage(rating_list, live, q, None)
    page = Paginator(rows, LIVE_PAGE_SIZE).get_page(page_number)
    return LiveListPage(rating_list, live, q, page, list(page))


@dataclass
class LiveDetail:
    """A player's live period on one list, shaped as the player page's period games (the
    system's game-lines fragment and ``game_note`` read it as they read a closed one)."""

    rating_list: RatingList
    system: RatingSystem
    live: LiveList
    row: LiveRow | None
    games: list[GameDetail]
    toward_first_rating: bool = False
    engine_change: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def state_figures(self) -> list[tuple[StateField, float]]:
        """The figures the system keeps beside the rating, as the close would publish
        them (Glicko-2: RD, volatility); none on a system that keeps none."""
        state = None if self.row is None else self.row.live_state
        return [
            (f, value)
            for f in self.system.state_fields
            if (value := self.system.state_value(state, f.name)) is not None
        ]


def live_details(*, club: Club, player: Player, lists: dict[int, RatingList]) -> list[LiveDetail]:
    """The player's live figure on each of ``lists`` where they have games in the live
    period, in the order given."""
    # One query says which lists the player has games on in a period not yet closed: the
    # others have nothing live for them, and cost nothing more.
    playing = set(
        games_of_player(player=player)
        .filter(rating_list_id__in=lists)
        .exclude(period__status=RatingPeriod.Status.CLOSED)
        .order_by()
        .values_list("rating_list_id", flat=True)
        .distinct()
    )
    details = []
    for rating_list in lists.values():
        if rating_list.pk not in playing:
            continue
        rating_list.club = club
        figure = live_player(rating_list=rating_list, player=player)
        if not figure.games:
            continue
        details.append(
            LiveDetail(
                rating_list=rating_list,
                system=rating_list.rating_system,
                live=figure.live,
                row=figure.row,
                games=figure.games,
                toward_first_rating=figure.pooled,
                engine_change=figure.total,
                notes=figure.notes,
            )
        )
    return details
