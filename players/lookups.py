"""``field__any=[...]``: ``field IN (...)`` sent as one array parameter on PostgreSQL.

An import looks up thousands of players, FIDE IDs and name keys at once. As ``__in`` each
value is a parameter of its own, and psycopg splits and quotes a statement of 8,000
placeholders in Python (a tenth of a second and more per query); ``= ANY(%s)`` with the
values as one array is one parameter, and PostgreSQL uses the same index for it. SQLite has
no arrays: there it is ``__in`` as before (its callers chunk under its parameter limit).

Integers are sent as an array of the column's own type (``%s::bigint[]``): psycopg picks
the smallest type that holds the values (``smallint[]`` for ids under 32,768), and
``bigint = ANY(smallint[])`` is a cross-type comparison that PostgreSQL cannot hash, so it
compared each row with every value (8,000 ids against 8,000 rows: 0.1-0.2 s); with the
column's type the array is hashed once (3 ms).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Field, IntegerField, Lookup
from django.db.models.lookups import In


@Field.register_lookup
class AnyOf(Lookup[Any]):
    lookup_name = "any"
    # The values are a collection: each is prepared by the field below, not the list.
    prepare_rhs = False

    def get_prep_lookup(self) -> Any:
        return [self.lhs.output_field.get_prep_value(value) for value in self.rhs]

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        if connection.vendor != "postgresql":
            return In(self.lhs, self.rhs).as_sql(compiler, connection)  # type: ignore[return-value]
        lhs, lhs_params = self.process_lhs(compiler, connection)
        field = self.lhs.output_field
        values = [field.get_db_prep_value(value, connection, prepared=True) for value in self.rhs]
        if isinstance(field, IntegerField):
            cast = field.cast_db_type(connection)  # type: ignore[attr-defined]
            return f"{lhs} = ANY(%s::{cast}[])", [*lhs_params, values]
        return f"{lhs} = ANY(%s)", [*lhs_params, values]
