"""``manage.py worker``: runs queued jobs (django-tasks-db's worker) and takes back the jobs
of workers that died.

Everything of ``db_worker`` (``--batch``, ``--interval``, ``--max-tasks``, ``--worker-id``,
``--queue-name``...), plus: a thread that every half lease looks for running jobs whose
heartbeat stopped (``players.jobs.jobs_reap``) and queues them again or fails them;
and a prompt pickup. On PostgreSQL the worker LISTENs for the NOTIFY that queuing a job
sends at its commit (players/jobs/events.py) and looks at the queue as soon as
one comes; ``--interval`` (default 1 s there) is then only the fallback look. Elsewhere
(SQLite) it looks every 50 ms unless ``--interval`` says otherwise.
Start as many workers as you like, on any machine that reaches the database; a job runs in
one of them (the queue hands a task out under ``SELECT ... FOR UPDATE SKIP LOCKED``, the
job is claimed with a compare-and-set).

Lanes (docs/reference/queue.md): ``--queue-name rating`` serves only the rating lane (closes,
reopens), ``--queue-name files,deliveries`` two lanes; the default, ``*``, serves every
lane. ``make run`` and deploy/ start one worker per lane, so a lane's backlog never holds
up another lane.

Background work yields the CPU to the web: a worker started as a program (``manage.py
worker``, ``make run``'s, ``make worker``) runs at niceness ``--nice`` (default: its lane's,
``settings.WORKER_LANE_NICE``: 10 for rating and deliveries, 15 for replays, 19 for files;
a worker of several lanes takes the lowest of theirs), so on a machine it shares with
gunicorn a big close takes the cores the pages leave idle, not the pages' share. On an idle machine it costs nothing.
``call_command("worker", ...)`` (a test, a script) leaves its caller's priority alone unless
``nice`` is passed. Only lowered, never raised (that needs privileges); the database
server's work for a job is not covered (docs/tasks/deploying.md).
"""

from __future__ import annotations

import logging
import os
import random
import signal
import threading
import time
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.db import DatabaseError, close_old_connections, connections
from django.db.utils import OperationalError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.management.commands.db_worker import logger as tasks_logger
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from players.jobs import jobs_reap
from players.jobs.events import POLL_SECONDS, QUEUED, Listener, notifies, open_listener

logger = logging.getLogger(__name__)


# The niceness a process may take (setpriority(2)): 0 is everyone's default, 19 the lowest.
NICE_RANGE = range(0, 20)


def lower_priority(nice: int) -> int:
    """Run this process at niceness ``nice`` where it runs at less; returns its niceness.

    On Linux a niceness is each thread's own: every thread already running gets it (the
    numerical library's pool, started when numpy was imported), and the threads started
    later (the reaper, a job's heartbeat) inherit it from the main thread. Elsewhere it is
    the process's."""
    if nice <= os.getpriority(os.PRIO_PROCESS, 0):
        return os.getpriority(os.PRIO_PROCESS, 0)
    tasks = Path("/proc/self/task")
    for thread in [int(task.name) for task in tasks.iterdir()] if tasks.is_dir() else [0]:
        try:
            if os.getpriority(os.PRIO_PROCESS, thread) < nice:
                os.setpriority(os.PRIO_PROCESS, thread, nice)
        except OSError:
            continue  # the thread ended meanwhile
    return os.getpriority(os.PRIO_PROCESS, 0)


def lane_nice(queue_names: list[str]) -> int:
    """The niceness of a worker of these lanes: the most urgent lane's (a worker that also
    serves the rating lane must not run a close at the files lane's niceness)."""
    lanes: dict[str, int] = settings.WORKER_LANE_NICE
    if "*" in queue_names:
        queue_names = list(lanes)
    known = [lanes[name] for name in queue_names if name in lanes]
    return min(known) if known else int(settings.WORKER_NICE)


def _reap_forever(stop: threading.Event) -> None:
    interval = max(float(settings.JOBS_LEASE_SECONDS) / 2, 0.5)
    try:
        while not stop.wait(interval):
            try:
                jobs_reap()
            except DatabaseError:
                # The database is away or busy: the next round will do.
                logger.warning("Could not look for jobs of dead workers", exc_info=True)
    finally:
        connections.close_all()


