"""What the noisy-neighbour benchmark runs against: a webhook receiver that answers one byte
every few seconds, and the two worker layouts (``make run``'s lane workers, deploy/'s
start.sh) started on the test database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from django.conf import settings

from tests.benchmarks.test_load_bench import _env, _free_port

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ("runsite", "deploy")
STARTUP_SECONDS = 120


@contextmanager
def slow_receiver(byte_every: float) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 that reads each request, then answers its status line one
    byte every ``byte_every`` seconds for as long as the client stays (a receiver that holds
    its sender: each read gets a byte well within any per-read timeout). Yields its URL."""
    stop = threading.Event()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    held: list[socket.socket] = []

    def dribble(client: socket.socket) -> None:
        with client:
            client.settimeout(5)
            try:
                client.recv(65536)  # the request (a delivery is a few KB)
                for byte in b"HTTP/1.1 200 OK\r\n" * 1000:
                    if stop.wait(byte_every):
                        return
                    client.sendall(bytes([byte]))
            except OSError:
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(client)
            threading.Thread(target=dribble, args=(client,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/hook"
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


def _group_stop(process: subprocess.Popen[bytes], grace: float) -> None:
    """TERM to the process's group (each worker finishes its job in hand), KILL after
    ``grace`` seconds."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(grace)
            return
        except subprocess.TimeoutExpired:
            pass
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(30)


@contextmanager
def layout(name: str, log: Path, **extra: str) -> Iterator[None]:
    """The workers of ``name`` on the test database, up and listening: ``runsite``,
    ``manage.py runsite`` (the development server and its lane workers) as ``make run``
    starts it; ``deploy``, ``deploy/start.sh`` (gunicorn and its lane workers) as ``make
    prod`` does. Each in a session of its own, as from a terminal."""
    env = _env(PYTHON=sys.executable, **extra)
    env.pop("TASKS_BACKEND", None)
    out = log.open("ab")
    if name == "runsite":
        # make run's last step, as it is: the development server and its lane workers.
        commands = [[sys.executable, "manage.py", "runsite", f"127.0.0.1:{_free_port()}"]]
        # With DEBUG on the queue's INFO lines are hidden from the console, the workers'
        # "Starting worker" among them, which is how this waits for the lanes.
        env.update(DEBUG="1", QUEUE_LOG_LEVEL="INFO")
    else:
        env.update(GUNICORN_BIND=f"127.0.0.1:{_free_port()}", GUNICORN_WORKERS="2")
        commands = [["bash", "deploy/start.sh"]]
    processes = [
        subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a group of its own: stopped as a whole
        )
        for command in commands
    ]
    try:
        lanes = len(settings.JOBS_LANES)
        began = time.monotonic()
        while log.read_text(errors="replace").count("Starting worker") < lanes:
            if time.monotonic() - began > STARTUP_SECONDS or any(
                p.poll() is not None for p in processes
            ):
                raise AssertionError(log.read_text(errors="replace")[-3000:])
            time.sleep(0.2)
        yield
    finally:
        for process in processes:
            _group_stop(process, grace=20)
        out.close()


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory (VmHWM), MB of 2**20 bytes; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def nearest_rank(values: list[float], share: float) -> float:
    """The ``share`` percentile of ``values`` by the nearest-rank method (p99 of a few
    samples is their largest)."""
    ordered = sorted(values)
    rank = max(1, -(-int(share * 100) * len(ordered) // 100))
    return ordered[min(rank, len(ordered)) - 1]
