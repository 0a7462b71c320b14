"""The audit trail of a club (rating officer or above).

/api/v1/clubs/{club}/audit/?model=game&object=ID   GET, newest first, paginated

Rows come from django-simple-history's tables; each says who, when, through what (admin,
API, web page, import, command), the values after the change and, for a change, the
fields that changed with their values before and after.

``?model=merge`` reads the PlayerMerge records instead: a merge is one entry (action
"merged", ``object`` the kept player, ``values`` the kept player and the duplicate with
what moved), where the history tables hold one row per moved game and the duplicate's
deletion. ``?object=`` there finds the merges a player was kept in or merged away in.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model, Q, QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.http.api import ClubScopedView
from players.models import (
    Club,
    Invitation,
    Membership,
    Player,
    PlayerClaim,
    PlayerMerge,
    RatingList,
    Role,
)
from players.models.audit import Via
from players.selectors import club_merges
from tournaments.models import Game, Tournament

# The name in ``?model=`` -> the audited model and the lookup from its rows to the club.
AUDITED: dict[str, tuple[type[Model], str]] = {
    "club": (Club, "id"),
    "membership": (Membership, "club_id"),
    "invitation": (Invitation, "club_id"),
    "player": (Player, "club_id"),
    # A member's claim of a record and the officer's decision (the link itself is on
    # the player's rows).
    "claim": (PlayerClaim, "club_id"),
    "list": (RatingList, "club_id"),
    "tournament": (Tournament, "club_id"),
    "game": (Game, "club_id"),
}
ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}
#: ``?model=merge``: the merges (PlayerMerge), one entry each.
MERGE = "merge"
MERGED = "merged"
MODELS = sorted([*AUDITED, MERGE])


class AuditQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    model = serializers.ChoiceField(choices=MODELS)
    object = serializers.IntegerField(required=False, min_value=1)


class ChangeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class AuditRowSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField(help_text="The audit row's id.")
    model = serializers.CharField()
    object = serializers.IntegerField(help_text="The changed row's id (a merge: the kept player).")
    action = serializers.ChoiceField(choices=sorted([*ACTIONS.values(), MERGED]))
    when = serializers.DateTimeField()
    user = serializers.CharField(allow_null=True, help_text="Who; null: not known.")
    via = serializers.ChoiceField(choices=Via.choices)
    values = serializers.DictField(help_text="The row's values after the change.")
    changes = serializers.DictField(
        child=ChangeSerializer(),
        help_text="Changed fields: {field: {before, after}} (every field when created).",
    )


def _fields(history_model: Any) -> list[str]:
    return [
        f.attname
        for f in history_model._meta.concrete_fields
        if not f.name.startswith("history_") and f.name != "via"
    ]


def _rows(name: str, page: list[Any], history_model: Any) -> list[dict[str, Any]]:
    """The page's rows with their changes: the previous row of each object comes from one
    query for all the page's objects."""
    fields = _fields(history_model)
    ids = {row.id for row in page}
    earlier: dict[int, list[Any]] = {}
    for row in history_model.objects.filter(id__in=ids).order_by("history_date", "history_id"):
        earlier.setdefault(row.id, []).append(row)
    out = []
    for row in page:
        values = {f: getattr(row, f) for f in fields}
        chain = earlier.get(row.id, [])
        position = next(i for i, r in enumerate(chain) if r.history_id == row.history_id)
        before = {f: getattr(chain[position - 1], f) for f in fields} if position else {}
        changes = {
            f: {"before": before.get(f), "after": values[f]}
            for f in fields
            if row.history_type != "-" and (not before or before[f] != values[f])
        }
        out.append(
            {
                "id": row.history_id,
                "model": name,
                "object": row.id,
                "action": ACTIONS[row.history_type],
                "when": row.history_date,
                "user": row.history_user.get_username() if row.history_user else None,
                "via": row.via,
                "values": values,
                "changes": changes,
            }
        )
    return out


def _merge_rows(page: list[PlayerMerge]) -> list[dict[str, Any]]:
    """One entry per merge: who, when, through what, the kept player, the duplicate (whose
    row is gone: its id and name are the record's own) and what moved."""
    out = []
    for merge in page:
        # The summary names the kept player by id even after that player is deleted too
        # (the foreign key is then null).
        values = {
            **merge.summary,
            "duplicate": merge.duplicate_id,
            "duplicate_name": merge.duplicate_name,
        }
        kept = values.setdefault("kept", merge.kept_id)
        out.append(
            {
                "id": merge.pk,
                "model": MERGE,
                "object": kept,
                "action": MERGED,
                "when": merge.at,
                "user": merge.by.get_username() if merge.by else None,
                "via": merge.via,
                "values": values,
                "changes": {},
            }
        )
    return out


@extend_schema(
    tags=["audit"],
    parameters=[
        CLUB_PARAM,
        OpenApiParameter("model", str, enum=MODELS, required=True),
        OpenApiParameter(
            "object",
            int,
            description="One object's id (merge: a player kept in, or merged away in, it).",
        ),
    ],
)
class AuditView(ClubScopedView):
    roles = {"GET": Role.OFFICER}
    serializer_class = AuditRowSerializer
    # For the schema generator only; get() picks the history of ``?model=``.
    queryset = Game.history.none()

    def history_of(self, name: str) -> QuerySet[Any]:
        model, club_lookup = AUDITED[name]
        history_model: Any = model.history.model  # type: ignore[attr-defined]
        queryset: QuerySet[Any] = history_model.objects.filter(**{club_lookup: self.club.pk})
        return queryset.select_related("history_user").order_by("-history_date", "-history_id")

    def merges(self, player: int | None) -> Response:
        merges = club_merges(club=self.club)
        if player is not None:
            merges = merges.filter(Q(kept_id=player) | Q(duplicate_id=player))
        page = self.paginate_queryset(merges.order_by("-at", "-id"))
        return self.get_paginated_response(_merge_rows(list(page or [])))

    @extend_schema(
        operation_id="audit_list",
        description="Role: rating officer. Who changed what, when and through what, newest "
        "first. `model=merge`: each merge of a duplicate player as one entry.",
        responses=AuditRowSerializer(many=True),
    )
    def get(self, request: Request, club: str) -> Response:
        query = AuditQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        name = query.validated_data["model"]
        if name == MERGE:
            return self.merges(query.validated_data.get("object"))
        rows = self.history_of(name)
        if "object" in query.validated_data:
            rows = rows.filter(id=query.validated_data["object"])
        page = self.paginate_queryset(rows)
        history_model = rows.model
        return self.get_paginated_response(_rows(name, list(page or []), history_model))
