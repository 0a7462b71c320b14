"""Fixtures shared by the whole suite."""

from __future__ import annotations

import contextlib
import copy
import fcntl
import graphlib
import multiprocessing.util
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
import warnings
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import override_settings
from hypothesis import settings

T = TypeVar("T")

# The queue's lanes as the settings name them (a task of a lane not listed is refused).
LANES = list(django_settings.JOBS_LANES)
IMMEDIATE_TASKS = {
    "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": LANES}
}
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": LANES}}

# No per-example deadline anywhere: on a shared or slow machine an example that takes longer
# than Hypothesis's default 200 ms is not a failure. Tests still set their own
# max_examples; they inherit this profile for everything they leave out.
settings.register_profile("ratings", deadline=None)
settings.load_profile("ratings")


def pytest_configure(config: pytest.Config) -> None:
    # The default cache is the database's (throttle counts shared by every worker); the
    # suite counts in memory, so tests without the database (the calculator's API) can be
    # throttled too. tests/accounts/test_doors.py checks the database cache itself.
    from django.conf import settings as django_settings

    django_settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    }
    # Every test client loads the middleware again, and WhiteNoise, which serves the
    # apps' static files here, walked all of them (175 files, 15 ms) each time it was made,
    # 900 times in the authorization matrix alone. Looking a file up when it is asked
    # for, as WhiteNoise does under `runserver` (DEBUG), serves the same files and
    # headers; tests/test_static_files.py serves production's collected files as
    # production does.
    django_settings.WHITENOISE_AUTOREFRESH = True
    _flush_postgresql_by_delete()


def _children_first(tables: list[str]) -> list[str] | None:
    """``tables`` ordered so that each comes before every table its rows refer to (by the
    models' relations), or None when that order does not exist (a cycle) or a table is
    not a model's."""
    from django.apps import apps

    by_table = {
        model._meta.db_table: model
        for model in apps.get_models(include_auto_created=True)
        if not model._meta.proxy
    }
    if not set(tables) <= by_table.keys():
        return None
    referred_by: dict[str, set[str]] = {table: set() for table in tables}
    for table in tables:
        for field in by_table[table]._meta.concrete_fields:
            target = field.related_model
            if field.is_relation and target is not None and not isinstance(target, str):
                parent = target._meta.db_table
                if parent != table and parent in referred_by:
                    referred_by[parent].add(table)
    try:
        return list(graphlib.TopologicalSorter(referred_by).static_order())
    except graphlib.CycleError:
        return None


def _flush_postgresql_by_delete() -> None:
    """On PostgreSQL a transactional test's teardown (Django's ``flush``) empties its tables
    with DELETE, children first, instead of TRUNCATE: TRUNCATE makes new files for each of
    the 43 tables and their indexes, 0.3-0.4 s a test on two cores against 5-16 ms for
    DELETE on the few rows a test leaves, some 140 tests a run. The same rows go; DELETE
    fires the tables' own delete triggers (the references that games and rating rows keep),
    which the order satisfies. Sequences are left as TRUNCATE without RESTART IDENTITY
    leaves them; a flush that resets them, or cascades past the tables it names (a test's
    ``available_apps``), is TRUNCATE's as before."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(
        self: DatabaseOperations,
        style: Any,
        tables: list[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        order = None if reset_sequences or allow_cascade else _children_first(tables)
        if order is None:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        # The names are the models' own tables, quoted as Django quotes them.
        return [f"DELETE FROM {self.quote_name(table)};" for table in order]  # noqa: S608

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def _fast_passwords() -> Iterator[None]:
    """Passwords hashed with MD5 in this process: the default PBKDF2 costs 0.4 s of CPU per
    user made or signed in with a password, 40 s of the suite's CPU, and no test here is
    about the hashing. For the whole session, so the module-wide fixtures (the API's
    world) have it too. Processes a test starts hash with the settings' own hashers."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Each test starts with an empty cache: a page cached by an earlier test (SQLite may
    give a new club the same id) or its throttle counts must not reach the next."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _jobs_run_at_once(request: pytest.FixtureRequest) -> Iterator[None]:
    """Most tests are about what a job does, not the queue: their jobs run inside the
    request that starts them (the immediate backend), so an endpoint answers as it did
    before it became a job. Tests of the queue ask for ``queued_jobs`` (or run real
    workers) instead."""
    if "queued_jobs" in request.fixturenames:
        yield
        return
    with override_settings(TASKS=IMMEDIATE_TASKS, JOBS_HEARTBEAT_SECONDS=0):
        yield


@pytest.fixture
def queued_jobs(settings: object) -> None:
    """Jobs go onto the database queue and wait for a worker."""
    settings.TASKS = DATABASE_TASKS  # type: ignore[attr-defined]
    settings.JOBS_HEARTBEAT_SECONDS = 0  # type: ignore[attr-defined]


