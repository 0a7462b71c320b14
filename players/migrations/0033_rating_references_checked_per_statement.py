# PostgreSQL checked a foreign key once per inserted row, at commit: an import of 8,000 new
# players spent 0.2-0.4 s of the server's time there, on the 24,000 rating and 24,000 K
# rows' player, list and user. These triggers hold the same references once per statement,
# as the games' do (tournaments/0010): the rows named are locked FOR KEY SHARE, as a key's
# own check locks them, so a delete of one of them in another transaction waits for this
# one and then finds the rows that name it. A change of a reference (a merge moves K rows to
# the kept player) is checked by a row trigger that fires only when the column is set, so a
# close's UPDATE of every player's rating row checks nothing, as a key did not either.
# The other side: a player, list or user is not deleted (nor its id changed) while rows name
# it; Django deletes a player's rows first (CASCADE) and empties created_by (SET_NULL).
# SQLite keeps its foreign keys: only the model state changes there.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# (the child table, what it calls a row, (its column, what is named, the parent table))
_REFERENCES = (
    (
        "players_playerrating",
        "a rating row",
        (
            ("player_id", "player", "players_player"),
            ("rating_list_id", "list", "players_ratinglist"),
        ),
    ),
    (
        "players_kfactorchange",
        "a K change",
        (
            ("player_id", "player", "players_player"),
            ("created_by_id", "user", "auth_user"),
        ),
    ),
)

# The foreign keys these replace: (table, column, parent table).
_KEYS = tuple(
    (table, column, parent) for table, _, columns in _REFERENCES for column, _, parent in columns
)


def _check(table, what, columns, rows):
    """The body checking the references of ``rows`` (a transition table, or NEW)."""
    blocks = []
    for column, named, parent in columns:
        if rows == "NEW":
            blocks.append(f"""
    IF NEW.{column} IS NOT NULL THEN
        PERFORM 1 FROM {parent} t WHERE t.id = NEW.{column} FOR KEY SHARE OF t;
        IF NOT FOUND THEN
            RAISE EXCEPTION '{what} names {named} %, which does not exist', NEW.{column}
                USING ERRCODE = 'foreign_key_violation', TABLE = '{table}';
        END IF;
    END IF;""")
            continue
        blocks.append(f"""
    PERFORM 1 FROM {parent} t
     WHERE t.id IN (SELECT {column} FROM {rows} WHERE {column} IS NOT NULL)
       FOR KEY SHARE OF t;
    SELECT x.{column}::text INTO missing
      FROM (SELECT DISTINCT {column} FROM {rows} WHERE {column} IS NOT NULL) x
     WHERE NOT EXISTS (SELECT 1 FROM {parent} t WHERE t.id = x.{column})
     LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '{what} names {named} %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation', TABLE = '{table}';
    END IF;""")
    return "".join(blocks)


def _function(name, body):
    return (
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$\n"
        f"DECLARE\n    missing text;\nBEGIN{body}\n    RETURN NULL;\nEND\n$fn$"
    )


def _parents():
    """Each parent table with the (child table, column) pairs that name it."""
    by_parent = {}
    for table, _, columns in _REFERENCES:
        for column, named, parent in columns:
            by_parent.setdefault((parent, named), []).append((table, column))
    return list(by_parent.items())


def _still_named(parent, named, uses, rows):
    refuse = "\n".join(
        f"""    IF EXISTS (SELECT 1 FROM {table} c WHERE c.{column} IN (SELECT id FROM {rows})) THEN
        RAISE EXCEPTION 'rows of {table} still name this {named}'
            USING ERRCODE = 'foreign_key_violation', TABLE = '{parent}';
    END IF;"""
        for table, column in uses
    )
    return "\n" + refuse


