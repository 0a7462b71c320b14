"""Live ratings: what the next close of a list would publish for the games entered so far.

A live figure is the close's preview (``period_preview``: the same read and the same
rating system's plan as the close, writing nothing), kept per list in Django's cache under
the club's live generation (``club_live_changed``: every game entered, edited or deleted;
``club_published_changed``: every import, close, reopen, replay, K override and player
edit gives the club a new one of both), so the first read after any of them computes afresh and every later one is served
from the cache. Nothing here is a rule: the figures are the plan's, a game's contribution
is the list's rating system's explanation (``RatingSystem.explain``) and an unrated
player's way to a first rating its ``first_rating_progress``.

The live period is the list's earliest period that is not closed and has games: the next
close. A later open period with games is rated from that close's results, which are not
published yet, so it has no live figures of its own until then. A reopened period waiting
for a replay has none either (``LiveList.waiting_for_replay``).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef, Q

from players.models import Player, RatingList, RatingPeriod, add_months
from players.rating.period import PeriodEvent, PlannedChange, view_month
from players.rating.systems import RatingSystem
from players.rating.systems.explain import PeriodFacts, State
from players.selectors import Generation, club_generation, ratings_in_force
from tournaments.game_details import GameDetail, explain_details, game_detail, tournament_starts
from tournaments.models import Game, Tournament
from tournaments.services.close import period_preview

# Bumped when LiveList's shape changes: an entry of an older shape is never read back.
_CACHE_SHAPE = 2


class LiveRow(NamedTuple):
    """One player's live figures: what the next close would publish for them."""

    player_id: int
    name: str
    title: str
    federation: str
    birth_year: int | None
    sex: str
    active: bool
    # The rating in force (published before the period; None: unrated) and the live one.
    rating: int | None
    live_rating: int | None
    # The change the close would publish (None: a first rating, or none yet).
    live_change: int | None
    # Rated games this period, as the close counts them.
    games: int
    event: str
    k_factor: int | None
    # The system's state before and after (Glicko-2: rd, volatility; None: none kept).
    state: State | None
    live_state: State | None
    # Unrated players: games counted toward a first rating so far (the pool, over the
    # months FIDE 8.2 pools) and what is still missing (the engine's sentence); None on
    # everyone else.
    first_rating_games: int | None = None
    first_rating_missing: str = ""
    rank: int | None = None


