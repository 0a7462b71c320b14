"""KFactorChange.rating_list, run and source_period without database foreign keys (a close holds them locked)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0009_ratingchange_period_without_fk'),
    ]

    operations = [
        migrations.AlterField(
            model_name='kfactorchange',
            name='rating_list',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='k_changes', to='players.ratinglist'),
        ),
        migrations.AlterField(
            model_name='kfactorchange',
            name='run',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='k_changes', to='players.ratingrun'),
        ),
        migrations.AlterField(
            model_name='kfactorchange',
            name='source_period',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='k_changes', to='players.ratingperiod'),
        ),
    ]
