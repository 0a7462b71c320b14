"""The load benchmark's client, run as its own process (``python -m
tests.benchmarks.load_driver SPEC``, SPEC a JSON object): ``connections`` threads each GET
the spec's ``targets`` (``{"name", "url", "expect", "headers"}``) one request after
another, each thread taking the targets in turn (a thread starts at its own target), for
``seconds``, or, when ``seconds`` is 0, until a line (or the end) arrives on standard
input. With ``rate`` (requests a second, all threads together) the threads ask on a fixed
schedule instead, each request timed from when it was due (an open loop). Then one JSON
line: per target the requests, requests per second, p50 and p99 in milliseconds, errors
(a status other than the expected one, or no answer) and the statuses seen; with
``"samples": true`` also every request as ``[target index, wall-clock start
(time.time()), seconds taken, ok]``, so the caller can cut the run into windows (before,
during and after a close).

Standard library only (http.client), a new connection per request, as gunicorn's sync
workers close each one.
"""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import threading
import time
from typing import Any
from urllib.parse import urlsplit


def figures(latencies: list[float], seconds: float) -> dict[str, Any]:
    """Requests, requests per second over ``seconds``, p50 and p99 (ms) of ``latencies``."""
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return {
        "requests": len(ordered),
        "rps": round(len(ordered) / seconds, 1) if seconds > 0 else None,
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(p99 * 1000, 1),
    }


def _get(host: str, port: int, path: str, headers: dict[str, str]) -> int:
    try:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        conn.request("GET", path, headers={"Accept": "text/html,application/json", **headers})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status
    except OSError:
        return 0


def run(spec: dict[str, Any]) -> dict[str, Any]:
    targets = spec["targets"]
    parsed = []
    for target in targets:
        parts = urlsplit(target["url"])
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        parsed.append((parts.hostname or "127.0.0.1", parts.port or 80, path))
    samples: list[tuple[int, float, float, bool]] = []
    statuses: list[dict[int, int]] = [{} for _ in targets]
    lock = threading.Lock()
    stop = threading.Event()

    connections = int(spec["connections"])
    # Open loop: ``rate`` requests a second in all, each thread on its own schedule. A
    # request is timed from when it was due, so a server that falls behind shows in the
    # latencies instead of slowing the visitors down (the closed loop's blind spot).
    rate = float(spec.get("rate") or 0)
    seconds = float(spec["seconds"] or 0)
    epoch = 0.0  # set as the threads start

    def client(offset: int) -> None:
        turn = offset
        sent = 0
        while not stop.is_set():
            index = turn % len(targets)
            turn += 1
            host, port, path = parsed[index]
            started = time.perf_counter()
            if rate:
                due = epoch + (offset + sent * connections) / rate
                sent += 1
                # A timed run asks for what falls due inside it, however late the main
                # thread wakes to stop it (a busy machine oversleeps).
                if seconds and due >= epoch + seconds:
                    return
                if due > started and stop.wait(due - started):
                    return
                started = due
            wall = time.time() - (time.perf_counter() - started)
            status = _get(host, port, path, targets[index].get("headers") or {})
            took = time.perf_counter() - started
            with lock:
                samples.append((index, wall, took, status == targets[index]["expect"]))
                statuses[index][status] = statuses[index].get(status, 0) + 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    began = time.monotonic()
    epoch = time.perf_counter()
    for thread in threads:
        thread.start()
    if seconds:
        time.sleep(seconds)
    else:
        sys.stdin.readline()
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    result: dict[str, Any] = {"elapsed": round(elapsed, 2), "targets": {}}
    for index, target in enumerate(targets):
        mine = [s for s in samples if s[0] == index]
        result["targets"][target["name"]] = {
            **figures([s[2] for s in mine], elapsed),
            "errors": sum(1 for s in mine if not s[3]),
            "statuses": {str(k): v for k, v in sorted(statuses[index].items())},
        }
    if spec.get("samples"):
        result["samples"] = [[i, round(w, 4), round(t, 5), ok] for i, w, t, ok in samples]
    return result


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