@dataclass(frozen=True)
class LiveList:
    """A list's live figures: every player with games in the live period or a rating."""

    list_id: int
    # None: no period is open with games (nothing to show beyond the published list).
    period_id: int | None = None
    month: datetime.date | None = None
    rules: str = ""
    games_count: int = 0
    # A reopened period waits for a replay: its and every later period's figures wait too.
    waiting_for_replay: str = ""
    rows: tuple[LiveRow, ...] = field(default_factory=tuple)

    @property
    def label(self) -> str:
        return "" if self.month is None else f"{self.month:%Y-%m}"

    @property
    def published(self) -> datetime.date | None:
        """The date of the list the close would publish (the first of the next month)."""
        return None if self.month is None else add_months(self.month, 1)

    def row_of(self, player_id: int) -> LiveRow | None:
        return self._by_player.get(player_id)

    @property
    def _by_player(self) -> dict[int, LiveRow]:
        found: dict[int, LiveRow] | None = self.__dict__.get("_index")
        if found is None:
            found = {row.player_id: row for row in self.rows}
            object.__setattr__(self, "_index", found)
        return found

    def __getstate__(self) -> dict[str, Any]:
        # The index is rebuilt on first use: it doubles what the cache stores.
        return {k: v for k, v in self.__dict__.items() if k != "_index"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def live_period(rating_list: RatingList) -> tuple[RatingPeriod | None, str]:
    """The next close's period (the earliest not closed that has games, or that was
    reopened), and, when a reopened one comes first, its label (no live figures then)."""
    has_games = Exists(Game.objects.filter(period=OuterRef("pk")))
    period = (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .exclude(status=RatingPeriod.Status.CLOSED)
        .filter(Q(has_games) | Q(status=RatingPeriod.Status.NEEDS_REPLAY))
        .order_by("month")
        .first()
    )
    if period is not None and period.status == RatingPeriod.Status.NEEDS_REPLAY:
        return None, period.label
    return period, ""


def live_list(*, rating_list: RatingList) -> LiveList:
    """The list's live figures (from the cache when nothing changed since they were
    computed). The caller has checked that the user may see the list's club."""
    if settings.PUBLISHED_CACHE_SECONDS <= 0:
        return _computed(rating_list)
    slug = rating_list.club.slug
    generation = club_generation(slug, Generation.LIVE)
    key = f"live:{_CACHE_SHAPE}:{slug}:{rating_list.pk}:{generation}"
    found = cache.get(key)
    if isinstance(found, LiveList):
        return found
    # One request computes a generation's figures; the others wait for them. During a
    # round every game retires them, and the live list, its API, its CSV and each player
    # page's live block all asked for them in the same second: each computed the same
    # preview (at 5,000 players a third of a second of CPU each).
    claim = f"{key}:computing"
    if not cache.add(claim, 1, timeout=COMPUTE_SECONDS):
        waited = _waited(key)
        if waited is not None:
            return waited
    try:
        # The generation was read before the games: a change after it retires this entry.
        computed = _computed(rating_list)
        cache.set(key, computed, settings.PUBLISHED_CACHE_SECONDS)
    finally:
        cache.delete(claim)
    return computed


# The longest a request waits for another one's live figures before computing them itself.
COMPUTE_SECONDS = 10.0


def _waited(key: str) -> LiveList | None:
    """The figures another request is computing under ``key``, once stored (None when it
    gave up, or ``COMPUTE_SECONDS`` passed)."""
    deadline = time.monotonic() + COMPUTE_SECONDS
    step = 0.01
    while time.monotonic() < deadline:
        time.sleep(step)
        step = min(step * 2, 0.1)
        found = cache.get_many([key, f"{key}:computing"])
        if isinstance(found.get(key), LiveList):
            return found[key]  # type: ignore[no-any-return]
        if f"{key}:computing" not in found:
            return None
    return None


def _computed(rating_list: RatingList) -> LiveList:
    period, waiting = live_period(rating_list)
    if period is None:
        return LiveList(list_id=rating_list.pk, waiting_for_replay=waiting)
    plan = period_preview(period=period)
    # Who played in the period, deduplicated by the database (a few thousand ids, not a
    # row per game).
    games = Game.objects.filter(period=period).order_by()
    played = set(
        games.values_list("white_id", flat=True).union(games.values_list("black_id", flat=True))
    )
    shown = [c for c in plan.changes if c.rating_after is not None or c.player_id in played]
    # The club's players in one read: an IN of thousands of ids costs more to send.
    players = {
        row[0]: row
        for row in Player.objects.filter(club_id=rating_list.club_id).values_list(
            "id", "name", "title", "federation", "birth_year", "sex", "active"
        )
    }
    system = rating_list.rating_system
    list_settings = rating_list.settings()
    # The period's tournaments' starts, which choose the rules of a way to a first rating.
    began: dict[str, datetime.date] = {}
    if any(c.event == PeriodEvent.NOT_YET_RATED for c in shown):
        began = {
            f"t{tid}": start
            for tid, start in Tournament.objects.filter(
                pk__in=games.values("tournament_id")
            ).values_list("id", "start_date")
        }
    rows = [
        _row(c, players[c.player_id], system, list_settings, period.month, began) for c in shown
    ]
    return LiveList(
        list_id=rating_list.pk,
        period_id=period.pk,
        month=period.month,
        rules=plan.rules,
        games_count=plan.games_count,
        rows=tuple(ranked(rows)),
    )


def _row(
    change: PlannedChange,
    player: Sequence[Any],
    system: RatingSystem,
    list_settings: Any,
    month: datetime.date,
    began: dict[str, datetime.date],
) -> LiveRow:
    before, after = system.states_of(change)
    progress = system.first_rating_progress
    first_games: int | None = None
    missing = ""
    if change.event == PeriodEvent.NOT_YET_RATED and progress is not None:
        first = progress(list_settings, month, change.pool_after, began)
        first_games, missing = first.games_counted, first.note
    player_id, name, title, federation, birth_year, sex, active = player
    return LiveRow(
        player_id,
        name,
        title,
        federation,
        birth_year,
        sex,
        active,
        rating=change.rating_before,
        live_rating=change.rating_after,
        live_change=change.change,
        games=change.games,
        event=str(change.event),
        k_factor=change.k_factor,
        state=None if before is None else dict(before),
        live_state=None if after is None else dict(after),
        first_rating_games=first_games,
        first_rating_missing=missing,
    )


def ranked(rows: Sequence[LiveRow]) -> list[LiveRow]:
    """Best live rating first (equal ratings share a rank), then those without one (no
    rank) by name."""
    rated = sorted(
        (r for r in rows if r.live_rating is not None),
        key=lambda r: (-(r.live_rating or 0), r.name, r.player_id),
    )
    out: list[LiveRow] = []
    rank, previous = 0, None
    for index, row in enumerate(rated, start=1):
        if row.live_rating != previous:
            rank, previous = index, row.live_rating
        # Positional (LiveRow's last field is the rank): faster than _replace per row.
        out.append(LiveRow(*row[:-1], rank))
    out.extend(
        sorted((r for r in rows if r.live_rating is None), key=lambda r: (r.name, r.player_id))
    )
    return out


# -- one player ------------------------------------------------------------------------------


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
