"""RatingChange.player without a database foreign key: the close writes rows only for the
players it read on the list it holds locked, and player_delete and the merge lock the
club's lists first (the key's check locked every one of a big close's players)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0024_player_merge_via'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ratingchange',
            name='player',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='players.player'),
        ),
    ]
