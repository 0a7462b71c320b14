"""``manage.py ensure_database``: create the PostgreSQL database DATABASE_URL names when it
does not exist yet (``make run`` runs it before ``migrate``).

SQLite needs nothing (``migrate`` creates the file). When the database cannot be created
(the role may not create databases, the server is not there), the command says so in one
line with the one command that creates it, and exits 1: no traceback.
"""

from __future__ import annotations

import warnings
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import Error as DatabaseError


def createdb_command(settings: dict[str, Any]) -> str:
    """The shell command that creates the database, as its settings name it."""
    parts = ["createdb"]
    for flag, key in (("-h", "HOST"), ("-p", "PORT"), ("-U", "USER")):
        if settings.get(key):
            parts += [flag, str(settings[key])]
    return " ".join([*parts, str(settings["NAME"])])


class Command(BaseCommand):
    help = "Create the PostgreSQL database DATABASE_URL names if it does not exist yet."

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.vendor != "postgresql":
            return
        name = connection.settings_dict["NAME"]
        try:
            # Django's own way in before the database exists (its test runner's): the
            # server's maintenance database, "postgres". Its warning when even that fails
            # would come before the one line below, saying less.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                with connection._nodb_cursor() as cursor:
                    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
                    if cursor.fetchone() is not None:
                        return
                    cursor.execute(f"CREATE DATABASE {connection.ops.quote_name(name)}")
        except DatabaseError as error:
            text = str(error).strip()
            reason = text.splitlines()[0] if text else type(error).__name__
            raise CommandError(
                f"The database {name!r} does not exist and could not be created ({reason}); "
                f"create it with: {createdb_command(connection.settings_dict)}"
            ) from None
        self.stdout.write(f"Created the PostgreSQL database {name!r}.")
