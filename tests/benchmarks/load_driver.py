"""The load benchmark's client, run as its own process (``python -m
tests.benchmarks.load_driver URL CONNECTIONS SECONDS``): CONNECTIONS threads each GET the
URL one request after another for SECONDS, then one JSON line: requests, requests per
second, p50 and p99 in milliseconds, errors (a status other than the expected one, or no
answer) and the statuses seen.

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
from urllib.parse import urlsplit


def run(url: str, connections: int, seconds: float, expect: int) -> dict[str, object]:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    latencies: list[float] = []
    errors = 0
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client() -> None:
        nonlocal errors
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
                conn.request("GET", path, headers={"Accept": "text/html,application/json"})
                response = conn.getresponse()
                response.read()
                status = response.status
                conn.close()
            except OSError:
                status = 0
            took = time.perf_counter() - started
            with lock:
                latencies.append(took)
                statuses[status] = statuses.get(status, 0) + 1
                if status != expect:
                    errors += 1

    threads = [threading.Thread(target=client) for _ in range(connections)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return {
        "requests": len(ordered),
        "rps": round(len(ordered) / elapsed, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 1) if ordered else None,
        "p99_ms": round(p99 * 1000, 1),
        "errors": errors,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
    }


if __name__ == "__main__":
    target, conns, secs, expected = (
        sys.argv[1],
        int(sys.argv[2]),
        float(sys.argv[3]),
        int(sys.argv[4]),
    )
    print(json.dumps(run(target, conns, secs, expected)))
