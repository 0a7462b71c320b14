"""Audit rows for rows written in bulk: copied inside the database, since the bulk paths
skip the ORM's per-object saves and so the audit library's signals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, models
from django.utils import timezone

from players.bulk.pauses import pause_between_chunks
from players.models.audit import audit_user_id, audit_via

# Ids per `pk IN (...)` of an audit copy (one bound parameter each).
_MAX_IDS = 10_000


def tracked(history_model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The audit model's copies of its model's fields (not its own ``history_*`` and
    ``via``): what an audit row copies from the row it records."""
    return [
        f
        for f in history_model._meta.concrete_fields
        if not f.name.startswith("history_") and f.name != "via"
    ]


def history_rows_copy(
    queryset: models.QuerySet[Any], *, via: str, user_id: int | None, history_type: str = "+"
) -> int:
    """One audit row per row of ``queryset`` (an audited model's rows just written in
    bulk), copied inside the database by one INSERT ... SELECT: the bulk paths (imports,
    bulk games) skip the ORM's per-object saves, so the library's signals never fire.

    The rows are read unsorted (as stored: rows just written in the order written), not
    in the model's ordering: for an import's 100,000 games that was a sort by date and
    round spilled to disk, a seventh of the statement."""
    model = queryset.model
    history_model = model.history.model
    source = [f.attname for f in tracked(history_model)]
    select_sql, params = queryset.order_by().values_list(*source).query.sql_with_params()
    quote = connection.ops.quote_name
    columns = [quote(history_model._meta.get_field(name).column) for name in source]
    extra = ["history_date", "history_type", "history_user_id", "history_change_reason", "via"]
    sql = (
        f"INSERT INTO {quote(history_model._meta.db_table)} "  # noqa: S608 - our own tables
        f"({', '.join(columns + [quote(c) for c in extra])}) "
        f"SELECT sub.*, %s, %s, %s, NULL, %s FROM ({select_sql}) sub"
    )
    pause_between_chunks()
    with connection.cursor() as cursor:
        cursor.execute(sql, [timezone.now(), history_type, user_id, via, *params])
        count: int = cursor.rowcount
    return count


def history_rows_copy_ids(
    model: type[models.Model],
    ids: Sequence[int],
    *,
    by_id: int | None,
    history_type: str = "~",
) -> int:
    """:func:`history_rows_copy` for rows named by id (rows a service just changed in
    bulk, for ``by_id``): through the channel in force, by the acting user where one is
    known, else ``by_id``. One INSERT ... SELECT per batch of ids, a list of ids longer
    than the bound parameters a statement may have (SQLite: 32,766) split across several."""
    via, user_id = audit_via(), audit_user_id() or by_id
    count = 0
    for start in range(0, len(ids), _MAX_IDS):
        count += history_rows_copy(
            model._default_manager.filter(pk__in=ids[start : start + _MAX_IDS]),
            via=via,
            user_id=user_id,
            history_type=history_type,
        )
    return count
