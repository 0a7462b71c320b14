from django.db import migrations, models

# A close rewrites every PlayerRating row of the list. Leaving half of each page free
# lets PostgreSQL put the new row version on the same page (a HOT update: no index entry to
# add); rows already stored keep their pages until the table is next rewritten.
FILLFACTOR = 50


def set_fillfactor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE players_playerrating SET (fillfactor = {FILLFACTOR})")


def reset_fillfactor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE players_playerrating RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0003_speed_playerrating_drop_redundant_fk_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="playerrating",
            name="playerrating_list_rating_idx",
        ),
        migrations.AddIndex(
            model_name="playerrating",
            index=models.Index(fields=["rating_list"], name="playerrating_list_idx"),
        ),
        migrations.RunPython(set_fillfactor, reset_fillfactor, elidable=False),
    ]
