"""Django's SQLite backend with one change: a table rebuild keeps the schema's triggers.

SQLite changes a column or a constraint by rebuilding the table (Django's
``_remake_table``): a copy is made, the old table dropped and the copy renamed into place.
The rename re-reads every trigger of the schema, and the games' triggers (tournaments
migration 0010) name ``players_ratinglist``, ``players_player``,
``tournaments_tournament`` and ``tournaments_ratingperiod``, which are gone at that moment:
SQLite refused the rename ("error in trigger game_references_on_insert: no such table"),
so the migration ``makemigrations`` writes for a new list kind or rating system (the
list's check constraints list the registry's names) failed, both ways. The drop also
took the table's own triggers with it, which Django does not know to make again.

Here every trigger that names the table is set aside before the rebuild and made again,
by its own text, after it: the migration Django writes applies as written. PostgreSQL
alters a table in place and needs none of this. ``ratings_site.env.env_database`` names
this backend for ``sqlite://`` URLs.
"""

from __future__ import annotations

import re
from typing import Any

from django.db.backends.sqlite3 import base, schema


class DatabaseSchemaEditor(schema.DatabaseSchemaEditor):
    def _remake_table(self, model: Any, *args: Any, **kwargs: Any) -> None:
        table = model._meta.db_table
        named = re.compile(rf"(?<![\w$]){re.escape(table)}(?![\w$])", re.IGNORECASE)
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL"
            )
            kept = [(name, sql) for name, sql in cursor.fetchall() if named.search(sql)]
        for name, _sql in kept:
            self.execute(f"DROP TRIGGER {self.quote_name(name)}")
        super()._remake_table(model, *args, **kwargs)  # type: ignore[misc]  # not in the stubs
        # A trigger naming a column the rebuild removed fails here, loudly, as it should.
        for _name, sql in kept:
            self.execute(sql, params=None)


class DatabaseWrapper(base.DatabaseWrapper):
    SchemaEditorClass = DatabaseSchemaEditor
