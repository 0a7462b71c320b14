"""RatingPeriod, RatingRun and RatingChange join the rest of the rating-list domain.

They lived in the tournaments app. Only Django's model state moves: the tables keep their
names (``db_table``), so an existing database keeps every row and no SQL runs but the
content-type rename (admin history and permissions follow the models).
"""


import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("ratingperiod", "ratingrun", "ratingchange")


def _move_content_types(apps, schema_editor, source, target):
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        # A content type made for the new label (e.g. by a test database) gives way to
        # the old one, which admin history and permissions point at.
        content_type.objects.filter(app_label=target, model=model).delete()
        content_type.objects.filter(app_label=source, model=model).update(app_label=target)


def _content_types_to_players(apps, schema_editor):
    _move_content_types(apps, schema_editor, "tournaments", "players")


def _content_types_to_tournaments(apps, schema_editor):
    _move_content_types(apps, schema_editor, "players", "tournaments")


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('tournaments', '0005_adjust_march_2024'),
        ('players', '0006_adjust_march_2024'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # State only: the tables, their rows, keys and constraints stay as they are.
            state_operations=[
                migrations.CreateModel(
                    name='RatingPeriod',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('month', models.DateField(help_text='The first day of the month.', verbose_name='month')),
                        ('status', models.CharField(choices=[('open', 'Open'), ('closed', 'Closed'), ('needs_replay', 'Needs replay')], default='open', max_length=16, verbose_name='status')),
                        ('closed_at', models.DateTimeField(blank=True, null=True, verbose_name='closed at')),
                        ('closed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ('rating_list', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='periods', to='players.ratinglist')),
                    ],
                    options={
                        'verbose_name': 'rating period',
                        'verbose_name_plural': 'rating periods',
                        'db_table': 'tournaments_ratingperiod',
                        'ordering': ['rating_list', 'month'],
                    },
                ),
                migrations.AlterField(
                    model_name='kfactorchange',
                    name='source_period',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='k_changes', to='players.ratingperiod'),
                ),
                migrations.CreateModel(
                    name='RatingRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('close', 'Close'), ('replay', 'Replay'), ('reopen', 'Reopen'), ('override', 'K override')], max_length=16, verbose_name='kind')),
                        ('started', models.DateTimeField(verbose_name='started')),
                        ('finished', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                        ('periods', models.JSONField(default=list, help_text='Period labels, YYYY-MM.', verbose_name='periods')),
                        ('players_changed', models.PositiveIntegerField(default=0, verbose_name='players changed')),
                        ('report', models.TextField(blank=True, verbose_name='report')),
                        ('summary', models.JSONField(blank=True, default=dict, verbose_name='summary')),
                        ('by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='rating_runs', to=settings.AUTH_USER_MODEL)),
                        ('rating_list', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='players.ratinglist')),
                    ],
                    options={
                        'verbose_name': 'rating run',
                        'verbose_name_plural': 'rating runs',
                        'db_table': 'tournaments_ratingrun',
                        'ordering': ['-started', '-id'],
                        'get_latest_by': 'started',
                    },
                ),
                migrations.CreateModel(
                    name='RatingChange',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('rating_before', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='rating before')),
                        ('rating_after', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='rating after')),
                        ('change', models.SmallIntegerField(blank=True, null=True, verbose_name='change')),
                        ('adjustment', models.SmallIntegerField(default=0, verbose_name='FIDE 1 March 2024 adjustment')),
                        ('change_unrounded', models.DecimalField(blank=True, decimal_places=4, max_digits=12, null=True, verbose_name='change before rounding')),
                        ('k_factor', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='K used')),
                        ('k_reason', models.CharField(blank=True, choices=[('reached_2400', '10: published rating reached 2400'), ('junior', '40: junior under 2300'), ('new_player', '40: fewer than 30 rated games'), ('standard', '20: standard'), ('fixed', 'Fixed by the list'), ('manual', 'Set by the rating officer')], max_length=16, verbose_name='K reason')),
                        ('games', models.PositiveIntegerField(default=0, verbose_name='rated games in the period')),
                        ('score', models.DecimalField(decimal_places=1, default=0, max_digits=7, verbose_name='score')),
                        ('expected', models.DecimalField(decimal_places=4, default=0, max_digits=12, verbose_name='expected score')),
                        ('event', models.CharField(choices=[('rated', 'Rated'), ('first_rating', 'First rating'), ('below_floor', 'Dropped below the floor'), ('not_yet_rated', 'Not yet rated'), ('no_rated_games', 'No rated games')], max_length=16, verbose_name='event')),
                        ('current', models.BooleanField(default=True, verbose_name='current')),
                        ('rated_games_after', models.PositiveIntegerField(default=0, verbose_name='rated games after')),
                        ('reached_2400_after', models.BooleanField(default=False, verbose_name='reached 2400 after')),
                        ('pool_after', models.JSONField(blank=True, default=list, verbose_name='first-rating pool after')),
                        ('k_next', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='K next period')),
                        ('k_next_reason', models.CharField(blank=True, choices=[('reached_2400', '10: published rating reached 2400'), ('junior', '40: junior under 2300'), ('new_player', '40: fewer than 30 rated games'), ('standard', '20: standard'), ('fixed', 'Fixed by the list'), ('manual', 'Set by the rating officer')], max_length=16, verbose_name='K reason next period')),
                        ('last_active_month', models.DateField(blank=True, null=True, verbose_name='last active month')),
                        ('player', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='players.player')),
                        ('rating_list', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='players.ratinglist')),
                        ('period', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='players.ratingperiod')),
                        ('run', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='players.ratingrun')),
                    ],
                    options={
                        'verbose_name': 'rating change',
                        'verbose_name_plural': 'rating changes',
                        'db_table': 'tournaments_ratingchange',
                        'ordering': ['period', '-rating_after', 'player'],
                    },
                ),
                migrations.AlterField(
                    model_name='kfactorchange',
                    name='run',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='k_changes', to='players.ratingrun'),
                ),
                migrations.AddConstraint(
                    model_name='ratingperiod',
                    constraint=models.UniqueConstraint(fields=('rating_list', 'month'), name='ratingperiod_list_month_unique'),
                ),
                migrations.AddConstraint(
                    model_name='ratingperiod',
                    constraint=models.CheckConstraint(condition=models.Q(('status__in', ['open', 'closed', 'needs_replay'])), name='ratingperiod_status_valid'),
                ),
                migrations.AddIndex(
                    model_name='ratingchange',
                    index=models.Index(fields=['period', 'current'], name='ratingchange_period_cur_idx'),
                ),
                migrations.AddIndex(
                    model_name='ratingchange',
                    index=models.Index(fields=['player', 'rating_list', 'current'], name='ratingchange_player_idx'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.UniqueConstraint(condition=models.Q(('current', True)), fields=('player', 'period'), name='ratingchange_one_current_per_player_period'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.CheckConstraint(condition=models.Q(('rating_before__isnull', True), models.Q(('rating_before__gte', 0), ('rating_before__lte', 4000)), _connector='OR'), name='ratingchange_rating_before_range'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.CheckConstraint(condition=models.Q(('rating_after__isnull', True), models.Q(('rating_after__gte', 0), ('rating_after__lte', 4000)), _connector='OR'), name='ratingchange_rating_after_range'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.CheckConstraint(condition=models.Q(('k_factor__isnull', True), models.Q(('k_factor__gte', 1), ('k_factor__lte', 100)), _connector='OR'), name='ratingchange_k_range'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.CheckConstraint(condition=models.Q(('k_next__isnull', True), models.Q(('k_next__gte', 1), ('k_next__lte', 100)), _connector='OR'), name='ratingchange_k_next_range'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.CheckConstraint(condition=models.Q(('event__in', ['rated', 'first_rating', 'below_floor', 'not_yet_rated', 'no_rated_games'])), name='ratingchange_event_valid'),
                ),
                ],
            database_operations=[],
        ),
        migrations.RunPython(_content_types_to_players, _content_types_to_tournaments),
    ]
