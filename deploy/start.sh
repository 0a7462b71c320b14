#!/usr/bin/env bash
# The web server (gunicorn, deploy/gunicorn.conf.py) and one job worker; Ctrl-C or a TERM
# stops both, and so does either of them stopping. `make prod` runs it after the checks,
# collectstatic and migrate. More workers: `manage.py worker` anywhere that reaches the
# database (docs/tasks/deploying.md).
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}

"$PYTHON" manage.py worker --no-reload &
worker=$!
"$PYTHON" -m gunicorn -c deploy/gunicorn.conf.py ratings_site.wsgi &
web=$!

stop() { kill -TERM "$web" "$worker" 2>/dev/null; }
trap stop INT TERM
# Whichever ends first (or a signal) ends both.
wait -n "$web" "$worker"
stop
wait "$web" "$worker"
