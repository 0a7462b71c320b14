"""Rating periods of a list, their close, reopen and replay, and the published list.

/api/v1/clubs/{club}/lists/{list}/periods/                    GET, POST (arbiter: open an empty one)
/api/v1/clubs/{club}/lists/{list}/periods/{YYYY-MM}/          GET
/api/v1/clubs/{club}/lists/{list}/periods/{YYYY-MM}/preview/  GET (viewer)
/api/v1/clubs/{club}/lists/{list}/periods/{YYYY-MM}/close/    POST (officer)
/api/v1/clubs/{club}/lists/{list}/periods/{YYYY-MM}/reopen/   POST (officer)
/api/v1/clubs/{club}/lists/{list}/replay/                     POST (officer)
/api/v1/clubs/{club}/lists/{list}/ratings/?period=YYYY-MM     GET (JSON; ?format=csv kept, undocumented)
/api/v1/clubs/{club}/lists/{list}/ratings.csv?period=YYYY-MM  GET (the same rows as CSV)
"""

from __future__ import annotations

import datetime
from typing import Any, cast

from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import renderers, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM, LIST_PARAM
from players.api.jobs import WAIT_PARAM, job_answer, job_responses, parse_wait
from players.api.state import StateFigure, StateObject
from players.errors import NotFoundError
from players.http.api import ClubScopedView
from players.http.renderers import JSONRenderer
from players.jobs import job_start
from players.models import (
    RatingChange,
    RatingList,
    RatingPeriod,
    Role,
    add_months,
    translated_choices,
)
from players.names import display_name
from players.selectors import (
    parse_month,
    period_get,
    published_list,
    rating_list_get,
    rules_rated_under,
)
from players.selectors.records import MONTH_PATTERN
from tournaments.api.ratings_csv import CSVOnlyView, RatingsCSVRenderer, csv_stream
from tournaments.selectors import periods_with_counts
from tournaments.services import check_month_over, period_open, period_preview
from tournaments.services.results import changes_body

PERIOD_PARAM = OpenApiParameter(
    "period", str, OpenApiParameter.PATH, pattern=MONTH_PATTERN, description="YYYY-MM."
)


class ListScopedView(ClubScopedView):
    def rating_list(self) -> RatingList:
        return rating_list_get(club=self.club, kind=self.kwargs["list"])

    def period(self) -> RatingPeriod:
        rating_list = self.rating_list()
        try:
            month = parse_month(self.kwargs["period"])
        except Exception:
            # A path that is not a month names no period: not found, not bad input.
            raise NotFoundError(f"No period {self.kwargs['period']!r}.") from None
        return period_get(rating_list=rating_list, month=month)


# -- serializers -----------------------------------------------------------------------------


class PeriodOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(source="label", help_text="YYYY-MM.")
    status = serializers.ChoiceField(
        choices=RatingPeriod.Status.choices,
        help_text="open, closed, or needs_replay (reopened: a replay recomputes it).",
    )
    games_count = serializers.IntegerField()
    closed_at = serializers.DateTimeField(allow_null=True)
    published = serializers.SerializerMethodField(
        help_text="YYYY-MM-DD: the date of the list a close publishes (the first of the next month)."
    )

    rules = serializers.SerializerMethodField(
        help_text='A FIDE rule set by its start ("FIDE 2024-03"), Glicko-2 with its tau, or '
        'the list\'s own ("elo"). A closed period: the rules its close or latest replay '
        "rated it under (recorded in that run), even if the list's rules changed since. "
        "An open or reopened period: the rules its next close or replay would use."
    )

    def get_published(self, period: RatingPeriod) -> datetime.date:
        return add_months(period.month, 1)

    def get_rules(self, period: RatingPeriod) -> str:
        return rules_rated_under(period)


class PeriodOpenSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.RegexField(MONTH_PATTERN, help_text="YYYY-MM.")


class CloseInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    early = serializers.BooleanField(
        default=False,
        help_text="Close a month that has not ended (its last day is today or later); "
        "without it such a close answers 409 month_not_over.",
    )


class ChangeOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField(source="player_id")
    rating_before = serializers.IntegerField(allow_null=True)
    rating_after = serializers.IntegerField(allow_null=True)
    change = serializers.IntegerField(allow_null=True)
    adjustment = serializers.IntegerField(
        help_text="FIDE's one-off adjustment inside rating_after (else 0): 1 March 2024 "
        "(ratings below 2000), or 1 October 2022 on rapid and blitz (to 100 below the "
        "standard rating; the close of 2022-09)."
    )
    change_unrounded = serializers.FloatField(allow_null=True)
    k_factor = serializers.IntegerField(allow_null=True, help_text="The K used.")
    k_reason = serializers.CharField(allow_blank=True)
    games = serializers.IntegerField(help_text="Rated games in the period.")
    score = serializers.FloatField()
    expected_score = serializers.FloatField(source="expected")
    event = serializers.ChoiceField(choices=translated_choices(RatingChange.Event))


class CloseOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(help_text="YYYY-MM.")
    status = serializers.ChoiceField(choices=RatingPeriod.Status.choices)
    games_count = serializers.IntegerField()
    changes = ChangeOutSerializer(many=True)


class ReopenOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(help_text="YYYY-MM.")
    status = serializers.ChoiceField(choices=RatingPeriod.Status.choices)
    needs_replay = serializers.ListField(
        child=serializers.CharField(), help_text="Every period the replay will recompute."
    )


class ReplayOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    periods = serializers.ListField(child=serializers.CharField(), help_text="YYYY-MM each.")
    players_changed = serializers.IntegerField(help_text="Players whose published rating changed.")
    report = serializers.CharField(help_text="One line per changed rating: old -> new.")


class RatingRowSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField(help_text="Equal ratings share a rank.")
    player = serializers.IntegerField(source="player_id")
    name = serializers.SerializerMethodField(
        help_text="In the list's name order (Surname, Given or Given Surname)."
    )
    title = serializers.CharField(source="player.title", allow_blank=True)
    federation = serializers.CharField(source="player.federation", allow_blank=True)
    rating = serializers.IntegerField(source="rating_after")
    rd = StateFigure("rd", state_field="state_after", help_text="Glicko-2 lists: RD (else null).")
    state = StateObject(state_field="state_after")
    change = serializers.IntegerField(allow_null=True)
    k_factor = serializers.IntegerField(
        source="k_next", allow_null=True, help_text="K for the next period."
    )
    games = serializers.IntegerField(help_text="Rated games in the period.")
    rated_games = serializers.IntegerField(
        source="rated_games_after", help_text="Rated games in total."
    )
    flags = serializers.SerializerMethodField(
        help_text="first_rating (new on the list this period), inactive (FIDE: no rated "
        "game on the list in the 12 months up to the period)."
    )
    period = serializers.CharField(source="period.label", help_text="YYYY-MM.")

    def get_name(self, row: RatingChange) -> str:
        return display_name(row.player.name, self.context.get("name_order", ""))

    def get_flags(self, row: RatingChange) -> list[str]:
        flags: list[str] = []
        if row.event == RatingChange.Event.FIRST_RATING:
            flags.append("first_rating")
        # One meaning of "inactive" everywhere (API, list page, TXT export): FIDE's twelve
        # months without a rated game, or the club's own "active" box unticked.
        if getattr(row, "inactive", False) or not row.player.active:
            flags.append("inactive")
        return flags


