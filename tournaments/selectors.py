"""Read helpers for periods, games and published ratings. Set-based: no query per row."""

from __future__ import annotations

import datetime

from django.db.models import Count, Q, QuerySet

from players.models import (
    Club,
    RatingList,
    RatingPeriod,
)
from tournaments.models import Game, Tournament


def periods_with_counts(*, rating_list: RatingList) -> QuerySet[RatingPeriod]:
    """The list's periods, oldest first, each annotated with ``games_count``."""
    return (
        RatingPeriod.objects.filter(rating_list=rating_list)
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
