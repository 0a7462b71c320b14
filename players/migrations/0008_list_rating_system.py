"""Each list names its rating system; lists set from the Club Elo preset are Elo lists."""

from django.db import migrations, models


def _club_elo_lists(apps, schema_editor):
    rating_list = apps.get_model("players", "RatingList")
    rating_list.objects.filter(preset="Club Elo").update(system="elo")


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0007_move_rating_periods'),
    ]

    operations = [
        migrations.AddField(
            model_name='ratinglist',
            name='system',
            field=models.CharField(choices=[('fide', 'FIDE'), ('elo', 'Elo')], default='fide', max_length=16, verbose_name='rating system'),
        ),
        migrations.AddConstraint(
            model_name='ratinglist',
            constraint=models.CheckConstraint(condition=models.Q(('system__in', ['fide', 'elo'])), name='ratinglist_system_valid'),
        ),
        migrations.RunPython(_club_elo_lists, migrations.RunPython.noop),
    ]
