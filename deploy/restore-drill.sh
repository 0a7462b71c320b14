#!/usr/bin/env bash
# The restore drill (docs/reference/backup.md), run by CI after the PostgreSQL tests. Two routines:
#  - the whole instance: the demo loaded into PostgreSQL, pg_dump -Fc, pg_restore into a
#    new database, the demo club's row counts compared;
#  - a club's archive: three small clubs whose months were closed through the API, the
#    admin (both by jobs, which the archive does not carry) and the command line, each
#    exported and restored into a fresh PostgreSQL database, a fresh SQLite database and
#    the same instance under another slug; every list, rating, history, K history,
#    tournament, game and run compared by name (deploy/restore_drill.py answers).
#
#   deploy/restore-drill.sh            (PGHOST, PGPORT, PGUSER as for psql; defaults:
#                                       127.0.0.1, 5432, postgres; DRILL_DB: ratings_drill)
set -euo pipefail
cd "$(dirname "$0")/.."

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
python=${PYTHON:-.venv/bin/python}
source_db=${DRILL_DB:-ratings_drill}
restored_db=${source_db}_restored
fresh_db=${source_db}_fresh
work=$(mktemp -d)
trap 'rm -rf "$work"; for db in "$source_db" "$restored_db" "$fresh_db"; do dropdb --if-exists "$db"; done' EXIT
pg_url() { echo "postgres://$PGUSER@$PGHOST:$PGPORT/$1"; }
drill() { DATABASE_URL=$1 "$python" deploy/restore_drill.py "${@:2}"; }
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

for db in "$source_db" "$restored_db" "$fresh_db"; do dropdb --if-exists "$db"; done
createdb "$source_db"
source_url=$(pg_url "$source_db")
DATABASE_URL=$source_url "$python" manage.py migrate -v0
DATABASE_URL=$source_url "$python" manage.py load_demo >/dev/null
drill "$source_url" clubs
loaded=$(date +%s)

# The whole instance: pg_dump's custom format, restored into a new database.
pg_dump -Fc -d "$source_db" -f "$work/instance.dump"
createdb "$restored_db"
pg_restore --no-owner --exit-on-error -d "$restored_db" "$work/instance.dump"
original=$(counts "$source_url")
restored=$(counts "$(pg_url "$restored_db")")
if [ "$original" != "$restored" ]; then
    echo "pg_restore: $restored, the source: $original"
    exit 1
fi
dumped=$(date +%s)

# Each club alone: into a fresh PostgreSQL database, a fresh SQLite one (both with the
# same accounts) and the same instance beside itself.
createdb "$fresh_db"
fresh_pg=$(pg_url "$fresh_db")
fresh_sqlite="sqlite:///$work/fresh.sqlite3"
usernames=$(drill "$source_url" users)
for target in "$fresh_pg" "$fresh_sqlite"; do
    DATABASE_URL=$target "$python" manage.py migrate -v0
    DATABASE_URL=$target "$python" manage.py shell -v 0 -c "
from django.contrib.auth import get_user_model
for name in '''$usernames'''.split():
    get_user_model().objects.create_user(username=name)"
done
for club in by-api by-admin by-command; do
    DATABASE_URL=$source_url "$python" manage.py export_club "$club" --output "$work/$club.zip" \
        >/dev/null
    expected=$(drill "$source_url" answers "$club")
    for target in "$fresh_pg" "$fresh_sqlite"; do
        DATABASE_URL=$target "$python" manage.py import_club "$work/$club.zip" \
            --owner "$club-owner" >/dev/null
        got=$(drill "$target" answers "$club")
        if [ "$got" != "$expected" ]; then
            echo "import_club $club into ${target%%:*}: $got, the source: $expected"
            exit 1
        fi
    done
    DATABASE_URL=$source_url "$python" manage.py import_club "$work/$club.zip" \
        --slug "$club-copy" --name "$club copy" --owner "$club-owner" >/dev/null
    got=$(drill "$source_url" answers "$club-copy")
    if [ "$got" != "$expected" ]; then
        echo "import_club $club beside itself: $got, the source: $expected"
        exit 1
    fi
done
imported=$(date +%s)
echo "Restore drill passed in $((imported - started)) s (demo and clubs $((loaded - started)) s," \
    "pg_dump + pg_restore $((dumped - loaded)) s, three clubs exported and restored three" \
    "ways $((imported - dumped)) s): the same everywhere."
