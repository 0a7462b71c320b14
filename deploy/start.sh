#!/usr/bin/env bash
# The web server (gunicorn, deploy/gunicorn.conf.py) and a job worker per lane (rating,
# replays, files, deliveries: docs/reference/queue.md); Ctrl-C or a TERM stops them all, and so does
# any of them stopping. `make prod` runs it after the checks, collectstatic and migrate.
# WORKER_LANES names the workers to start, one word each: "rating rating replays files
# deliveries" runs two for the rating lane, "rating replays,files,deliveries" one for the
# rating lane and one for the other three. More workers elsewhere: `manage.py worker
# --queue-name LANE` anywhere that reaches the database (docs/tasks/deploying.md).
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
LANES=${WORKER_LANES:-rating replays files deliveries}

workers=()
for lane in $LANES; do
    "$PYTHON" manage.py worker --no-reload --queue-name "$lane" &
    workers+=($!)
done
"$PYTHON" -m gunicorn -c deploy/gunicorn.conf.py ratings_site.wsgi &
web=$!

stop() { kill -TERM "$web" "${workers[@]}" 2>/dev/null; }
trap stop INT TERM
# Whichever ends first (or a signal) ends all.
wait -n "$web" "${workers[@]}"
stop
wait "$web" "${workers[@]}"
