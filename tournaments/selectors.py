"""Read helpers for periods, games and published ratings. Set-based: no query per row."""

from __future__ import annotations

import datetime

from django.db.models import Count, Q, QuerySet

from players.models import Club, Player, RatingList
from ratings_site.errors import NotFoundError, ValidationFailed
from tournaments.models import Game, RatingChange, RatingPeriod, Tournament


def parse_month(value: str, *, field: str = "period") -> datetime.date:
    """``YYYY-MM`` -> the first day of that month; ValidationFailed naming ``field``."""
    try:
        parsed = datetime.datetime.strptime(value.strip(), "%Y-%m").date()  # noqa: DTZ007
    except (ValueError, AttributeError):
        raise ValidationFailed(
            f"{field}: {value!r} is not a month written YYYY-MM.",
            fields={field: ["Write the month as YYYY-MM."]},
        ) from None
    return parsed


def period_get(*, rating_list: RatingList, month: datetime.date) -> RatingPeriod:
    period = (
        RatingPeriod.objects.filter(rating_list=rating_list, month=month)
        .select_related("rating_list__club")
        .first()
    )
    if period is None:
        raise NotFoundError(f"No period {month:%Y-%m} on the {rating_list.kind} list.")
    return period


def periods_with_counts(*, rating_list: RatingList) -> QuerySet[RatingPeriod]:
    """The list's periods, oldest first, each annotated with ``games_count``."""
    return (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .annotate(games_count=Count("games"))
        .order_by("month")
    )


def latest_closed_period(
    *, rating_list: RatingList, before: datetime.date | None = None
) -> RatingPeriod | None:
    periods = RatingPeriod.objects.filter(
        rating_list=rating_list, status=RatingPeriod.Status.CLOSED
    )
    if before is not None:
        periods = periods.filter(month__lt=before)
    return periods.order_by("-month").first()


def published_list(
    *, rating_list: RatingList, period: RatingPeriod | None = None
) -> QuerySet[RatingChange]:
    """The list published after ``period`` (default: the latest closed one), ranked.

    Rows are the period's current RatingChange rows of rated players, best first, with the
    player joined in; ``games`` is the games rated in that period and ``rated_games_after``
    the total.
    """
    if period is None:
        period = latest_closed_period(rating_list=rating_list)
        if period is None:
            return RatingChange.objects.none()
    return (
        RatingChange.objects.filter(period=period, current=True, rating_after__isnull=False)
        .select_related("player", "period")
        .order_by("-rating_after", "player__name", "player_id")
    )


def player_history(*, player: Player, rating_list: RatingList) -> QuerySet[RatingChange]:
    """Every closed period's current row for the player on the list, oldest first."""
    return (
        RatingChange.objects.filter(player=player, rating_list=rating_list, current=True)
        .select_related("period")
        .order_by("period__month")
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
