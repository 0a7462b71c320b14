"""RatingChange.period without a database foreign key (the close holds the period locked)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0008_list_rating_system'),
    ]

    operations = [
        migrations.AlterField(
            model_name='ratingchange',
            name='period',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='players.ratingperiod'),
        ),
    ]