@pytest.fixture
def database_cache_table() -> None:
    """The cache table that processes started by a test (gunicorn, job workers) use: the
    settings' cache is the database's unless CACHE_URL names Redis, and every service
    that changes a club retires its cached public views there. The suite's own cache is
    in memory, so ``migrate`` made no table in the test database."""
    from django.core.management import call_command

    from ratings_site.env import env_cache

    with override_settings(CACHES={"default": env_cache("CACHE_URL")}):
        call_command("createcachetable")


def _run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's own temporary directory, the same for every xdist worker (above the
    workers' own, popen-gw0, ...): where what the workers share is made, under a lock."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _migrate(database_url: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "DATABASE_URL": database_url},
        check=True,
        capture_output=True,
    )


SQLITE_TEMPLATE = "migrated.sqlite3"
# The file that holds the migrated PostgreSQL database's name.
POSTGRES_TEMPLATE = "migrated-postgres"


class _Template:
    """The run's migrated database, shared by the xdist workers: the first to need it makes
    it, under a lock, in the run's own directory. On SQLite the file ``path``; on
    PostgreSQL a database of the suite's server, whose name ``path`` holds, written only
    once the database is whole."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, *, postgres: bool) -> None:
        self.postgres = postgres
        name = POSTGRES_TEMPLATE if postgres else SQLITE_TEMPLATE
        self.path = _run_directory(tmp_path_factory) / name

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        with open(self.path.with_name(f"{self.path.name}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def ready(self) -> bool:
        return self.path.exists()

    def made(self) -> Path:
        """``path``, the template made first (``manage.py migrate``) if nobody made it yet."""
        with self.locked():
            if not self.ready():
                self._migrate()
        return self.path

    def _migrate(self) -> None:
        if self.postgres:
            import psycopg

            name = _template_name()
            with psycopg.connect(f"{postgres_server_url()}/postgres", autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            try:
                _migrate(f"{postgres_server_url()}/{name}")
            except BaseException:
                _drop_postgres_database(name)
                raise
            self.path.write_text(name)
            return
        making = self.path.with_name(f"migrating-{os.getpid()}.sqlite3")
        _migrate(f"sqlite:///{making}")
        making.rename(self.path)

    def keep(self, test_database: str) -> None:
        """This process's test database, just migrated by Django, as the template: a
        clone on PostgreSQL, a copy of the in-memory database on SQLite (in write-ahead
        logging, as ``migrate`` leaves a file under the settings' options). The suite's
        cache is in memory, so the migration that makes the settings' cache table
        (players/0017) made none here: it is made first, as ``migrate`` makes it."""
        from django.core.management import call_command

        from ratings_site.env import env_cache

        with override_settings(CACHES={"default": env_cache("CACHE_URL")}):
            call_command("createcachetable")
        if self.postgres:
            from django.db import connections

            # A database is cloned only while nobody is connected to it.
            connections.close_all()
            name = _template_name()
            _clone_postgres(test_database, name)
            self.path.write_text(name)
            return
        making = self.path.with_name(f"keeping-{os.getpid()}.sqlite3")
        with (
            contextlib.closing(sqlite3.connect(test_database, uri=True)) as memory,
            contextlib.closing(sqlite3.connect(making)) as copy,
        ):
            memory.backup(copy)
            copy.execute("PRAGMA journal_mode=WAL")
        making.rename(self.path)

    def copy_to(self, test_database: str, held: contextlib.ExitStack) -> None:
        """``test_database`` made a copy of the template: a clone on PostgreSQL; on SQLite
        the shared in-memory database, which lives while a connection holds it (``held``
        keeps one open)."""
        if self.postgres:
            _clone_postgres(self.path.read_text(), test_database)
            return
        memory = held.enter_context(contextlib.closing(sqlite3.connect(test_database, uri=True)))
        with contextlib.closing(sqlite3.connect(self.path)) as source:
            source.backup(memory)


def _template_name() -> str:
    return f"test_migrated_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file as ``manage.py migrate`` leaves a new database, made once for the run.

    For the tests that start processes on a database of their own and are not about
    migrating (the replica's router, the import commands' exit status, a club restored into
    a fresh database, the docs' commands, ``runsite``, the how-tos' starting point): each
    copies this file instead of migrating (7 s of CPU a time, most of it Django rendering
    the migrations' states). The xdist workers share it (``_Template``); in a run of the
    suite on SQLite it is the first test database Django migrated (``django_db_setup``)."""
    return _Template(tmp_path_factory, postgres=False).made()


def migrated_copy(template: Path, path: Path) -> Path:
    """``path``, a copy of the migrated template (``migrated_sqlite``)."""
    shutil.copyfile(template, path)
    return path


def postgres_server_url() -> str:
    """The suite's PostgreSQL server, as a URL without a database name (for the processes
    a test starts: add the database's name)."""
    ours = connection.settings_dict
    password = f":{ours['PASSWORD']}" if ours.get("PASSWORD") else ""
    host = ours["HOST"] or "127.0.0.1"
    return f"postgres://{ours['USER']}{password}@{host}:{ours['PORT'] or 5432}"


@pytest.fixture(scope="session")
def migrated_postgres(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The name of a PostgreSQL database as ``manage.py migrate`` leaves a new one, made once
    for the run, as ``migrated_sqlite`` is (in a run of the suite on PostgreSQL, a clone
    of the first test database Django migrated). A test clones it with ``CREATE DATABASE
    ... TEMPLATE``, a copy of its files inside the server, instead of migrating. The run's
    end drops it (``pytest_sessionfinish``)."""
    return _Template(tmp_path_factory, postgres=True).made().read_text()


def _clone_postgres(template: str, name: str) -> None:
    """``name``, a new database of the suite's server made from ``template``; a database an
    interrupted run left under that name is dropped first."""
    import psycopg

    with psycopg.connect(f"{postgres_server_url()}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


@pytest.fixture
def migrated_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new database of the suite's kind as ``manage.py migrate`` leaves it, for processes
    a test starts: a copy of ``migrated_sqlite``, or on PostgreSQL a clone of
    ``migrated_postgres`` dropped after the test."""
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        template = request.getfixturevalue("migrated_sqlite")
        yield f"sqlite:///{migrated_copy(template, tmp_path / 'db.sqlite3')}"
        return

    template = request.getfixturevalue("migrated_postgres")
    name = f"{template}_{uuid.uuid4().hex[:8]}"
    _clone_postgres(template, name)
    try:
        yield f"{postgres_server_url()}/{name}"
    finally:
        _drop_postgres_database(name)


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
) -> Iterator[None]:
    """pytest-django's own, except that the run migrates one test database, not one per
    xdist worker (7-10 s of CPU each, most of it rendering the 108 migrations' states).
    The first process to get here migrates its own, as Django does, and keeps a copy as
    the run's migrated template (``migrated_sqlite``, ``migrated_postgres``: the tests
    that start processes copy it too); the others start from a copy, which Django then
    finds migrated (``keepdb``). On PostgreSQL the copy is a clone, dropped at the end as
    Django drops its own; on SQLite Django's shared in-memory database, filled by SQLite's
    backup and held open here for the session. ``--reuse-db`` keeps pytest-django's way."""
    from django.test.utils import setup_databases, teardown_databases
    from pytest_django.fixtures import _get_databases_for_setup

    reuse = bool(request.config.getvalue("reuse_db")) and not request.config.getvalue("create_db")
    aliases, serialized_aliases = _get_databases_for_setup(request.session.items)
    verbosity = request.config.option.verbose
    with contextlib.ExitStack() as held:
        with django_db_blocker.unblock():
            name = connection.creation._get_test_db_name()
            postgres = connection.vendor == "postgresql"
            shared = postgres or connection.creation.is_in_memory_db(name)
            template = None
            if shared and not reuse and "default" in aliases:
                template = _Template(tmp_path_factory, postgres=postgres)
            with template.locked() if template is not None else contextlib.nullcontext():
                copied = template is not None and template.ready()
                if template is not None and copied:
                    template.copy_to(name, held)
                config = setup_databases(
                    verbosity=verbosity,
                    interactive=False,
                    keepdb=copied or reuse,
                    aliases=aliases,
                    serialized_aliases=serialized_aliases,
                )
                if template is not None and not copied:
                    template.keep(name)
        yield
        if not reuse:
            with django_db_blocker.unblock():
                teardown_databases(config, verbosity=verbosity)


def _drop_postgres_database(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{postgres_server_url()}/postgres", autocommit=True) as admin:
        # A DROP DATABASE waits for every backend of the server to take a signal, which a
        # session stuck in a COPY never does: one minute, then the database is left.
        admin.execute("SET statement_timeout = '60s'")
        try:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except psycopg.errors.QueryCanceled:
            warnings.warn(f"the database {name} was left: DROP DATABASE timed out", stacklevel=1)


def pytest_sessionfinish(session: pytest.Session) -> None:
    # The run's migrated PostgreSQL template, dropped once every worker is done: by the
    # process that started them (or the only one), never by a worker.
    if hasattr(session.config, "workerinput"):
        return
    if django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return
    made = _run_directory(session.config._tmp_path_factory) / POSTGRES_TEMPLATE  # type: ignore[attr-defined]
    if made.exists():
        _drop_postgres_database(made.read_text())


@contextlib.contextmanager
def committed_for_module(
    django_db_blocker: Any, build: Callable[[], T], *, jobs_at_once: bool = True
) -> Iterator[T]:
    """For a module-scoped fixture: ``build()``'s rows made once and committed, its jobs run
    at once as every test's are (``jobs_at_once=False``: queued as the settings queue
    them), and every table emptied when the module is done. Each test runs in a
    transaction rolled back after it, so each starts from these rows; the test's own
    fixture hands it ``copy.deepcopy`` of what was built, as Django's setUpTestData does,
    so that objects changed in memory do not reach the next test."""
    from django.core.management import call_command

    tasks = override_settings(TASKS=IMMEDIATE_TASKS) if jobs_at_once else contextlib.nullcontext()
    with django_db_blocker.unblock(), tasks:
        built = build()
    yield built
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)


def built_once_per_module(
    name: str, build: Callable[[], T], *, jobs_at_once: bool = True
) -> tuple[Any, Any]:
    """Two fixtures for a module whose tests all read the same rows: ``_built_for_module``
    builds them once for the module (``committed_for_module``), and ``name`` hands each test
    its own ``copy.deepcopy`` of what was built. The rows are committed, so the module holds
    no transactional test (its flush would empty them under the tests after it), and its
    tests build no club of the same names. A module (or a conftest) takes both, once::

        _built_for_module, world = built_once_per_module("world", build_world)

    pytest knows the first by that name: a conftest that takes the helper gives it to every
    module of its folder, so none of them may take the helper as well (tests/api's world).
    """

    @pytest.fixture(scope="module")
    def _built_for_module(django_db_setup: None, django_db_blocker: Any) -> Iterator[T]:
        with committed_for_module(django_db_blocker, build, jobs_at_once=jobs_at_once) as built:
            yield built

    # Takes the module's rows by parameter, so that pytest builds them before the test's
    # transaction starts (looked up inside the test, they would be rolled back with it).
    @pytest.fixture(name=name)
    def built_for_test(_built_for_module: T, db: None) -> T:
        return copy.deepcopy(_built_for_module)

    return _built_for_module, built_for_test


@pytest.fixture
def postgres_only() -> None:
    """Row locks and concurrent transactions need PostgreSQL; SQLite locks the whole file."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks (SELECT ... FOR UPDATE)")


def _uses_the_database(item: pytest.Item) -> bool:
    # The django_db marker, or a fixture that needs it (db, transactional_db, client,
    # live_server... all request pytest-django's _django_db_helper).
    return item.get_closest_marker("django_db") is not None or "_django_db_helper" in getattr(
        item, "fixturenames", ()
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers (docs/developers/testing.md): every test that uses the database is marked
    ``database`` here, so ``make test-fast`` (no database, nothing slow) needs no list."""
    for item in items:
        if _uses_the_database(item):
            item.add_marker(pytest.mark.database)


# The markers that take a test out of `make test-fast`; a test with none of them is in it.
NOT_FAST = ("database", "slow", "browser", "benchmark")


def _in_the_fast_tier(item: pytest.Item) -> bool:
    return not any(item.get_closest_marker(name) for name in NOT_FAST)


def _no_process(*args: Any, **kwargs: Any) -> NoReturn:
    # pytest.fail, not an OSError: a test that catches a failed start must not pass anyway.
    pytest.fail(
        "a fast-tier test started a process; mark it slow (docs/developers/testing.md: the fast tier "
        "starts no process, so it answers in seconds on busy cores too)",
        pytrace=True,
    )


# Every way the standard library starts a process goes through one of these: subprocess
# (and asyncio's, which uses it), os.system, fork, posix_spawn, and multiprocessing's spawn.
_PROCESS_STARTERS = (
    (subprocess.Popen, "_execute_child"),
    (os, "system"),
    (os, "fork"),
    (os, "posix_spawn"),
    (os, "posix_spawnp"),
    (multiprocessing.util, "spawnv_passfds"),
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """A fast-tier test (no database, slow, browser or benchmark marker) fails if it starts
    a process, in `make test` too: the tier's promise is held by the tests, not by memory.
    Around setup as well, so a module fixture that starts one is caught."""
    if not _in_the_fast_tier(item):
        return (yield)
    with contextlib.ExitStack() as stack:
        for owner, name in _PROCESS_STARTERS:
            if hasattr(owner, name):
                stack.enter_context(mock.patch.object(owner, name, _no_process))
        return (yield)


@pytest.fixture(autouse=True)
def _language_reset() -> Iterator[None]:
    """A test that renders a German page (the locale middleware activates German for its
    thread) must not leave German switched on for the next test in the same process: the
    engine's labels and K reasons would come out translated there."""
    yield
    from django.utils import translation

    translation.deactivate()
