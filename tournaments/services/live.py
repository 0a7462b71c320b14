"""Live ratings: what the next close of a list would publish for the games entered so far.

A live figure is the close's preview (``period_preview``: the same read and the same
rating system's plan as the close, writing nothing), kept per list in Django's cache under
the club's live generation (``club_live_changed``: every game entered, edited or deleted;
``club_published_changed``: every import, close, reopen, replay, K override and player
edit gives the club a new one of both), so the first read after any of them computes afresh and every later one is served
from the cache. After a game, a process that computed the list's figures before plans
only the game's players again (``_replanned``, players.rating.replan), where the list's
system plans players apart. Nothing here is a rule: the figures are the plan's, a game's contribution
is the list's rating system's explanation (``RatingSystem.explain``) and an unrated
player's way to a first rating its ``first_rating_progress``.

The live period is the list's earliest period that is not closed and has games: the next
close. A later open period with games is rated from that close's results, which are not
published yet, so it has no live figures of its own until then. A reopened period waiting
for a replay has none either (``LiveList.waiting_for_replay``).
"""

from __future__ import annotations

import datetime
import pickle
import threading
import time
import zlib
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, NamedTuple, TypeVar

from django.conf import settings
from django.core.cache import cache

from players.bulk import gc_paused
from players.models import Player, RatingList, RatingPeriod, add_months
from players.rating.period import (
    PeriodEvent,
    PeriodInputs,
    PlannedChange,
    PlayerStart,
    UnknownPlayers,
)
from players.rating.replan import GameKeys, changed_players, changes_of, game_keys, inputs_for
from players.selectors import Generation, club_generation, generation_computed
from tournaments.models import Game, Tournament
from tournaments.services.close import (
    StartRows,
    preview_and_inputs,
    preview_inputs,
    start_rows,
    starts_kept,
    system_plan,
)
from tournaments.services.live_rows import LiveRow as LiveRow
from tournaments.services.live_rows import live_row
from tournaments.services.live_rows import ranked as ranked

# Bumped when LiveList's shape (or how it is stored) changes: an entry of an older shape
# is never read back.
_CACHE_SHAPE = 3


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
        # The index is rebuilt on first use: it doubles what the cache stores. The rows
        # go as plain tuples, which pickle in C; a named tuple costs a call each way.
        state = {k: v for k, v in self.__dict__.items() if k != "_index"}
        state["rows"] = tuple(map(tuple, self.rows))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["rows"] = tuple(map(LiveRow._make, state["rows"]))
        self.__dict__.update(state)


def live_period(rating_list: RatingList) -> tuple[RatingPeriod | None, str]:
    """The next close's period (the earliest not closed that has games, or that was
    reopened), and, when a reopened one comes first, its label (no live figures then)."""
    for period in (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .exclude(status=RatingPeriod.Status.CLOSED)
        .order_by("month")
    ):
        if period.status == RatingPeriod.Status.NEEDS_REPLAY:
            return None, period.label
        if _has_games(period):
            return period, ""
    return None, ""


def _has_games(period: RatingPeriod) -> bool:
    # Asked as the first game in the order of the period's own index, not as an EXISTS:
    # PostgreSQL answered the EXISTS by reading the whole table from its start, expecting
    # a game of any period soon, while the open month's games are its last rows (13 ms at
    # 120,000 games, on every live rebuild during a round).
    first = (
        Game.objects.filter(period=period)
        .order_by("period_id")
        .values_list("pk", flat=True)
        .first()
    )
    return first is not None


def live_list(*, rating_list: RatingList) -> LiveList:
    """The list's live figures (from the cache when nothing changed since they were
    computed). The caller has checked that the user may see the list's club."""
    if settings.PUBLISHED_CACHE_SECONDS <= 0:
        return _computed(rating_list)
    slug = rating_list.club.slug
    generation = club_generation(slug, Generation.LIVE)
    key = f"live:{_CACHE_SHAPE}:{slug}:{rating_list.pk}:{generation}"
    # Kept in this process only under a generation (a cache that keeps nothing has none).
    kept = _lists_kept if generation is not None else _Kept[LiveList](players=0)
    found = kept.get(key)
    if found is not None:
        return found
    found = _unpacked(cache.get(key))
    if found is not None:
        kept.put(key, found, len(found.rows))
        return found
    # One request computes a generation's figures; the others wait for them. During a
    # round every game retires them, and the live list, its API, its CSV and each player
    # page's live block all asked for them in the same second: each computed the same
    # preview (at 5,000 players a third of a second of CPU each).
    claim = f"{key}:computing"
    if not cache.add(claim, 1, timeout=COMPUTE_SECONDS):
        waited = _waited(key)
        if waited is not None:
            kept.put(key, waited, len(waited.rows))
            return waited
    try:
        # The generations are read before the games and the start: a change after them
        # retires what is computed. The published one names the kept start
        # (_period_start); only a computation needs it.
        published = club_generation(slug, Generation.PUBLISHED)
        # The figures are several objects a player, made at once and all kept (then
        # pickled): the collector walked them again and again meanwhile, for nothing.
        with gc_paused():
            computed = _computed(rating_list, published)
            packed = _packed(computed)
        cache.set(key, packed, settings.PUBLISHED_CACHE_SECONDS)
        if generation is not None:
            generation_computed(slug, Generation.LIVE, generation)
    finally:
        cache.delete(claim)
    kept.put(key, computed, len(computed.rows))
    return computed


