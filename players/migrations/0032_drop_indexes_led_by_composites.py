# The single-column indexes on KFactorChange.player and Player.club go: a composite index
# leads with each. Dropped by name, not by AlterField's database operation: on SQLite that
# remakes the players table, which the games' reference triggers (tournaments 0010/0011)
# name, and SQLite refuses the rename back under them.

from django.db import migrations, models

import django.db.models.deletion

INDEXES = [
    ("players_kfactorchange_player_id_ed523920", "players_kfactorchange", "player_id"),
    ("players_player_club_id_3ecbf0aa", "players_player", "club_id"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0031_webhooks_notifications"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="kfactorchange",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="k_changes",
                        to="players.player",
                    ),
                ),
                migrations.AlterField(
                    model_name="player",
                    name="club",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="players",
                        to="players.club",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    sql=f'DROP INDEX IF EXISTS "{name}"',
                    reverse_sql=f'CREATE INDEX "{name}" ON "{table}" ("{column}")',
                )
                for name, table, column in INDEXES
            ],
        ),
    ]
