# Two commands matter: `make run` (the site and a job worker per lane) and `make test`.
# `make test-fast` is the quick tier while you work (docs/developers/testing.md).
# Everything installs into .venv; `make prod` is the production path (docs/tasks/deploying.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1:8000
# Python's own default, restored where a machine turns it off: with
# PYTHONDONTWRITEBYTECODE set, every process (each test worker, each `manage.py` a test
# starts) compiled every module again, and pytest rewrote every test module's asserts
# again: `make test-fast` took 29 s instead of 21 on two quiet cores.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: run worker prod test test-fast bench mutants lint typecheck check docs install install-dev clean messages compilemessages

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
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py ensure_database
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py load_demo --if-empty --site http://$(HOST)
	DEBUG=$${DEBUG:-1} SITE_URL=$${SITE_URL:-http://$(HOST)} $(BIN)/python manage.py runsite $(HOST)

# One more job worker, of every lane (beside `make run`, or beside a plain runserver);
# `LANE=files make worker` for one lane (docs/reference/queue.md).
worker: $(VENV)/.base
	DEBUG=$${DEBUG:-1} SITE_URL=$${SITE_URL:-http://$(HOST)} $(BIN)/python manage.py worker --no-reload --queue-name "$${LANE:-*}"

# Production on one machine: check the settings, collect the static files, migrate, then
# gunicorn (deploy/gunicorn.conf.py) and a worker per lane until Ctrl-C or TERM (deploy/start.sh).
# Needs SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL (PostgreSQL); docs/tasks/deploying.md.
PROD := DJANGO_SETTINGS_MODULE=ratings_site.settings.production
prod: $(VENV)/.base
	$(PROD) $(BIN)/python manage.py check --deploy --fail-level WARNING
	$(PROD) $(BIN)/python manage.py collectstatic --noinput
	$(PROD) $(BIN)/python manage.py migrate --noinput
	$(PROD) PYTHON=$(BIN)/python deploy/start.sh

# The whole suite, one pytest-xdist process per CPU core (TEST_WORKERS=1: one process);
# pytest-django gives each process its own test database. A file's tests stay in one
# process (loadfile): a module's fixtures (the generated API client) are built once.
TEST_WORKERS ?= auto
test: $(VENV)/.dev
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# The fast tier: the rules engine and the pure units. No database, no subprocess, no
# browser (tests/conftest.py marks every test that uses the database `database`; the slow
# ones are marked `slow`, the browser's `browser`; the two folders ignored hold nothing
# else, and importing them costs seconds; so does the schemathesis module, all slow, which
# builds the API's schema as it is imported, and the schemathesis plugin it alone uses).
# tests/conftest.py fails a test of this tier that starts a process. In one process:
# starting workers costs more than it saves.
FAST := not database and not slow and not browser and not benchmark
FAST_SKIPS := --ignore tests/browser --ignore tests/benchmarks --ignore tests/api/test_schemathesis.py -p no:schemathesis
test-fast: $(VENV)/.dev
	$(BIN)/python -m pytest -m "$(FAST)" -q $(FAST_SKIPS) $(PYTEST_ARGS)

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
	ALLOWED_HOSTS=ratings.example.org SITE_URL=https://ratings.example.org \
	$(BIN)/python manage.py check --deploy --fail-level WARNING
	$(BIN)/mkdocs build --strict --quiet

# The docs (docs/, mkdocs.yml) at http://127.0.0.1:8001 while you edit them; `make check`
# builds them with --strict (a broken link or a page missing from the nav fails).
DOCS_HOST ?= 127.0.0.1:8001
docs: $(VENV)/.dev
	$(BIN)/mkdocs serve --dev-addr $(DOCS_HOST)

# Translations (docs/developers/howto-language.md). `messages` gathers every marked text into
# locale/de/LC_MESSAGES/django.po (needs GNU gettext); translate the new entries, then
# `compilemessages` writes the .mo files that are committed beside them.
MESSAGE_ARGS := --locale de --domain django --no-obsolete --ignore '.venv/*' --ignore 'tests/*' --ignore 'staticfiles/*'
messages: $(VENV)/.base
	$(BIN)/python manage.py makemessages $(MESSAGE_ARGS)

compilemessages: $(VENV)/.base
	$(BIN)/python manage.py compilemessages --locale de --ignore '.venv/*'

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache staticfiles site