# The longest a request waits for another one's live figures before computing them itself.
COMPUTE_SECONDS = 10.0


def _packed(live: LiveList) -> bytes:
    """The figures as the cache keeps them, pickled and compressed here: the database
    cache stored a 5,000-player list's 380 KB of pickle as base64 text, which PostgreSQL
    then compressed again (19 ms to insert on every rebuild); its 90 KB of zlib take 2 ms
    to make."""
    return zlib.compress(pickle.dumps(live, pickle.HIGHEST_PROTOCOL), 1)


def _unpacked(value: object) -> LiveList | None:
    """``_packed``'s figures back (None: nothing, or not such figures)."""
    if not isinstance(value, bytes):
        return None
    # The cache's own values are unpickled by every backend: this trusts nothing more.
    live = pickle.loads(zlib.decompress(value))  # noqa: S301
    return live if isinstance(live, LiveList) else None


def _waited(key: str) -> LiveList | None:
    """The figures another request is computing under ``key``, once stored (None when it
    gave up, or ``COMPUTE_SECONDS`` passed)."""
    deadline = time.monotonic() + COMPUTE_SECONDS
    step = 0.01
    while time.monotonic() < deadline:
        time.sleep(step)
        step = min(step * 2, 0.1)
        found = cache.get_many([key, f"{key}:computing"])
        live = _unpacked(found.get(key))
        if live is not None:
            return live
        if f"{key}:computing" not in found:
            return None
    return None


class _PeriodStart(NamedTuple):
    """A live period's start: the close's start rows and the club's players."""

    rows: StartRows
    # The club's players: id -> (id, name, title, federation, birth year, sex, active).
    players: dict[int, tuple[Any, ...]]
    # The players' starts made from the rows (None: they depend on the month's games).
    starts: dict[int, PlayerStart] | None


_V = TypeVar("_V")


