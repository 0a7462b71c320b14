"""Read helpers for clubs, roles, players and what closed periods published: access
scoping used by every interface, published lists, histories and the ratings in force.

Each helper is set-based (annotate / prefetch), so a list of N rows costs a constant number
of queries.
"""

from __future__ import annotations

import datetime
import time
import uuid
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    JSONField,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.utils import timezone

from players.errors import NotFoundError, PermissionDeniedError, ValidationFailed
from players.models import (
    ApiToken,
    Club,
    FirstRatingPolicy,
    Job,
    KFactorChange,
    ListKind,
    Membership,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    inactive_cutoff,
)
from players.names import LikelyDuplicate, PersonKey, likely_duplicates

User = AbstractBaseUser | AnonymousUser


def _is_superuser(user: User | None) -> bool:
    return bool(user is not None and user.is_authenticated and getattr(user, "is_superuser", False))


def clubs_visible_to(user: User | None) -> QuerySet[Club]:
    """Public clubs, plus the clubs where ``user`` is a member; a superuser sees all."""
    if _is_superuser(user):
        return Club.objects.all()
    if user is None or not user.is_authenticated:
        return Club.objects.filter(public=True)
    member = Membership.objects.filter(club=OuterRef("pk"), user_id=user.pk)
    return Club.objects.filter(Q(public=True) | Exists(member))


def membership_role(user: User | None, club: Club) -> Role | None:
    """The user's role in the club; a superuser counts as owner everywhere."""
    if user is None or not user.is_authenticated:
        return None
    if _is_superuser(user):
        return Role.OWNER
    role = (
        Membership.objects.filter(user_id=user.pk, club_id=club.pk)
        .values_list("role", flat=True)
        .first()
    )
    return None if role is None else Role(role)


def require_role(user: User | None, club: Club, role: Role) -> Role:
    """The user's role when it includes ``role``'s rights.

    Raises NotFoundError when the user may not even see the club (so a private club's
    existence does not leak) and PermissionDeniedError when the role is too low.
    """
    held = membership_role(user, club)
    if held is None:
        if not club.public:
            raise NotFoundError("No such club.")
        raise PermissionDeniedError(f"This needs the {role.label.lower()} role in {club.name}.")
    if not Role.includes(held, role):
        raise PermissionDeniedError(f"This needs the {role.label.lower()} role in {club.name}.")
    return held


def club_get_visible(*, user: User | None, slug: str) -> Club:
    club = clubs_visible_to(user).filter(slug=slug).first()
    if club is None:
        raise NotFoundError(f"No club {slug!r}.")
    return club


def published_generation_key(slug: str) -> str:
    """Where the club's generation is kept in the cache: the name of the current state of
    what its public views show (players.api.cache), by slug (what a request knows before
    the club is read; slugs never change)."""
    return f"published:generation:{slug}"


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


