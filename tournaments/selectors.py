"""Read helpers for tournaments, games and the periods that hold them. Set-based: no query
per row.

The rows the pages, the API, the admin and the commands start from are named here
(``tournament_games``, ``games_of_player``, ...): each returns a queryset that its caller
narrows, joins and orders for what it shows."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Greatest, Least

from players.models import (
    Club,
    Player,
    RatingChange,
    RatingList,
    RatingPeriod,
    add_months,
)
from players.selectors import current_rows, list_ratings, with_rules_rated_under
from tournaments.models import Game, Result, Tournament, TournamentBye, TournamentEntry


def periods_with_counts(*, rating_list: RatingList) -> QuerySet[RatingPeriod]:
    """The list's periods, oldest first, each annotated with ``games_count`` and with
    what ``rules_rated_under`` reads."""
    return (
        with_rules_rated_under(RatingPeriod.objects.filter(rating_list=rating_list))
        .select_related("rating_list")
        .annotate(games_count=Count("games"))
        .order_by("month")
    )


def games_for_club(*, club: Club) -> QuerySet[Game]:
    return Game.objects.filter(club=club).select_related(
        "white", "black", "period", "tournament", "rating_list"
    )


def tournaments_for_club(*, club: Club) -> QuerySet[Tournament]:
    return (
        Tournament.objects.filter(club=club)
        .select_related("rating_list")
        .annotate(games_count=Count("games"))
    )


def open_periods_with_games(
    *, rating_list: RatingList, before: datetime.date
) -> QuerySet[RatingPeriod]:
    return RatingPeriod.objects.filter(
        Q(rating_list=rating_list, month__lt=before) & ~Q(status=RatingPeriod.Status.CLOSED),
        games__isnull=False,
    ).distinct()


@dataclass(frozen=True)
class CloseOutlook:
    """What closing a period will do, counted without computing it (the admin's
    confirmation): the rows the close writes are one per player of the list."""

    period: RatingPeriod
    games: int
    rated_games: int
    players_played: int
    players_listed: int
    # The list the close publishes is dated the first of the next month.
    list_date: datetime.date
    # Why the close will refuse it ("": it can be closed), as far as its status tells.
    refusal: str
    # The month has not ended: its close is an early one (needs saying so).
    not_over: bool = False


def periods_close_outlook(*, periods: Sequence[RatingPeriod]) -> list[CloseOutlook]:
    """For each period, in the order given: its games, the players who played, the
    players of its list, and the list's date. Two queries per period and one for all."""
    games = {
        row["period_id"]: row
        for row in Game.objects.filter(period__in=periods)
        .values("period_id")
        .annotate(total=Count("id"), rated=Count("id", filter=Q(rated=True)))
        .order_by()
    }
    refusals = {
        RatingPeriod.Status.CLOSED: "already closed",
        RatingPeriod.Status.NEEDS_REPLAY: "reopened: replay the list instead",
    }
    outlook = []
    for period in periods:
        in_period = period_games(period=period).order_by()
        played = in_period.values("white_id").union(in_period.values("black_id")).count()
        # As the close reads its players: from their entry month on, or earlier if they play.
        listed = (
            list_ratings(rating_list=period.rating_list_id)
            .filter(
                Q(entry_month__isnull=True)
                | Q(entry_month__lte=period.month)
                | Q(player_id__in=in_period.values("white_id"))
                | Q(player_id__in=in_period.values("black_id"))
            )
            .count()
        )
        counts = games.get(period.pk, {"total": 0, "rated": 0})
        outlook.append(
            CloseOutlook(
                period=period,
                games=counts["total"],
                rated_games=counts["rated"],
                players_played=played,
                players_listed=listed,
                list_date=add_months(period.month, 1),
                refusal=refusals.get(RatingPeriod.Status(period.status), ""),
                not_over=not period.month_over(),
            )
        )
    return outlook


def period_changes(period: RatingPeriod) -> QuerySet[RatingChange]:
    """What the period's close (or replay) published, best first."""
    return current_rows(period=period).order_by(
        F("rating_after").desc(nulls_last=True), "player__name", "player_id"
    )


def periods_due(*, club_ids: Sequence[int], today: datetime.date) -> list[RatingPeriod]:
    """Per list of ``club_ids``: its earliest open period whose month is over (periods
    close in order, so that one is due first), annotated with ``games_count``; the list
    and club come with it. Lists without such a period are left out."""
    this_month = today.replace(day=1)
    candidates = (
        RatingPeriod.objects.filter(
            rating_list__club_id__in=club_ids,
            status=RatingPeriod.Status.OPEN,
            month__lt=this_month,
        )
        .select_related("rating_list__club")
        .annotate(games_count=Count("games"))
        .order_by("rating_list__club__name", "rating_list_id", "month")
    )
    due: dict[int, RatingPeriod] = {}
    for period in candidates:
        due.setdefault(period.rating_list_id, period)
    return list(due.values())


def club_tournaments(*, club: Club) -> QuerySet[Tournament]:
    """The club's tournaments, newest first (by end date), each with its list."""
    return (
        Tournament.objects.filter(club=club)
        .select_related("rating_list")
        .order_by("-end_date", "-id")
    )


