"""What a club records, read set-based: its lists and players, the periods and what each
closed period published, the players' histories and likely duplicate records."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

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
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    RatingRun,
    inactive_cutoff,
)
from players.names import LikelyDuplicate, PersonKey, likely_duplicates


def rating_list_get(*, club: Club, kind: str) -> RatingList:
    rating_list = RatingList.objects.filter(club=club, slug=kind).select_related("club").first()
    if rating_list is None:
        raise NotFoundError(f"No {kind!r} list in {club.name}.")
    return rating_list


def players_for_club(*, club: Club) -> QuerySet[Player]:
    """A club's players with their ratings on every list, prefetched in one extra query."""
    return (
        Player.objects.filter(club=club)
        .select_related("user")
        .prefetch_related("ratings__rating_list")
    )


def player_ratings_for_list(*, rating_list: RatingList) -> QuerySet[PlayerRating]:
    return PlayerRating.objects.filter(rating_list=rating_list).select_related("player")


def player_k_history(*, player: Player, rating_list: RatingList) -> QuerySet[KFactorChange]:
    """K changes in force (replayed-over rows excluded), oldest first."""
    return KFactorChange.objects.filter(
        player=player, rating_list=rating_list, current=True
    ).order_by("effective_month", "id")


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
    periods = RatingPeriod.objects.filter(
        rating_list=rating_list, status=RatingPeriod.Status.CLOSED
    )
    if before is not None:
        periods = periods.filter(month__lt=before)
    return periods.order_by("-month").first()


def with_rules_rated_under(periods: QuerySet[RatingPeriod]) -> QuerySet[RatingPeriod]:
    """``periods`` with what ``rules_rated_under`` reads, in the same query: the ``rules``
    of the run that wrote each period's current rows. A close's or a replay's run writes
    all of a period's current rows (a replay retires the old ones first), so any one row
    names it: one index probe and one key lookup per period."""
    run_id = (
        RatingChange.objects.filter(period=OuterRef(OuterRef("pk")), current=True)
        .order_by()
        .values("run_id")[:1]
    )
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
        RatingChange.objects.filter(period=period, current=True, rating_after__isnull=False)
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
        RatingChange.objects.filter(player=player, rating_list=rating_list, current=True)
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
        for row in Player.objects.filter(club=club)
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