def _pg_statements():
    for table, what, columns in _REFERENCES:
        yield _function(f"{table}_references_check", _check(table, what, columns, "new_rows"))
        yield (
            f"CREATE TRIGGER {table}_references_on_insert AFTER INSERT ON {table} "
            "REFERENCING NEW TABLE AS new_rows "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_references_check()"
        )
        yield _function(f"{table}_reference_changed", _check(table, what, columns, "NEW"))
        listed = ", ".join(column for column, _, _ in columns)
        yield (
            f"CREATE TRIGGER {table}_reference_changed AFTER UPDATE OF {listed} ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_reference_changed()"
        )
    for (parent, named), uses in _parents():
        name = f"rating_rows_name_{named}"
        yield _function(f"{name}_deleted", _still_named(parent, named, uses, "old_rows"))
        yield (
            f"CREATE TRIGGER {name}_on_delete AFTER DELETE ON {parent} "
            "REFERENCING OLD TABLE AS old_rows "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {name}_deleted()"
        )
        # An id is never changed by the site; a hand-written one is refused while rows
        # name the old id.
        changed = "\n".join(
            f"""    IF EXISTS (SELECT 1 FROM {table} c WHERE c.{column} = OLD.id) THEN
        RAISE EXCEPTION 'rows of {table} still name this {named}'
            USING ERRCODE = 'foreign_key_violation', TABLE = '{parent}';
    END IF;"""
            for table, column in uses
        )
        yield _function(f"{name}_id_changed", "\n" + changed)
        yield (
            f"CREATE TRIGGER {name}_on_id_change AFTER UPDATE OF id ON {parent} "
            f"FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) "
            f"EXECUTE FUNCTION {name}_id_changed()"
        )


def _pg_drops():
    for (parent, named), _uses in _parents():
        name = f"rating_rows_name_{named}"
        yield f"DROP TRIGGER {name}_on_delete ON {parent}"
        yield f"DROP FUNCTION {name}_deleted()"
        yield f"DROP TRIGGER {name}_on_id_change ON {parent}"
        yield f"DROP FUNCTION {name}_id_changed()"
    for table, _, _ in _REFERENCES:
        yield f"DROP TRIGGER {table}_references_on_insert ON {table}"
        yield f"DROP FUNCTION {table}_references_check()"
        yield f"DROP TRIGGER {table}_reference_changed ON {table}"
        yield f"DROP FUNCTION {table}_reference_changed()"


def _foreign_keys(cursor):
    """The foreign keys of _KEYS as PostgreSQL named them: (table, name)."""
    found = []
    for table, column, parent in _KEYS:
        cursor.execute(
            "SELECT c.conname FROM pg_constraint c "
            "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
            "WHERE c.contype = 'f' AND c.conrelid = %s::regclass "
            "AND c.confrelid = %s::regclass AND a.attname = %s",
            [table, parent, column],
        )
        found.extend((table, name) for (name,) in cursor.fetchall())
    return found


def add_checks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for table, name in _foreign_keys(cursor):
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        # Without parameters: the functions' RAISE uses % as its own placeholder.
        for statement in _pg_statements():
            cursor.execute(statement)


def drop_checks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for statement in _pg_drops():
            cursor.execute(statement)
        for table, column, parent in _KEYS:
            cursor.execute(
                f'ALTER TABLE {table} ADD CONSTRAINT "{table}_{column}_fk" '
                f"FOREIGN KEY ({column}) REFERENCES {parent}(id) DEFERRABLE INITIALLY DEFERRED"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0032_drop_indexes_led_by_composites"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="kfactorchange",
                    name="created_by",
                    field=models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="kfactorchange",
                    name="player",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="k_changes",
                        to="players.player",
                    ),
                ),
                migrations.AlterField(
                    model_name="playerrating",
                    name="player",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ratings",
                        to="players.player",
                    ),
                ),
                migrations.AlterField(
                    model_name="playerrating",
                    name="rating_list",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="player_ratings",
                        to="players.ratinglist",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(add_checks, drop_checks)],
        )
    ]
