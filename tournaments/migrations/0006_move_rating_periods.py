"""The tournaments app's half of players 0007: its model state forgets the moved models.
"""


import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0007_move_rating_periods'),
        ('tournaments', '0005_adjust_march_2024'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # State only: the tables, their rows, keys and constraints stay as they are.
            state_operations=[
                migrations.RemoveField(
                    model_name='ratingperiod',
                    name='closed_by',
                ),
                migrations.RemoveField(
                    model_name='ratingperiod',
                    name='rating_list',
                ),
                migrations.AlterField(
                    model_name='game',
                    name='period',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='games', to='players.ratingperiod'),
                ),
                migrations.RemoveField(
                    model_name='ratingrun',
                    name='by',
                ),
                migrations.RemoveField(
                    model_name='ratingrun',
                    name='rating_list',
                ),
                migrations.DeleteModel(
                    name='RatingChange',
                ),
                migrations.DeleteModel(
                    name='RatingPeriod',
                ),
                migrations.DeleteModel(
                    name='RatingRun',
                ),
                ],
            database_operations=[],
        ),
    ]
