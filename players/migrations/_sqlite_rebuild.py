"""For a migration that rebuilds players_ratinglist on SQLite (a new list kind changes its
check constraint: docs/howto-list-kind.md).

SQLite changes a constraint by rebuilding the table: a copy is made, the old table dropped
and the copy renamed into place. The rename re-reads every trigger of the schema, and the
games' triggers (tournaments migration 0010) name players_ratinglist, which is gone at that
moment: SQLite refuses the rename. In legacy mode the rename leaves the triggers unread;
they name the table by the name it has again once the rename is done. PostgreSQL alters the
constraint in place and needs none of this.

Not a migration itself (Django skips modules whose name starts with "_").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.operations.base import Operation


def legacy_alter_table(schema_editor: BaseDatabaseSchemaEditor, on: bool) -> None:
    """SQLite's legacy rename (on) or its default (off); nothing on other databases."""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"PRAGMA legacy_alter_table = {'ON' if on else 'OFF'}")


def _set(on: bool) -> Callable[[Any, BaseDatabaseSchemaEditor], None]:
    def run(apps: Any, schema_editor: BaseDatabaseSchemaEditor) -> None:
        legacy_alter_table(schema_editor, on)

    return run


def rebuilt_under_triggers(*operations: Operation) -> list[Operation]:
    """``operations`` (the constraint's RemoveConstraint and AddConstraint) between
    switching SQLite's legacy rename on and off again, both ways of the migration."""
    return [
        migrations.RunPython(_set(True), _set(False)),
        *operations,
        migrations.RunPython(_set(False), _set(True)),
    ]
