# Two commands matter: `make run` (the site and a job worker) and `make test`.
# Everything installs into .venv; `make prod` is the production path (README: Deploying).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1:8000

.PHONY: run worker prod test bench mutants lint typecheck check install install-dev clean messages compilemessages

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files make the install run only when a requirements file changed.
$(VENV)/.base: $(BIN)/python requirements/base.txt
	$(BIN)/pip install --quiet -r requirements/base.txt
	@touch $@

$(VENV)/.dev: $(VENV)/.base requirements/dev.txt
	$(BIN)/pip install --quiet -r requirements/dev.txt
	@touch $@

install: $(VENV)/.base
install-dev: $(VENV)/.dev

run: $(VENV)/.base
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py load_demo --if-empty --site http://$(HOST)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py runsite $(HOST)

# One more job worker (beside `make run`, or beside a plain runserver).
worker: $(VENV)/.base
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py worker --no-reload

# Production on one machine: check the settings, collect the static files, migrate, then
# gunicorn (deploy/gunicorn.conf.py) and one worker until Ctrl-C or TERM (deploy/start.sh).
# Needs SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL (PostgreSQL); README: Deploying.
PROD := DJANGO_SETTINGS_MODULE=ratings_site.settings.production
prod: $(VENV)/.base
	$(PROD) $(BIN)/python manage.py check --deploy --fail-level WARNING
	$(PROD) $(BIN)/python manage.py collectstatic --noinput
	$(PROD) $(BIN)/python manage.py migrate --noinput
	$(PROD) PYTHON=$(BIN)/python deploy/start.sh

test: $(VENV)/.dev
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.dev
	$(BIN)/python -m pytest tests/benchmarks -m benchmark -s -q -p no:randomly $(PYTEST_ARGS)

# Mutation testing of the rules engine, the close's plan included (configured in
# pyproject.toml). Takes long, so it is neither in `check` nor in CI. A second run retests
# only what changed; `$(BIN)/mutmut browse` or `$(BIN)/mutmut show NAME` reads a survivor.
MUTANT_CHILDREN ?= 2
mutants: $(VENV)/.dev
	$(BIN)/mutmut run --max-children $(MUTANT_CHILDREN)
	$(BIN)/mutmut results

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev
	$(BIN)/mypy ratings_site players tournaments
	$(BIN)/lint-imports

check: lint typecheck
	$(BIN)/python manage.py makemigrations --check --dry-run
	DJANGO_SETTINGS_MODULE=ratings_site.settings.production \
	SECRET_KEY=$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(64))') \
	ALLOWED_HOSTS=ratings.example.org \
	$(BIN)/python manage.py check --deploy --fail-level WARNING

# Translations (README: Languages). `messages` gathers every marked text into
# locale/de/LC_MESSAGES/django.po (needs GNU gettext); translate the new entries, then
# `compilemessages` writes the .mo files that are committed beside them.
MESSAGE_ARGS := --locale de --domain django --no-obsolete --ignore '.venv/*' --ignore 'tests/*' --ignore 'staticfiles/*'
messages: $(VENV)/.base
	$(BIN)/python manage.py makemessages $(MESSAGE_ARGS)

compilemessages: $(VENV)/.base
	$(BIN)/python manage.py compilemessages --locale de --ignore '.venv/*'

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache staticfiles
