"""What a club records, read set-based: its lists and players, the periods and what each
closed period published, the players' histories and likely duplicate records."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    JSONField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)

from players.errors import NotFoundError, ValidationFailed
from players.models import (
    Club,
    KFactorChange,
    Player,
    PlayerMerge,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    RatingRun,
    inactive_cutoff,
)
from players.names import LikelyDuplicate, PersonKey, likely_duplicates
from players.selectors.published import (
    closed_periods,
    current_rows,
    k_changes_in_force,
    published_rows,
)


def clubs_by_name() -> QuerySet[Club]:
    """Every club, by name: for callers that scope them to a user (the admin's forms)."""
    return Club.objects.order_by("name")


def club_by_slug(*, slug: str) -> Club | None:
    return Club.objects.filter(slug=slug).first()


def every_list() -> QuerySet[RatingList]:
    """Every club's lists with their club: for callers that scope them to a user."""
    return RatingList.objects.select_related("club")


def lists_of_clubs(*, clubs: QuerySet[Club]) -> QuerySet[RatingList]:
    return RatingList.objects.filter(club__in=clubs)


def player_names(*, ids: Iterable[int]) -> dict[int, str]:
    """Player id -> name, in one query."""
    return dict(Player.objects.filter(pk__in=list(ids)).values_list("pk", "name"))


def club_lists(*, club: Club | str) -> QuerySet[RatingList]:
    """The club's rating lists (``club``: the club, or its slug)."""
    if isinstance(club, str):
        return RatingList.objects.filter(club__slug=club)
    return RatingList.objects.filter(club=club)


def club_players(*, club: Club | str) -> QuerySet[Player]:
    """The club's players (``club``: the club, or its slug)."""
    if isinstance(club, str):
        return Player.objects.filter(club__slug=club)
    return Player.objects.filter(club=club)


def players_in_clubs(*, clubs: QuerySet[Club]) -> QuerySet[Player]:
    """The players of ``clubs`` (a queryset: read as a subquery)."""
    return Player.objects.filter(club__in=clubs)


def rated_states(*, player: Any) -> QuerySet[PlayerRating]:
    """The player's states that hold a rating (``player``: a player, an id or an
    ``OuterRef``)."""
    return PlayerRating.objects.filter(player=player, rating__isnull=False)


def club_merges(*, club: Club) -> QuerySet[PlayerMerge]:
    """The club's merges of duplicate records, with who merged them."""
    return PlayerMerge.objects.filter(club=club).select_related("by")


def player_ratings(*, player: Player) -> QuerySet[PlayerRating]:
    """The player's current state on each of their lists, the list joined in."""
    return PlayerRating.objects.filter(player=player).select_related("rating_list")


def list_ratings(*, rating_list: RatingList | int) -> QuerySet[PlayerRating]:
    """The current state of every player of the list (``rating_list``: the list or its id)."""
    return PlayerRating.objects.filter(rating_list=rating_list)


def period_by_id(*, period_id: int) -> QuerySet[RatingPeriod]:
    """The period ``period_id`` as a query, for the caller to join and ``.get()``."""
    return RatingPeriod.objects.filter(pk=period_id)


def periods_by_ids(*, ids: Iterable[int]) -> QuerySet[RatingPeriod]:
    return RatingPeriod.objects.filter(pk__in=ids)


def rating_list_by_id(*, list_id: int) -> QuerySet[RatingList]:
    """The list ``list_id`` as a query, for the caller to join and ``.get()``."""
    return RatingList.objects.filter(pk=list_id)


def period_find(*, period_id: int) -> RatingPeriod | None:
    return RatingPeriod.objects.filter(pk=period_id).first()


def rating_list_get(*, club: Club, kind: str) -> RatingList:
    rating_list = club_lists(club=club).filter(slug=kind).select_related("club").first()
    if rating_list is None:
        raise NotFoundError(f"No {kind!r} list in {club.name}.")
    return rating_list


def players_for_club(*, club: Club) -> QuerySet[Player]:
    """A club's players with their ratings on every list, prefetched in one extra query."""
    return club_players(club=club).select_related("user").prefetch_related("ratings__rating_list")


def player_ratings_for_list(*, rating_list: RatingList) -> QuerySet[PlayerRating]:
    return list_ratings(rating_list=rating_list).select_related("player")


def player_k_history(*, player: Player, rating_list: RatingList) -> QuerySet[KFactorChange]:
    """K changes in force (replayed-over rows excluded), oldest first."""
    return k_changes_in_force(player=player, rating_list=rating_list).order_by(
        "effective_month", "id"
    )


# A month as the API writes it: what the schema declares and parse_month takes (years
# 0001-9999, months 01-12; no space, no single digit).
MONTH_PATTERN = r"^(000[1-9]|00[1-9]\d|0[1-9]\d{2}|[1-9]\d{3})-(0[1-9]|1[0-2])$"


def parse_month(value: str, *, field: str = "period") -> datetime.date:
    """``YYYY-MM`` -> the first day of that month; ValidationFailed naming ``field``."""
    try:
        if not re.fullmatch(MONTH_PATTERN, value):
            raise ValueError(value)
        parsed = datetime.datetime.strptime(value, "%Y-%m").date()  # noqa: DTZ007
    except (ValueError, TypeError):
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


def latest_closed_period(
    *, rating_list: RatingList, before: datetime.date | None = None
) -> RatingPeriod | None:
    """The period of the list in force (before the month ``before``): the list's newest
    closed period; None while none is closed."""
    periods = closed_periods(rating_list=rating_list)
    if before is not None:
        periods = periods.filter(month__lt=before)
    return periods.first()


def with_rules_rated_under(periods: QuerySet[RatingPeriod]) -> QuerySet[RatingPeriod]:
    """``periods`` with what ``rules_rated_under`` reads, in the same query: the ``rules``
    of the run that wrote each period's current rows. A close's or a replay's run writes
    all of a period's current rows (a replay retires the old ones first), so any one row
    names it: one index probe and one key lookup per period."""
    run_id = current_rows(period=OuterRef(OuterRef("pk"))).order_by().values("run_id")[:1]
    rules = RatingRun.objects.filter(pk=Subquery(run_id)).order_by().values("summary__rules")
    return periods.annotate(rated_rules=Subquery(rules[:1], output_field=JSONField()))


def rules_rated_under(period: RatingPeriod) -> str:
    """The rules a closed period was rated under, as its close or replay recorded them
    (a close: one name; a replay: one name per period label), even when the list's rules
    have changed since. An open or reopened period: the rules its next close or replay
    would use, from the list's settings as they are now (as for a period whose run
    recorded none)."""
    if period.status == RatingPeriod.Status.CLOSED:
        if hasattr(period, "rated_rules"):
            rules = period.rated_rules
        else:
            found = with_rules_rated_under(RatingPeriod.objects.filter(pk=period.pk)).only("id")
            rules = getattr(found.first(), "rated_rules", None)
        if isinstance(rules, dict):
            rules = rules.get(period.label)
        if isinstance(rules, str):
            return rules
    return period.rating_list.settings().for_month(period.month).rules_name()


def published_list(
    *, rating_list: RatingList, period: RatingPeriod | None = None
) -> QuerySet[RatingChange]:
    """The list published after ``period`` (default: the latest closed one), ranked.

    Rows are the period's current RatingChange rows of rated players, best first, with the
    player joined in; ``games`` is the games rated in that period and ``rated_games_after``
    the total; ``inactive`` (FIDE) is true when the player has played no rated game on
    the list in the 12 months up to the period.
    """
    if period is None:
        period = latest_closed_period(rating_list=rating_list)
        if period is None:
            return RatingChange.objects.none()
    return with_inactive(
        published_rows(period=period)
        .select_related("player", "period")
        .order_by("-rating_after", "player__name", "player_id"),
        period=period,
    )


def with_inactive(rows: QuerySet[RatingChange], *, period: RatingPeriod) -> QuerySet[RatingChange]:
    """``rows`` (of ``period``) annotated with ``inactive``: no rated game on the list in
    the 12 months up to the period (FIDE; still listed, flagged)."""
    return rows.annotate(
        inactive=ExpressionWrapper(
            # IS NOT NULL keeps the value a plain false (never NULL) for filters.
            Q(
                last_active_month__isnull=False,
                last_active_month__lte=inactive_cutoff(period.month),
            ),
            output_field=BooleanField(),
        )
    )


def player_history(*, player: Player, rating_list: RatingList) -> QuerySet[RatingChange]:
    """Every closed period's current row for the player on the list, oldest first."""
    return (
        current_rows(player=player, rating_list=rating_list)
        .select_related("period")
        .order_by("period__month")
    )


@dataclass(frozen=True)
class DuplicatePair:
    """Two player records of a club that may be one person (see likely_duplicates)."""

    player: Player
    duplicate: Player
    reasons: tuple[str, ...]
    score: int


def duplicate_pairs(*, club: Club) -> list[DuplicatePair]:
    """The club's likely duplicate records, best first; in each pair the older record
    (lower id) is ``player``, the one a merge would keep by default. Two queries."""
    people = (
        PersonKey(*row)
        for row in club_players(club=club)
        .order_by()
        .values_list("id", "name_key", "birth_date", "birth_year", "fide_id")
        .iterator(chunk_size=10000)
    )
    pairs: list[LikelyDuplicate] = likely_duplicates(people)
    records = Player.objects.in_bulk({pid for pair in pairs for pid in (pair.first, pair.second)})
    return [
        DuplicatePair(records[pair.first], records[pair.second], pair.reasons, pair.score)
        for pair in pairs
    ]