# -- periods --------------------------------------------------------------------------------


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM])
class PeriodListView(ListScopedView):
    roles = {"POST": Role.ARBITER}
    serializer_class = PeriodOutSerializer
    ordering_fields = ["month"]
    extra_error_statuses = {"POST": (409,)}

    def get_queryset(self) -> QuerySet[RatingPeriod]:
        if self.is_schema_view:
            return RatingPeriod.objects.none()
        return periods_with_counts(rating_list=self.rating_list())

    @extend_schema(operation_id="periods_list", responses=PeriodOutSerializer(many=True))
    def get(self, request: Request, club: str, list: str) -> Response:
        return self.paginated(PeriodOutSerializer)

    @extend_schema(
        operation_id="periods_open",
        description="Open an empty period (a period also opens by itself when its first "
        "game is recorded). 409 when it exists or a later period is closed.",
        request=PeriodOpenSerializer,
        responses={201: PeriodOutSerializer},
    )
    def post(self, request: Request, club: str, list: str) -> Response:
        data = PeriodOpenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        month = parse_month(data.validated_data["period"])
        period = period_open(rating_list=self.rating_list(), month=month, by=request.user)
        stored = self.get_queryset().get(pk=period.pk)
        return Response(PeriodOutSerializer(stored).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, PERIOD_PARAM])
class PeriodDetailView(ListScopedView):
    @extend_schema(operation_id="periods_read", responses=PeriodOutSerializer)
    def get(self, request: Request, club: str, list: str, period: str) -> Response:
        found = self.period()
        stored = periods_with_counts(rating_list=self.rating_list()).get(pk=found.pk)
        return Response(PeriodOutSerializer(stored).data)


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, PERIOD_PARAM])
class PeriodPreviewView(ListScopedView):
    """What closing the period would publish, computed now; nothing is written.

    Members only: the figures are not published yet."""

    roles = {"GET": Role.VIEWER}

    @extend_schema(operation_id="periods_preview", responses=CloseOutSerializer)
    def get(self, request: Request, club: str, list: str, period: str) -> Response:
        found = self.period()
        plan = period_preview(period=found, by=request.user)
        # The same order as the close's answer: best rating first, unrated last.
        changes = sorted(
            plan.changes,
            key=lambda c: (c.rating_after is None, -(c.rating_after or 0), c.player_id),
        )
        return Response(changes_body(found, changes, plan.games_count))


class PeriodJobView(ListScopedView):
    """A period operation run as a job (``kind``), answered through ``job_answer``."""

    roles = {"POST": Role.OFFICER}
    extra_error_statuses = {"POST": (409,)}
    kind: str

    def post(self, request: Request, club: str, list: str, period: str) -> Response:
        wait = parse_wait(request)
        found = self.period()
        job = job_start(kind=self.kind, club=self.club, by=request.user, params=self.params(found))
        return job_answer(job, wait)

    def params(self, period: RatingPeriod) -> dict[str, Any]:
        return {"period": period.pk}


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, PERIOD_PARAM, WAIT_PARAM])
class PeriodCloseView(PeriodJobView):
    """Close the period: rate every player of the list and publish the new list. Runs as a
    job (see ?wait=): finished in time, the answer lists every player's line; else the
    job's result has the counts and links to the lines, paged (``.../changes/``).

    Periods close in order. A second close answers 409 and says the period's status. A
    month that has not ended answers 409 ``month_not_over`` (naming its last day) unless
    the body says ``"early": true``."""

    kind = "close"

    @extend_schema(
        operation_id="periods_close",
        request=CloseInSerializer,
        responses=job_responses(CloseOutSerializer),
    )
    def post(self, request: Request, club: str, list: str, period: str) -> Response:
        return super().post(request, club, list, period)

    def params(self, period: RatingPeriod) -> dict[str, Any]:
        data = CloseInSerializer(data=self.request.data)
        data.is_valid(raise_exception=True)
        early = bool(data.validated_data["early"])
        # Refused here, before a job is queued, and again by the close itself.
        check_month_over(period, early=early)
        return {"period": period.pk, "early": early}


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, PERIOD_PARAM, WAIT_PARAM])
class PeriodReopenView(PeriodJobView):
    """Reopen a closed period so its games can be corrected; it and every later closed
    period then need a replay (what they published stays until the replay). Runs as a job."""

    kind = "reopen"

    @extend_schema(
        operation_id="periods_reopen", request=None, responses=job_responses(ReopenOutSerializer)
    )
    def post(self, request: Request, club: str, list: str, period: str) -> Response:
        return super().post(request, club, list, period)


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, WAIT_PARAM])
class ListReplayView(ListScopedView):
    """Recompute every reopened period of the list in order; the rows replaced are kept
    beside the new ones. 409 when nothing was reopened. Runs as a job (see ?wait=)."""

    roles = {"POST": Role.OFFICER}
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="lists_replay", request=None, responses=job_responses(ReplayOutSerializer)
    )
    def post(self, request: Request, club: str, list: str) -> Response:
        wait = parse_wait(request)
        rating_list = self.rating_list()
        job = job_start(
            kind="replay", club=self.club, by=request.user, params={"list": rating_list.pk}
        )
        return job_answer(job, wait)