def tournament_find(*, tournament_id: int) -> Tournament | None:
    return Tournament.objects.filter(pk=tournament_id).first()


def tournament_in_club(*, club: Club, tournament_id: int) -> QuerySet[Tournament]:
    """The club's tournament ``tournament_id`` (none: not one of the club's)."""
    return Tournament.objects.filter(club=club, pk=tournament_id)


def games_counts(*, tournament_ids: Sequence[int]) -> dict[int, int]:
    """Tournament id -> its number of games (tournaments without games left out)."""
    return dict(
        Game.objects.filter(tournament__in=tournament_ids)
        .order_by()
        .values_list("tournament_id")
        .annotate(n=Count("id"))
        .values_list("tournament_id", "n")
    )


def tournament_games(*, tournament: Tournament) -> QuerySet[Game]:
    return Game.objects.filter(tournament=tournament)


def tournament_byes(*, tournament: Tournament) -> QuerySet[TournamentBye]:
    return TournamentBye.objects.filter(tournament=tournament)


def tournament_player_ids(*, tournament: Tournament) -> QuerySet[Player, int]:
    """The ids of the tournament's players (a game or a bye), as a subquery: the ratings
    are read for them without sending thousands of ids to the database and back (a list
    of 5,000 took a 5,000-player event's page a quarter of a second to send)."""
    games = tournament_games(tournament=tournament)
    return Player.objects.filter(
        Q(pk__in=games.values("white_id"))
        | Q(pk__in=games.values("black_id"))
        | Q(pk__in=tournament_byes(tournament=tournament).values("player_id"))
    ).values_list("pk", flat=True)


def games_of_player(*, player: Player | int) -> QuerySet[Game]:
    """Every game ``player`` (a player or their id) played, with either colour."""
    return Game.objects.filter(Q(white=player) | Q(black=player))


def games_between(*, club: Club, player_id: int, opponent_id: int) -> QuerySet[Game]:
    """The club's games of the two players against each other, either colour."""
    return Game.objects.filter(
        Q(white_id=player_id, black_id=opponent_id) | Q(white_id=opponent_id, black_id=player_id),
        club=club,
    )


def game_get(*, game_id: int) -> Game:
    """The game with its club and list (what a change of it checks)."""
    return Game.objects.select_related("club", "rating_list").get(pk=game_id)


def period_games(*, period: RatingPeriod) -> QuerySet[Game]:
    return Game.objects.filter(period=period)


def games_to_be_rated(*, player_ids: Sequence[int]) -> QuerySet[Game]:
    """The games of these players in periods not closed yet (open, or reopened for a
    replay): what the next closes will rate. Oldest first."""
    return (
        Game.objects.filter(Q(white_id__in=player_ids) | Q(black_id__in=player_ids))
        .exclude(period__status=RatingPeriod.Status.CLOSED)
        .select_related("white", "black", "rating_list", "period", "tournament")
        .order_by("date", "id")
    )


def tournament_entries(*, tournament: Tournament) -> QuerySet[TournamentEntry]:
    """The tournament's entry list (the forecasts' field)."""
    return TournamentEntry.objects.filter(tournament=tournament)


def games_per_period(*, period_ids: Sequence[int]) -> dict[int, int]:
    """Period id -> the games it holds (rated or not, forfeits too): one grouped query; a
    period without games is left out."""
    return dict(
        Game.objects.filter(period_id__in=period_ids)
        .order_by()
        .values_list("period_id")
        .annotate(n=Count("id"))
        .values_list("period_id", "n")
    )


# Who won a game, by the lower and the higher player id of the pair (forfeits count, as
# they do in the head-to-head page's score; a double forfeit scores for neither).
_WHITE_WON = (Result.WHITE_WINS, Result.WHITE_FORFEIT_WIN)
_BLACK_WON = (Result.BLACK_WINS, Result.BLACK_FORFEIT_WIN)
_LOW_WON = Q(white_id__lt=F("black_id"), result__in=_WHITE_WON) | Q(
    black_id__lt=F("white_id"), result__in=_BLACK_WON
)
_HIGH_WON = Q(white_id__gt=F("black_id"), result__in=_WHITE_WON) | Q(
    black_id__gt=F("white_id"), result__in=_BLACK_WON
)


def pairings(*, periods: QuerySet[RatingPeriod]) -> QuerySet[Game, dict[str, int]]:
    """The pairs of players who met in the games of ``periods``, most games first: one
    row per pair (``low`` and ``high``: the two player ids, lower first) with ``games``,
    ``low_wins``, ``draws`` and ``high_wins``, grouped by the database. The caller cuts."""
    return (
        Game.objects.filter(period__in=periods)
        .annotate(low=Least("white_id", "black_id"), high=Greatest("white_id", "black_id"))
        .order_by()
        .values("low", "high")
        .annotate(
            games=Count("id"),
            low_wins=Count("id", filter=_LOW_WON),
            draws=Count("id", filter=Q(result=Result.DRAW)),
            high_wins=Count("id", filter=_HIGH_WON),
        )
        .order_by("-games", "low", "high")
    )
