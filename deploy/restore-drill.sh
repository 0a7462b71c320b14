#!/usr/bin/env bash
# The restore drill (docs/backup.md), run by CI after the PostgreSQL tests: load the demo
# into a PostgreSQL database, export its club, back the instance up with pg_dump -Fc and
# restore it into a new database, import the club file into a fresh SQLite database, and
# check that the club's row counts are the same in all three.
#
#   deploy/restore-drill.sh            (PGHOST, PGPORT, PGUSER as for psql; defaults:
#                                       127.0.0.1, 5432, postgres; DRILL_DB: ratings_drill)
set -euo pipefail
cd "$(dirname "$0")/.."

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
python=${PYTHON:-.venv/bin/python}
source_db=${DRILL_DB:-ratings_drill}
restored_db=${source_db}_restored
work=$(mktemp -d)
trap 'rm -rf "$work"; dropdb --if-exists "$source_db"; dropdb --if-exists "$restored_db"' EXIT
pg_url() { echo "postgres://$PGUSER@$PGHOST:$PGPORT/$1"; }
started=$(date +%s)

# What the club holds, table by table (the archive's own list of tables), as JSON.
counts() {
    DATABASE_URL=$1 "$python" manage.py shell -v 0 -c '
import json
from players.models import Club
from tournaments.services.club_archive import club_tables
club = Club.objects.get(slug="riverside")
print(json.dumps({t.label: t.model._base_manager.filter(**{t.club_path: club.pk}).count()
                  for t in club_tables()}, sort_keys=True))'
}

dropdb --if-exists "$source_db"
dropdb --if-exists "$restored_db"
createdb "$source_db"
DATABASE_URL=$(pg_url "$source_db") "$python" manage.py migrate -v0
DATABASE_URL=$(pg_url "$source_db") "$python" manage.py load_demo >/dev/null
loaded=$(date +%s)
DATABASE_URL=$(pg_url "$source_db") "$python" manage.py export_club riverside \
    --output "$work/riverside.zip"

# The whole instance: pg_dump's custom format, restored into a new database.
exported=$(date +%s)
pg_dump -Fc -d "$source_db" -f "$work/instance.dump"
createdb "$restored_db"
pg_restore --no-owner --exit-on-error -d "$restored_db" "$work/instance.dump"
dumped=$(date +%s)

# The club alone, into a fresh SQLite database with the same accounts.
fresh="sqlite:///$work/fresh.sqlite3"
DATABASE_URL=$fresh "$python" manage.py migrate -v0
usernames=$(psql -d "$source_db" -Atc "SELECT username FROM auth_user ORDER BY username")
DATABASE_URL=$fresh "$python" manage.py shell -v 0 -c "
from django.contrib.auth import get_user_model
for name in '''$usernames'''.split():
    get_user_model().objects.create_user(username=name)"
DATABASE_URL=$fresh "$python" manage.py import_club "$work/riverside.zip"
imported_at=$(date +%s)

original=$(counts "$(pg_url "$source_db")")
restored=$(counts "$(pg_url "$restored_db")")
imported=$(counts "$fresh")
echo "source:      $original"
if [ "$original" != "$restored" ]; then echo "pg_restore: $restored"; exit 1; fi
if [ "$original" != "$imported" ]; then echo "import_club: $imported"; exit 1; fi
echo "Restore drill passed in $(($(date +%s) - started)) s (demo loaded $((loaded - started)) s," \
    "export $((exported - loaded)) s, pg_dump + pg_restore $((dumped - exported)) s," \
    "fresh SQLite + import $((imported_at - dumped)) s): the same counts everywhere."
