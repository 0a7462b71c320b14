"""What a period's close (or its latest replay) published, one page at a time.

/api/v1/clubs/{club}/lists/{list}/periods/{YYYY-MM}/changes/   GET (viewer)

A close job's result links here (its ``changes``): the rows of a federation-sized close
are read in pages, not carried in the job (tournaments/services/results.py).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM, LIST_PARAM
from players.models import RatingChange, Role
from tournaments.api.periods import PERIOD_PARAM, ChangeOutSerializer, ListScopedView
from tournaments.selectors import period_changes


@extend_schema(tags=["periods"], parameters=[CLUB_PARAM, LIST_PARAM, PERIOD_PARAM])
class PeriodChangesView(ListScopedView):
    """Every player's line as the period's close (or latest replay) published it, best
    rating first, unrated last: the ``changes`` of the close's answer, paginated. An open
    period has none yet.

    Members only, like the close's answer and its job."""

    roles = {"GET": Role.VIEWER}
    filter_backends: list[Any] = []  # one order: the close's

    def get_queryset(self) -> QuerySet[RatingChange]:
        if self.is_schema_view:
            return RatingChange.objects.none()
        return period_changes(self.period())

    @extend_schema(operation_id="periods_changes", responses=ChangeOutSerializer(many=True))
    def get(self, request: Request, club: str, list: str, period: str) -> Response:
        return self.paginated(ChangeOutSerializer)
