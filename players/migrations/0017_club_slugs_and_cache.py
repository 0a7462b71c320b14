"""Club slugs unique without regard to case; the database cache's table (throttle counts
shared by every worker), made by `migrate` so that no other set-up step is needed."""

from typing import Any

import django.db.models.functions.text
from django.core.management import call_command
from django.db import migrations, models


def create_cache_table(apps: Any, schema_editor: Any) -> None:
    # Does nothing when the table exists or the cache is not the database's.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0016_audit_trail"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="club",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("slug"),
                name="club_slug_unique_ignoring_case",
            ),
        ),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop, elidable=True),
    ]
