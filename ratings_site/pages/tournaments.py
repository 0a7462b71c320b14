"""Read helpers for the tournament pages: a club's tournaments, and one tournament's
standings (with FIDE's tie-breaks from the engine) and crosstable.

A fixed number of queries whatever the number of players or games: the tournament, its
games with both players, the ratings in force (``ratings_in_force``, at most three), the
period's published changes. The tie-breaks and performances are the engine's
(``players.rating.tiebreaks``, ``performance_fide``); the rating changes are scored as the
close scores the games and as the player page shows them (``games.scored_games``, through
the list's rating system), never with rules chosen here.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.utils.translation import gettext

from players import rating as engine
from players.errors import NotFoundError
from players.models import Club, Player, RatingChange, RatingList, RatingPeriod
from players.rating.period import GAME_RESULTS, SCORES, view_month
from players.rating.tiebreaks import RoundResult, Standing, TieBreaks, caps_unplayed, standings
from players.selectors import (
    Generation,
    club_generation,
    current_rows,
    period_find,
    ratings_in_force,
)
from ratings_site.pages.games import event_change, performance_of
from tournaments.game_details import game_detail
from tournaments.models import BYE_POINTS, Game, Tournament, TournamentBye
from tournaments.selectors import (
    club_tournaments,
    games_counts,
    tournament_byes,
    tournament_games,
    tournament_in_club,
    tournament_player_ids,
)

TOURNAMENTS_PAGE_SIZE = 50
# Players per page of a tournament: a phone shows a hundred rows of standings and their
# crosstable at once; 5,000 would be megabytes that nobody scrolls.
TOURNAMENT_PAGE_SIZE = 100


def tournaments_page(*, club: Club, page_number: str | int | None) -> Page[Tournament]:
    """A page of the club's tournaments, newest first, each with ``games_count``: three
    queries (count, page, the page's game counts)."""
    page = Paginator(club_tournaments(club=club), TOURNAMENTS_PAGE_SIZE).get_page(page_number)
    counts = games_counts(tournament_ids=[t.pk for t in page])
    for tournament in page:
        tournament.games_count = counts.get(tournament.pk, 0)  # type: ignore[attr-defined]
    return page


@dataclass
class Cell:
    """One round of one player in the crosstable."""

    round: int
    opponent: Player | None = None
    opponent_rank: int | None = None  # the opponent's number (their place) in the crosstable
    colour: str = ""  # "w" / "b"
    points: Fraction | None = None  # None: neither a game nor a bye this round (absent)
    played: bool = True
    bye: str = ""  # a bye's kind (TournamentBye.Kind: H, F, U, Z)

    @property
    def mark(self) -> str:
        """``1`` ``½`` ``0``; a forfeit ``+`` / ``−``; absent ``–``."""
        if self.points is None:
            return "–"
        if self.bye:
            return {Fraction(1): "1", Fraction(1, 2): "½"}.get(self.points, "0")
        if not self.played:
            return "+" if self.points == 1 else "−"
        return {Fraction(1): "1", Fraction(1, 2): "½"}.get(self.points, "0")


@dataclass
class PlayerRow:
    standing: Standing
    player: Player
    rating: int | None  # in force at the tournament's start
    cells: list[Cell] = field(default_factory=list)
    games: int = 0
    performance: int | None = None
    change: int | None = None  # what the event's games did (engine, with the close's K)
    change_note: str = ""


@dataclass
class TournamentView:
    tournament: Tournament
    rounds: int
    rows: list[PlayerRow]  # the page's players, in standings order
    games: int
    period: RatingPeriod | None
    average_rating: int | None
    page: Page[Standing] | None = None  # which part of the standings ``rows`` are
    players: int = 0  # in the whole tournament
    played: int = 0  # the last round with a game or a bye

    @property
    def final(self) -> bool:
        """Every round the event has was played: the standings are final."""
        return self.played >= self.rounds

    @property
    def first_number(self) -> int:
        """The crosstable number (place in the standings) of the page's first row."""
        return self.page.start_index() if self.page is not None else 1


@dataclass(frozen=True)
class Ranking:
    """What the whole tournament decides, whichever page is shown: the standings (they
    need every game), each game's round, the ratings in force and the average. Kept in
    the cache under the club's live generation, which every game replaces
    (``club_live_changed``), as does every change of players or ratings
    (``club_published_changed``)."""

    rounds: int
    # Each Standing as one tuple of plain values (``_packed``): unpickling 5,000
    # Standings of Fractions took longer than computing them; a page unpacks its own
    # hundred.
    ranked: list[tuple[Any, ...]]
    round_of: dict[int, int]  # game id -> round
    games: int
    period_id: int | None
    in_force: dict[int, int | None]
    own_start: dict[int, int | None]
    average: int | None
    played: int = 0  # the last round with a game or a bye


def tournament_for_page(*, club: Club, tournament_id: int) -> Tournament:
    tournament = (
        tournament_in_club(club=club, tournament_id=tournament_id)
        .select_related("rating_list")
        .first()
    )
    if tournament is None:
        raise NotFoundError(
            gettext("%(club)s has no tournament %(id)s.") % {"club": club.name, "id": tournament_id}
        )
    tournament.club = club
    tournament.rating_list.club = club
    return tournament


def _games(tournament: Tournament, players: list[int]) -> list[Game]:
    """The games of ``players`` (a page of the standings) with both players."""
    games = list(
        tournament_games(tournament=tournament)
        .filter(Q(white_id__in=players) | Q(black_id__in=players))
        .select_related("white", "black", "period")
        .only(
            "date",
            "round",
            "result",
            "rated",
            "period__id",
            "period__month",
            "period__status",
            "period__rating_list_id",
            *(f"{side}__{f}" for side in ("white", "black") for f in _PLAYER_FIELDS),
        )
        .order_by("round", "date", "id")
    )
    # The page's tournament, for the engine's rules by its start without a query per game.
    for game in games:
        game.tournament = tournament
    return games


_PLAYER_FIELDS = ("id", "name", "title", "federation", "fide_id")


class _GameRow(NamedTuple):
    """A game as the standings need it: no model instance per game."""

    pk: int
    white_id: int
    black_id: int
    result: str
    round: int | None
    date: datetime.date
    period_id: int


def _byes(tournament: Tournament, players: list[int] | None = None) -> list[TournamentBye]:
    byes = tournament_byes(tournament=tournament)
    if players is not None:
        byes = byes.filter(player_id__in=players)
    return list(
        byes.select_related("player")
        .only("round", "kind", "player_id", *(f"player__{f}" for f in _PLAYER_FIELDS))
        .order_by("round", "id")
    )


def _rounds_of(games: Sequence[_GameRow], declared: int | None) -> dict[int, int]:
    """Game id -> round. A game without a round takes the next round its players have
    not used yet (in play order), so hand-entered events still make a crosstable."""
    used: dict[int, set[int]] = defaultdict(set)
    rounds: dict[int, int] = {}
    for game in sorted(games, key=lambda g: (g.round is None, g.round or 0, g.date, g.pk)):
        number = game.round
        if number is None:
            number = 1
            while number in used[game.white_id] or number in used[game.black_id]:
                number += 1
        rounds[game.pk] = number
        used[game.white_id].add(number)
        used[game.black_id].add(number)
    return rounds


# A day: the key names the club's live generation, which every game and every change
# that publishes replaces.
RANKING_SECONDS = 24 * 3600


def ranking(tournament: Tournament) -> Ranking:
    """The tournament's ``Ranking``, from the cache when the club's generation has it."""
    slug = tournament.club.slug
    # The live generation: a game of the tournament changes the standings.
    generation = club_generation(slug, Generation.LIVE)
    # "v2": the standings packed as flat tuples (an older process's entries are not read).
    key = f"tournament-ranking:v2:{slug}:{generation}:{tournament.pk}"
    found: Ranking | None = cache.get(key) if generation is not None else None
    if found is None:
        found = _compute_ranking(tournament)
        if generation is not None:
            cache.set(key, found, RANKING_SECONDS)
    return found


def _compute_ranking(tournament: Tournament) -> Ranking:
    """Standings (score, then the C.07 tie-breaks) of every player, from the games as
    plain rows (two queries: games, byes), and the ratings in force (``_ratings``)."""
    games = [
        _GameRow(*row)
        for row in tournament_games(tournament=tournament)
        .order_by("round", "date", "id")
        .values_list("id", "white_id", "black_id", "result", "round", "date", "period_id")
    ]
    byes = list(
        tournament_byes(tournament=tournament)
        .order_by("round", "id")
        .values_list("player_id", "round", "kind")
    )
    round_of = _rounds_of(games, tournament.rounds)
    rounds = max([tournament.rounds or 0, *round_of.values(), *(bye[1] for bye in byes)])
    table: dict[Hashable, list[RoundResult]] = defaultdict(list)
    for game in games:
        white_score, black_score, played = GAME_RESULTS[game.result]
        number = round_of[game.pk]
        table[game.white_id].append(RoundResult(number, SCORES[white_score], game.black_id, played))
        table[game.black_id].append(RoundResult(number, SCORES[black_score], game.white_id, played))
    # Byes are not rated but belong to the standings (C.07 16: unplayed rounds).
    for player_id, number, kind in byes:
        table[player_id].append(RoundResult(number, BYE_POINTS[kind], None, False))
    ranked = standings(table, rounds, capped=caps_unplayed(tournament.start_date))
    period_id = games[0].period_id if games else None
    period = period_find(period_id=period_id) if period_id else None
    in_force, own_start = _ratings(tournament, period) if table else ({}, {})
    rated = [r for r in (in_force.get(_pid(s.player)) for s in ranked) if r is not None]
    average = engine.round_half_away(Fraction(sum(rated), len(rated))) if rated else None
    packed = [_packed(standing) for standing in ranked]
    last_round = max([0, *round_of.values(), *(bye[1] for bye in byes)])
    return Ranking(
        rounds, packed, round_of, len(games), period_id, in_force, own_start, average, last_round
    )


def _pid(key: Hashable) -> int:
    """A player's key in the standings: the page's tables are keyed by player id."""
    assert isinstance(key, int)
    return key


def _packed(standing: Standing) -> tuple[Any, ...]:
    """One flat tuple of plain values: (rank, player, shared, wins, then numerator and
    denominator of score, Cut-1, Buchholz, SB and direct encounter (None, None without))."""
    t = standing.tiebreaks
    de = t.direct_encounter
    return (
        standing.rank,
        standing.player,
        standing.shared,
        t.wins,
        t.score.numerator,
        t.score.denominator,
        t.buchholz_cut1.numerator,
        t.buchholz_cut1.denominator,
        t.buchholz.numerator,
        t.buchholz.denominator,
        t.sonneborn_berger.numerator,
        t.sonneborn_berger.denominator,
        None if de is None else de.numerator,
        None if de is None else de.denominator,
    )


def _unpacked(packed: tuple[Any, ...]) -> Standing:
    rank, player, shared, wins, *figures = packed
    score, cut1, buchholz, sb, de = (
        None if numerator is None else Fraction(numerator, denominator)
        for numerator, denominator in zip(figures[::2], figures[1::2], strict=True)
    )
    tiebreaks = TieBreaks(score, buchholz, cut1, sb, wins, de)  # type: ignore[arg-type]
    return Standing(rank, player, tiebreaks, shared=shared)


def tournament_view(
    *, tournament: Tournament, page_number: str | int | None = None
) -> TournamentView:
    """Standings (score, then the C.07 tie-breaks), the crosstable, and per player the
    rating in force, the performance (FIDE 8.1.1 over played games against rated
    opponents) and the rating change the event's games brought in a closed period.

    A page of ``TOURNAMENT_PAGE_SIZE`` players at a time (the standings and the
    crosstable of the same players): the figures and cells are computed for those alone,
    the standings (which need every game) come from ``ranking``."""
    found = ranking(tournament)
    packed_page = Paginator(found.ranked, TOURNAMENT_PAGE_SIZE).get_page(page_number)
    shown: list[Standing] = [_unpacked(packed) for packed in packed_page]
    # The same page (number, count, links) of the unpacked standings.
    page: Page[Standing] = Page(shown, packed_page.number, packed_page.paginator)  # type: ignore[arg-type]
    ids = [_pid(s.player) for s in page]
    games = _games(tournament, ids) if ids else []
    byes = _byes(tournament, ids) if ids else []
    players: dict[int, Player] = {}
    by_player: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        players[game.white_id], players[game.black_id] = game.white, game.black
        by_player[game.white_id].append(game)
        by_player[game.black_id].append(game)
    byes_of: dict[int, list[TournamentBye]] = defaultdict(list)
    for bye in byes:
        players[bye.player_id] = bye.player
        byes_of[bye.player_id].append(bye)
    # The crosstable numbers players by their place in the standings (1..n, even where a
    # rank is shared), so every opponent number names one player.
    rank_of = {packed[1]: number for number, packed in enumerate(found.ranked, start=1)}
    period = games[0].period if games else None
    if period is None and found.period_id is not None:
        period = period_find(period_id=found.period_id)
    rows = []
    for standing, pid in zip(page, ids, strict=True):
        row = PlayerRow(standing, players[pid], found.in_force.get(pid))
        row.cells = _cells(pid, by_player[pid], found.round_of, found.rounds, rank_of)
        for bye in byes_of[pid]:
            cell = row.cells[bye.round - 1]
            cell.points, cell.played, cell.bye = BYE_POINTS[bye.kind], False, bye.kind
        row.games = len(by_player[pid])
        rows.append(row)
    _figures(rows, tournament, period, by_player, found.in_force, found.own_start)
    return TournamentView(
        tournament,
        found.rounds,
        rows,
        found.games,
        period,
        found.average,
        page=page,
        players=len(found.ranked),
        # A Ranking cached before the field existed reads as played in full.
        played=getattr(found, "played", 0) or found.rounds,
    )


def _ratings(
    tournament: Tournament, period: RatingPeriod | None
) -> tuple[dict[int, int | None], dict[int, int | None]]:
    """Ratings in force at the tournament's start (what its games were scored with), and
    at its period's start (each player's own rating for the change, as the close), of
    the tournament's players."""
    rating_list: RatingList = tournament.rating_list
    start = tournament.start_date.replace(day=1)
    period_month = period.month if period is not None else start
    month = view_month(period_month, tournament.start_date)
    keys = [(rating_list.pk, month), (rating_list.pk, period_month)]
    found = ratings_in_force(
        lists={rating_list.pk: rating_list},
        months=keys,
        players=tournament_player_ids(tournament=tournament),
    )
    return found[keys[0]], found[keys[1]]


def _cells(
    pid: int, games: list[Game], round_of: dict[int, int], rounds: int, rank_of: dict[Any, int]
) -> list[Cell]:
    cells = [Cell(number) for number in range(1, rounds + 1)]
    for game in games:
        white = game.white_id == pid
        opponent = game.black if white else game.white
        white_score, black_score, played = GAME_RESULTS[game.result]
        cell = cells[round_of[game.pk] - 1]
        cell.opponent = opponent
        cell.opponent_rank = rank_of.get(opponent.pk)
        cell.colour = "w" if white else "b"
        cell.points = SCORES[white_score if white else black_score]
        cell.played = played
    return cells


def _figures(
    rows: list[PlayerRow],
    tournament: Tournament,
    period: RatingPeriod | None,
    by_player: dict[int, list[Game]],
    in_force: dict[int, int | None],
    own_start: dict[int, int | None],
) -> None:
    """Performance and the event's rating change for each row (one query: the period's
    published changes, for the K the close used).

    A tournament's games all fall in one period (its end month's: ``game_period_month``).
    The change is the player page's figure for the event's games of that period
    (``games.scored_games``: the list's rating system explains them as the close scored
    them, with the K the close recorded), so it is what the close
    published wherever the event was all the player played that period."""
    closed = period is not None and period.status == RatingPeriod.Status.CLOSED
    changes: dict[int, RatingChange] = {}
    if closed:
        changes = {
            c.player_id: c
            for c in current_rows(period=period, player_id__in=[r.player.pk for r in rows]).only(
                "player_id", "k_factor", "event", "rating_before", "state_before", "state_after"
            )
        }
    # One event's games: the same rules for every row.
    starts = {tournament.pk: tournament.start_date}
    for row in rows:
        pid = row.player.pk
        details = [game_detail(game, pid, in_force) for game in by_player[pid]]
        row.performance = performance_of(details)
        if not closed:
            row.change_note = gettext("period not closed yet")
            continue
        row.change, row.change_note = event_change(
            changes.get(pid), period, details, tournament.rating_list, starts, own_start.get(pid)
        )