# -- the published list ------------------------------------------------------------------------


RATINGS_PARAMS = [
    CLUB_PARAM,
    LIST_PARAM,
    OpenApiParameter(
        "period",
        str,
        OpenApiParameter.QUERY,
        pattern=r"^\d{4}-\d{2}$",
        description="YYYY-MM: the list published after that period (default: the latest).",
    ),
]


class PublishedListView(ListScopedView):
    """What the JSON and the CSV of a published list share: its rows, ranked."""

    filter_backends: list[Any] = []
    published_get = True

    def get_queryset(self) -> QuerySet[RatingChange]:
        if self.is_schema_view:
            return RatingChange.objects.none()
        rating_list = self.rating_list()
        label = self.request.query_params.get("period")
        period = None
        if label is not None:
            period = period_get(rating_list=rating_list, month=parse_month(label))
            if period.status == RatingPeriod.Status.OPEN:
                raise NotFoundError(f"Nothing is published after {period.label}: it is open.")
        return published_list(rating_list=rating_list, period=period).annotate(
            rank=Window(Rank(), order_by=F("rating_after").desc())
        )

    def handle_exception(self, exc: Exception) -> Response:
        # Errors keep the one JSON error shape even when CSV was asked for.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = "application/json"
        return super().handle_exception(exc)

    def csv_response(self) -> Response:
        """Every row as CSV, streamed as it is read (no model instance per row)."""
        streamed = csv_stream(self.get_queryset(), name_order=self.rating_list().name_order)
        return cast(Response, streamed)  # DRF answers any HttpResponseBase as it is


@extend_schema(tags=["ratings"], parameters=RATINGS_PARAMS)
class RatingsView(PublishedListView):
    """The list published after a period, ranked (rated players only)."""

    renderer_classes = [JSONRenderer, RatingsCSVRenderer]

    def get_renderers(self) -> list[renderers.BaseRenderer]:
        # ``?format=csv`` still answers CSV here for the clients that use it, but the schema
        # declares JSON only: one response in two media types breaks generated clients.
        # The CSV's documented operation is RatingsCSVView.
        if self.is_schema_view:
            return [JSONRenderer()]
        return super().get_renderers()

    @extend_schema(operation_id="ratings_list", responses=RatingRowSerializer(many=True))
    def get(self, request: Request, club: str, list: str) -> Response:
        return self.published(self._ratings)

    def _ratings(self) -> Response:
        if self.request.accepted_renderer.format == "csv":
            return self.csv_response()
        rows = self.get_queryset()
        context = {"name_order": self.rating_list().name_order}
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(
            RatingRowSerializer(page, many=True, context=context).data
        )


@extend_schema(tags=["ratings"], parameters=RATINGS_PARAMS)
class RatingsCSVView(CSVOnlyView, PublishedListView):
    """The list published after a period as CSV: every row, best first, not paginated."""

    renderer_classes = [RatingsCSVRenderer]

    @extend_schema(
        operation_id="ratings_csv",
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="rank, player, name, title, federation, rating, change, k_factor, "
                "games, rated_games, flags, period.",
            )
        },
    )
    def get(self, request: Request, club: str, list: str) -> Response:
        response = self.published(self.csv_response)
        # From the URL: a hit of the public views' cache reads neither the club nor the
        # list (self.club is not set then). The slugs are the URL's once the view answered.
        response["Content-Disposition"] = f'attachment; filename="{club}-{list}-ratings.csv"'
        return response
