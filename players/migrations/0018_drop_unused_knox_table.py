"""Knox's own token table is unused since KNOX_TOKEN_MODEL points at players.ApiToken, but
knox's migrations create it anyway; its foreign key to the users would stop PostgreSQL from
emptying the user table (``flush``, test teardown). Tokens it held were for the old
model and are not carried over: their owners sign in again."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0017_club_slugs_and_cache"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [
        migrations.RunSQL("DROP TABLE IF EXISTS knox_authtoken", migrations.RunSQL.noop),
    ]
