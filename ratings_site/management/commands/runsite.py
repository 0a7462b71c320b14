"""``manage.py runsite``: the development server and a job worker per lane, in one command.

``make run`` uses it. Each worker is a child process (``manage.py worker --queue-name
LANE``, one for each of ``settings.JOBS_LANES``: rating, replays, files, deliveries), so
a neighbour's big import, long replay or slow webhook receiver never holds up a close
(docs/reference/queue.md).
Ctrl-C (or a TERM to this process) stops the server and then the workers. With the
autoreloader the server restarts on code changes; the workers do not (restart the command
after changing a job's code).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

#: Seconds the worker has to finish its job after the server stopped.
WORKER_GRACE_SECONDS = 10


def site_url(addrport: str) -> str:
    """The address a browser opens for runserver's ``addrport`` ("8101", "0.0.0.0:8101",
    "127.0.0.1:8101"): every interface is reached through this machine's loopback."""
    host, _, port = addrport.rpartition(":")
    if host in ("", "0.0.0.0", "0", "[::]"):  # noqa: S104 - a name for "all", not a bind
        host = "127.0.0.1"
    return f"http://{host}:{port}/"


def lane_worker_commands(manage: str) -> list[list[str]]:
    """The command of each lane's worker (``settings.JOBS_LANES`` order), run from the
    program ``manage`` (``manage.py``)."""
    return [
        [
            sys.executable,
            manage,
            "worker",
            "--no-reload",
            "--no-startup-delay",
            "--queue-name",
            lane,
            "--worker-id",
            f"runsite-{lane}-{os.getpid()}",
        ]
        for lane in settings.JOBS_LANES
    ]


def _stop_on_term(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = "Run the development server and a job worker per lane; Ctrl-C stops them all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="no autoreloader")

    def handle(self, *args: Any, **options: Any) -> None:
        serve = {"addrport": options["addrport"], "use_reloader": not options["noreload"]}
        if os.environ.get("RUN_MAIN") == "true":
            # The autoreloader's child process: it only serves; its parent has the worker.
            call_command("runserver", **serve)
            return
        workers = [
            subprocess.Popen(command)  # noqa: S603 - our own manage.py, no shell
            for command in lane_worker_commands(sys.argv[0])
        ]
        for lane, worker in zip(settings.JOBS_LANES, workers, strict=True):
            self.stdout.write(f"Job worker for the {lane} lane started (process {worker.pid}).")
        site = site_url(options["addrport"])
        self.stdout.write(f"The site: {site} - the admin: {site}admin/")
        # Ctrl-C and TERM stop the server, then the worker. Set explicitly: a process
        # started in the background of a script inherits SIGINT ignored.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _stop_on_term)
        try:
            call_command("runserver", **serve)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop(workers)

    def _stop(self, workers: list[subprocess.Popen[bytes]]) -> None:
        # Each worker finishes the job in hand (its own SIGINT/SIGTERM handling); all of
        # them at once, so the grace is not spent one after another.
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in workers:
            try:
                worker.wait(WORKER_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        self.stdout.write("Job workers stopped.")