def club_members(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("user").order_by("user__username")


def roles_by_club(user: User | None) -> dict[int, Role]:
    """Every club id -> the user's role in it, in one query (for list views and admin)."""
    if user is None or not user.is_authenticated:
        return {}
    rows: Any = Membership.objects.filter(user_id=user.pk).values_list("club_id", "role")
    return {club_id: Role(role) for club_id, role in rows}


# -- periods and what they published ------------------------------------------------------


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


InForceKey = tuple[int, datetime.date]


def ratings_in_force(
    *,
    lists: Mapping[int, RatingList],
    months: Iterable[InForceKey],
    players: Collection[int] | None = None,
    known: Mapping[InForceKey, Mapping[int, int | None]] | None = None,
    fixed_start: bool = True,
) -> dict[InForceKey, dict[int, int | None]]:
    """The ratings a game is scored with, per (list id, month): the one rule the period
    close and the player page share.

    For ``month`` (a tournament's first month, or the period's own month), a player's
    rating is the one on the list published before it: their row in the latest closed
    period of the list before ``month``, else the rating the club entered (None:
    unrated). On a rapid or blitz list a player unrated there who holds a standard
    rating in force at ``month`` (same rule, on the club's standard list) uses it and
    counts as rated (FIDE rapid and blitz regulations). On a list with a fixed starting
    rating a player still unrated counts at it (``with_fixed_start``), unless
    ``fixed_start`` is False: the close applies it itself, after telling who counts
    through the standard rating (their K depends on it).
    ``known`` gives the published ratings the caller has already read for some keys (the
    close's period-start states); the rules above still apply to them. ``players`` limits
    the players read (None: every player of the lists). At most three queries, whatever
    the number of months, games or players.
    """
    wanted = list(dict.fromkeys(months))
    known = known or {}
    to_read = [key for key in wanted if key not in known]
    # FIDE rapid and blitz: an unrated player who holds a standard rating at the start of
    # the event uses it and counts as rated. The club's standard list is read with the
    # lists themselves (same queries), found by its club and kind.
    needs_standard = [key for key in wanted if lists[key[0]].kind != ListKind.STANDARD]
    published = _Published()
    if to_read or needs_standard:
        standard_clubs = {lists[list_id].club_id for list_id, _ in needs_standard}
        scope = Q(rating_list_id__in={list_id for list_id, _ in to_read}) | Q(
            rating_list__club_id__in=standard_clubs, rating_list__slug=ListKind.STANDARD
        )
        published.read_periods(scope)

        def standard_list(key: InForceKey) -> int | None:
            return published.standard_of.get(lists[key[0]].club_id)

        sources = {published.source(list_id, month) for list_id, month in to_read}
        sources |= {published.source(standard_list(key), key[1]) for key in needs_standard}
        published.read_rows(sources, scope, players)

    result: dict[InForceKey, dict[int, int | None]] = {}
    for key in wanted:
        list_id, month = key
        ratings = dict(known[key]) if key in known else published.before(list_id, month)
        rating_list = lists[list_id]
        if rating_list.kind != ListKind.STANDARD:
            standard = published.before(published.standard_of.get(rating_list.club_id), month)
            ratings = {pid: standard.get(pid) if r is None else r for pid, r in ratings.items()}
        result[key] = with_fixed_start(rating_list, ratings) if fixed_start else ratings
    return result


@dataclass
class _Published:
    """What ``ratings_in_force`` reads: each list's closed periods (newest first), their
    published rows, the ratings the club entered, and each club's standard list."""

    closed: dict[int, list[tuple[datetime.date, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    rows: dict[int, dict[int, int | None]] = field(default_factory=lambda: defaultdict(dict))
    entries: dict[int, dict[int, int | None]] = field(default_factory=lambda: defaultdict(dict))
    standard_of: dict[int, int] = field(default_factory=dict)

    def read_periods(self, scope: Q) -> None:
        for list_id, club_id, kind, month, period_id in (
            RatingPeriod.objects.filter(scope, status=RatingPeriod.Status.CLOSED)
            .order_by("-month")
            .values_list(
                "rating_list_id", "rating_list__club_id", "rating_list__slug", "month", "id"
            )
        ):
            self.closed[list_id].append((month, period_id))
            if kind == ListKind.STANDARD:
                self.standard_of[club_id] = list_id

    def read_rows(
        self, sources: set[int | None], scope: Q, players: Collection[int] | None
    ) -> None:
        sources.discard(None)
        if sources:
            rows = RatingChange.objects.filter(period_id__in=sources, current=True)
            if players is not None:
                rows = rows.filter(player_id__in=players)
            for period_id, player_id, rating in rows.order_by().values_list(
                "period_id", "player_id", "rating_after"
            ):
                self.rows[period_id][player_id] = rating
        rated = PlayerRating.objects.filter(scope)
        if players is not None:
            rated = rated.filter(player_id__in=players)
        for list_id, club_id, kind, player_id, rating in rated.order_by().values_list(
            "rating_list_id",
            "rating_list__club_id",
            "rating_list__slug",
            "player_id",
            "entry_rating",
        ):
            self.entries[list_id][player_id] = rating
            if kind == ListKind.STANDARD:
                self.standard_of[club_id] = list_id

    def source(self, list_id: int | None, month: datetime.date) -> int | None:
        """The latest closed period of the list before ``month``."""
        if list_id is None:
            return None
        return next((pid for m, pid in self.closed[list_id] if m < month), None)

    def before(self, list_id: int | None, month: datetime.date) -> dict[int, int | None]:
        """The list published before ``month``: each player's row there, else the
        rating the club entered."""
        if list_id is None:
            return {}
        source_id = self.source(list_id, month)
        rows_of = self.rows.get(source_id, {}) if source_id is not None else {}
        return {
            player_id: rows_of.get(player_id, entered)
            for player_id, entered in self.entries[list_id].items()
        }


def with_fixed_start(
    rating_list: RatingList, ratings: dict[int, int | None]
) -> dict[int, int | None]:
    """On a list with a fixed starting rating a player still unrated counts at it; other
    lists: ``ratings`` itself."""
    if rating_list.first_rating_policy != FirstRatingPolicy.FIXED:
        return ratings
    fixed = rating_list.starting_rating
    return {pid: fixed if r is None else r for pid, r in ratings.items()}


@dataclass(frozen=True)
class MemberHome:
    """What a member sees at /accounts/: their roles, their player records (with each
    list's current rating) and their API tokens."""

    memberships: list[Membership]
    players: list[Player]
    tokens: list[ApiToken]


def member_home(*, user: AbstractBaseUser) -> MemberHome:
    """Three queries plus one prefetch, whatever the number of clubs and records."""
    memberships = list(
        Membership.objects.filter(user_id=user.pk).select_related("club").order_by("club__name")
    )
    players = list(
        Player.objects.filter(user_id=user.pk)
        .select_related("club")
        .prefetch_related("ratings__rating_list")
        .order_by("club__name", "name")
    )
    tokens = list(ApiToken.objects.filter(user_id=user.pk).order_by("-created"))
    return MemberHome(memberships=memberships, players=players, tokens=tokens)


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


# -- jobs -------------------------------------------------------------------------------------


def jobs_visible_to(user: User | None) -> QuerySet[Job]:
    """Jobs are club staff's work: members of the job's club (any role) and superusers see
    them; everyone else, visitors of a public club included, gets a 404."""
    if _is_superuser(user):
        return Job.objects.all()
    if user is None or not user.is_authenticated:
        return Job.objects.none()
    return Job.objects.filter(club__memberships__user_id=user.pk)


def job_get_visible(*, user: User | None, job_id: str | uuid.UUID) -> Job:
    try:
        job_id = uuid.UUID(str(job_id))
    except ValueError:
        raise NotFoundError("No such job.") from None
    job = jobs_visible_to(user).defer("payload", "output").filter(pk=job_id).first()
    if job is None:
        raise NotFoundError("No such job.")
    return job


def job_wait(*, job: Job, seconds: float) -> Job:
    """Poll ``job`` until it finished or ``seconds`` passed; the job as it is then. Polled
    (a row read every 50-500 ms), not notified: any database, any number of workers."""
    deadline = time.monotonic() + seconds
    delay = 0.05
    while not job.is_finished:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.5)
        job = Job.objects.defer("payload", "output").get(pk=job.pk)
    return job


def queue_oldest_queued_seconds() -> float | None:
    """How long the oldest queued job has waited (None: nothing waits): the health
    check's signal that no worker is taking jobs."""
    oldest = Job.objects.filter(status=Job.Status.QUEUED).aggregate(oldest=Min("created"))["oldest"]
    if oldest is None:
        return None
    return round(float((timezone.now() - oldest).total_seconds()), 1)