class NotifiedWorker(Worker):
    """db_worker's Worker whose wait between looks at the queue ends when a job is queued.

    ``run`` is the library's loop (django-tasks-db 0.13) with its ``time.sleep(interval)``
    replaced by ``_wait``: the library has no hook for the wait, and patching its module's
    ``time`` would change every other user of it. Keep it in step when upgrading."""

    listener: Listener | None = None

    def run(self) -> None:
        tasks_logger.info(
            "Starting worker worker_id=%s queues=%s pickup=%s nice=%d",
            self.worker_id,
            ",".join(self.queue_names),
            "notify" if notifies() else f"poll {self.interval} s",
            os.getpriority(os.PRIO_PROCESS, 0),
        )
        if self.startup_delay and self.interval:
            time.sleep(random.random())  # spreads workers started together
        # Listening before the first look: a job queued between the look and the wait
        # still wakes the wait (its notification is held for this connection).
        self._listen()
        try:
            self._loop()
        finally:
            if self.listener is not None:
                self.listener.close()

    def _loop(self) -> None:
        while self.running:
            close_old_connections()
            task_result, retrieved = self._claim()
            if task_result is not None:
                self.run_task(task_result)
            if self.batch and retrieved and task_result is None:
                tasks_logger.info("No more tasks to run for worker_id=%s.", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                tasks_logger.info("Ran the maximum tasks (%d).", self._run_tasks)
                return
            close_old_connections()
            if self.running and task_result is None:
                self._wait()

    def _claim(self) -> tuple[DBTaskResult[Any, Any] | None, bool]:
        """The next ready task, claimed for this worker (the library's step), and whether
        the queue could be read (SQLite may be locked by another writer)."""
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        with exclusive_transaction(tasks.db):
            try:
                task_result = tasks.get_locked()
                if task_result is not None:
                    task_result.claim(self.worker_id)
            except OperationalError as e:
                if is_locked_database_exception(e):
                    return None, False
                raise
        return task_result, True

    def _listen(self) -> None:
        if notifies() and not self.batch:
            self.listener = open_listener(QUEUED)

    def _wait(self) -> None:
        if self.listener is not None and self.listener.broken:
            self.listener.close()
            self.listener = None
            self._listen()  # the database came back: notified again from now on
        if self.listener is None:
            time.sleep(self.interval)
        else:
            self.listener.wait(self.interval)


class Command(DatabaseWorkerCommand):
    help = "Run background jobs (and take back the jobs of workers that died)."
    # Set when started as a program (run_from_argv), not by call_command.
    own_process = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        # None: chosen by the database (handle): the fallback look where a NOTIFY wakes
        # the worker, the pickup itself where nothing does.
        parser.set_defaults(interval=None, queue_name="*")
        parser.add_argument(
            "--nice",
            type=int,
            default=None,
            help="The niceness to run jobs at, 0 (the web's) to 19 (default: the lane's, "
            "WORKER_LANE_NICE): background work yields the CPU to the web.",
        )

    def run_from_argv(self, argv: list[str]) -> None:
        # Started as a program: the setting's niceness applies (call_command leaves its
        # caller's priority alone unless ``nice`` is passed).
        self.own_process = True
        super().run_from_argv(argv)

    def handle(self, *args: Any, **options: Any) -> None:
        nice = options.get("nice")
        if nice is None and self.own_process:
            nice = lane_nice(str(options["queue_name"]).split(","))
        if nice is not None:
            if nice not in NICE_RANGE:
                raise CommandError(f"--nice {nice}: a niceness from 0 to 19.")
            # First: the threads started below inherit it.
            lower_priority(nice)
        if options.get("interval") is None:
            options["interval"] = 1.0 if notifies() else POLL_SECONDS
        # Jobs stuck since before this worker started are looked at once, at once.
        jobs_reap()
        if options.get("batch"):
            # A batch run may be called inside another program (tests, a script): it gets
            # its Ctrl-C and TERM handling back afterwards.
            signals = (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
            saved = {sig: signal.getsignal(sig) for sig in signals}
            try:
                self._work(**options)
            finally:
                for sig, handler in saved.items():
                    signal.signal(sig, handler)
            return
        stop = threading.Event()
        reaper = threading.Thread(target=_reap_forever, args=(stop,), daemon=True, name="reaper")
        reaper.start()
        try:
            self._work(**options)
        finally:
            stop.set()

    def _work(self, **options: Any) -> None:
        """db_worker's ``handle`` with this module's NotifiedWorker (the library builds its
        own Worker there, with no way to choose the class)."""
        self.configure_logging(options["verbosity"])
        reload = bool(options["reload"]) and not options["batch"]
        queue_names = options["queue_name"].split(",")
        excluded = options["exclude_queues"].split(",") if options["exclude_queues"] else []
        if excluded and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        lanes = set(settings.TASKS[options["backend_name"]].get("QUEUES") or [])
        unknown = sorted(set(queue_names) - lanes - {"*"})
        if unknown and lanes:
            # A misspelt lane would be served by no one, silently.
            raise CommandError(
                f"--queue-name {','.join(unknown)}: no such lane; the lanes are "
                f"{', '.join(sorted(lanes))} (or * for all)."
            )
        worker = NotifiedWorker(
            queue_names=queue_names,
            interval=options["interval"],
            batch=options["batch"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
            excluded_queue_names=excluded,
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # the reloader's child only
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
