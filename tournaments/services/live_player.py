"""One player's live figures: their row of the list's live figures (``live_list``) and
each of their games in the live period with its contribution, as the list's rating system
explains it for a closed period."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Q

from players.models import Player, RatingList
from players.rating.period import view_month
from players.rating.systems.explain import PeriodFacts
from players.selectors import ratings_in_force
from tournaments.game_details import GameDetail, explain_details, game_detail, tournament_starts
from tournaments.models import Game
from tournaments.services.live import LiveList, LiveRow, live_list


@dataclass
class LivePlayer:
    live: LiveList
    row: LiveRow | None
    games: list[GameDetail]
    # The games are pooled toward a first rating (FIDE 8.2), not scored one by one.
    pooled: bool = False
    # The lines' total, rounded as the list publishes (to check against live_change).
    total: int | None = None
    notes: tuple[str, ...] = ()


def live_player(*, rating_list: RatingList, player: Player) -> LivePlayer:
    """The player's live figure on the list and each of their games in the live period
    with its contribution, as the list's rating system explains it. A fixed number of
    queries (the live list itself usually from the cache)."""
    live = live_list(rating_list=rating_list)
    row = live.row_of(player.pk)
    if live.period_id is None or live.month is None:
        return LivePlayer(live, row, [])
    month = live.month
    found = list(
        Game.objects.filter(Q(white=player) | Q(black=player), period_id=live.period_id)
        .select_related("white", "black", "tournament")
        .order_by("date", "round", "id")
    )
    starts = tournament_starts(found)

    def scored_month(game: Game) -> datetime.date:
        return view_month(month, game.tournament.start_date if game.tournament else None)

    key = (rating_list.pk, month)
    in_force = ratings_in_force(
        lists={rating_list.pk: rating_list},
        months=[key, *((rating_list.pk, scored_month(g)) for g in found)],
        players={player.pk} | {g.white_id for g in found} | {g.black_id for g in found},
    )
    games = [game_detail(g, player.pk, in_force[(rating_list.pk, scored_month(g))]) for g in found]
    if row is None or not games:
        return LivePlayer(live, row, games)
    return _explained(live, row, games, rating_list, starts, in_force[key].get(player.pk))


def _explained(
    live: LiveList,
    row: LiveRow,
    games: list[GameDetail],
    rating_list: RatingList,
    starts: dict[int, datetime.date],
    own_start: int | None,
) -> LivePlayer:
    """Each game's contribution through the system's ``explain``, fed as the player page
    feeds it for a closed period (ratings_site/pages/games.py: scored_games), with the
    live row in place of the published one."""
    system = rating_list.rating_system
    if own_start is None and not system.uses_k:
        own_start = row.rating  # a system that rates everyone started from this
    if row.k_factor is None and system.uses_k:
        own_start = None  # no K: the games count toward a first rating
    assert live.month is not None
    facts = PeriodFacts(
        settings=rating_list.settings(),
        month=live.month,
        tournament_starts=starts,
        own_start=own_start,
        k_factor=row.k_factor,
        state_before=row.state,
        state_after=row.live_state,
    )
    opponents = {
        g.opponent.pk: (r.rating, r.state)
        for g in games
        if (r := live.row_of(g.opponent.pk)) is not None
    }
    explained = explain_details(system, facts, games, opponents)
    return LivePlayer(
        live,
        row,
        games,
        pooled=explained.pooled,
        total=explained.total,
        notes=explained.notes,
    )