class _Kept(Generic[_V]):
    """What this process keeps of a few lists, oldest dropped first, bounded by players
    (a federation's list does not sit in every web worker). Keyed by a generation, so
    nothing kept is ever stale: a newer generation is another key."""

    def __init__(self, players: int) -> None:
        self.players = players
        self._kept: dict[Hashable, tuple[_V, int]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> _V | None:
        with self._lock:
            found = self._kept.get(key)
        return None if found is None else found[0]

    def put(self, key: Hashable, value: _V, players: int) -> None:
        if players > self.players:
            return
        with self._lock:
            self._kept[key] = (value, players)
            # Oldest first (dicts keep their order): an older generation is not asked again.
            while sum(size for _, size in self._kept.values()) > self.players:
                del self._kept[next(iter(self._kept))]


# The start of a live period (who is on the list and where they stand before the month,
# the club's players' names) changes only with what publishes, which replaces the club's
# published generation; a game never does. So each process keeps the starts of the last
# lists it computed by that generation, and a game a second during a round reads only the
# month's games again: at 5,000 players the start was 38 ms of the 110 the live figures
# took. The players' starts made from it (``starts_kept``) are kept with it.
_starts_kept: _Kept[_PeriodStart] = _Kept(players=100_000)
# The figures themselves, as this process last read them from the cache: every live page
# rebuilt after a game (the list, its API, each player's live block) read and unpickled
# them again (5-8 ms at 5,000 rows, so about a quarter of a second at a federation's
# 200,000: computed, not measured).
_lists_kept: _Kept[LiveList] = _Kept(players=250_000)


def _period_start(
    rating_list: RatingList, period: RatingPeriod, published: str | None
) -> _PeriodStart:
    """The period's start, kept under ``published`` (read before it, so what publishes
    after the read retires it; None: read afresh, kept nowhere)."""
    key = (rating_list.pk, period.month, published)
    found = None if published is None else _starts_kept.get(key)
    if found is not None:
        return found
    rows = start_rows(rating_list, period.month)
    start = _PeriodStart(
        rows,
        {
            row[0]: row
            for row in Player.objects.filter(club_id=rating_list.club_id).values_list(
                "id", "name", "title", "federation", "birth_year", "sex", "active"
            )
        },
        starts_kept(period.month, rows),
    )
    if published is not None:
        _starts_kept.put(key, start, len(start.players))
    return start


class _Figures(NamedTuple):
    """A live period's figures before their ranking, and what they were computed from:
    kept in each process (``_bases``) so that the next computation plans again only the
    players of the games that changed (``_replanned``)."""

    # The rows shown, by player: each a LiveRow's fields but the rank.
    rows: dict[int, tuple[Any, ...]]
    rules: str
    games_count: int
    # The inputs planned and their games as a multiset (None: not to be kept).
    inputs: PeriodInputs | None = None
    games: GameKeys | None = None


# Each process's last figures of a few lists, by (list, period, published generation):
# what publishes changes the start, and is another key. During a round each game made
# every process that computed the figures plan the whole month again (at 5,000 players
# 30-50 ms of the 100-120 a computation took); planning the game's two players again
# takes a millisecond.
_bases: _Kept[_Figures] = _Kept(players=100_000)


def _computed(rating_list: RatingList, published: str | None = None) -> LiveList:
    period, waiting = live_period(rating_list)
    if period is None:
        return LiveList(list_id=rating_list.pk, waiting_for_replay=waiting)
    start = _period_start(rating_list, period, published)
    key = (rating_list.pk, period.pk, published)
    # Kept only under a published generation (what the start is kept under), for a system
    # that plans players apart, and where the players' starts are kept (a player listed
    # from a later month who plays this month has a start that depends on the games).
    apart = (
        published is not None
        and rating_list.rating_system.plans_players_apart
        and start.starts is not None
    )
    base = _bases.get(key) if apart else None
    figures = None if base is None else _replanned(rating_list, period, start, base)
    if figures is None:
        figures = _whole(rating_list, period, start, keep=apart)
    if apart and figures.inputs is not None:
        _bases.put(key, figures, len(figures.rows))
    return LiveList(
        list_id=rating_list.pk,
        period_id=period.pk,
        month=period.month,
        rules=figures.rules,
        games_count=figures.games_count,
        rows=tuple(ranked(list(figures.rows.values()))),
    )


def _whole(
    rating_list: RatingList, period: RatingPeriod, start: _PeriodStart, *, keep: bool
) -> _Figures:
    """The figures from the close's preview of the whole period."""
    plan, inputs = preview_and_inputs(period=period, start=start.rows, starts=start.starts)
    # Who played in the period, deduplicated by the database (a few thousand ids, not a
    # row per game).
    games = Game.objects.filter(period=period).order_by()
    played = set(
        games.values_list("white_id", flat=True).union(games.values_list("black_id", flat=True))
    )
    shown = [c for c in plan.changes if c.rating_after is not None or c.player_id in played]
    rows = _rows_of(rating_list, period, start, shown)
    if not keep or inputs is None:
        return _Figures(rows, plan.rules, plan.games_count)
    return _Figures(rows, plan.rules, plan.games_count, inputs, game_keys(inputs.games))


def _replanned(
    rating_list: RatingList, period: RatingPeriod, start: _PeriodStart, base: _Figures
) -> _Figures | None:
    """``base``'s figures after the games changed since: the players of the games that
    changed planned again (players.rating.replan), everyone else's rows as they were.
    None when anything but the games changed, or a game names a player the list lacks
    (the whole preview says what to do then)."""
    assert base.inputs is not None
    assert base.games is not None
    inputs = preview_inputs(
        rating_list=rating_list, period=period, start=start.rows, starts=start.starts
    )
    # Anything but the games read differently (a dataclass compares every field; the
    # games, the same object here, compare at once).
    if replace(base.inputs, games=inputs.games) != inputs:
        return None
    games = game_keys(inputs.games)
    if isinstance(games, Counter) != isinstance(base.games, Counter):
        return None  # one read handed the games over as arrays, the other as lists
    changed = changed_players(base.games, games)
    rows = base.rows
    if changed:
        subset = inputs_for(inputs, changed)
        try:
            plan = system_plan(subset)
        except UnknownPlayers:
            return None
        played = set(subset.games.white) | set(subset.games.black)
        again = changes_of(plan.changes, changed)
        rows = {pid: row for pid, row in base.rows.items() if pid not in changed}
        rows.update(
            _rows_of(
                rating_list,
                period,
                start,
                [c for c in again.values() if c.rating_after is not None or c.player_id in played],
            )
        )
    return _Figures(rows, base.rules, len(inputs.games.white), inputs, games)


def _rows_of(
    rating_list: RatingList,
    period: RatingPeriod,
    start: _PeriodStart,
    shown: Sequence[PlannedChange],
) -> dict[int, tuple[Any, ...]]:
    """The rows of the planned changes ``shown``, by player."""
    # The club's players read in one (an IN of thousands of ids costs more to send).
    players = start.players
    system = rating_list.rating_system
    list_settings = rating_list.settings()
    # The period's tournaments' starts, which choose the rules of a way to a first rating.
    began: dict[str, datetime.date] = {}
    if any(c.event == PeriodEvent.NOT_YET_RATED for c in shown):
        games = Game.objects.filter(period=period).order_by()
        began = {
            f"t{tid}": began_on
            for tid, began_on in Tournament.objects.filter(
                pk__in=games.values("tournament_id")
            ).values_list("id", "start_date")
        }
    return {
        c.player_id: live_row(c, players[c.player_id], system, list_settings, period.month, began)
        for c in shown
    }
