"""How the benchmarks print their figures, and what their memory figure means.

Every benchmark record goes through :func:`emit`: one JSON object on its own line of
standard output (``pytest -s`` shows it), flushed at once, and appended to the JSON-lines
file named by the ``BENCH_OUTPUT`` environment variable when that is set, so runs can be
collected and compared without scraping pytest's output.

``peak_mb`` is in MB of 2**20 bytes, never negative, and each record says what it covers
in ``peak_scope``:

- ``"work"``: the peak of Python allocations (tracemalloc) during one untimed repeat of
  the timed work, above what was allocated when it began. Used where a repeat is cheap
  and has no side effects (parsers, the engine, one page request); tracing is kept out of
  the timed run because it slows Python code several times over.
- ``"process"``: the process's peak resident memory so far (``getrusage`` maxrss): an upper
  bound that includes the interpreter, Django and earlier benchmarks of the same session;
  run one benchmark alone (``-k``) for its own figure. Used where the work writes to the
  database (imports, the period close on SQLite).
- ``"phase"``: the period close on PostgreSQL runs each phase in a forked child, whose
  maxrss is that phase's own peak (see ``bench_close``).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

MB = 1024 * 1024

# The pytest test that printed last: its first record starts a fresh line, because pytest
# writes the previous test's progress dot without a newline.
_last_test: str | None = None


def emit(record: dict[str, Any]) -> None:
    """Print ``record`` as one JSON line (and append it to ``$BENCH_OUTPUT`` if set)."""
    global _last_test
    line = json.dumps(record)
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    lead = "\n" if test != _last_test else ""
    _last_test = test
    sys.stdout.write(f"{lead}{line}\n")
    sys.stdout.flush()
    output = os.environ.get("BENCH_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as file:
            file.write(line + "\n")


def traced_peak_mb(work: Callable[[], object]) -> float:
    """Peak MB of Python allocations while ``work`` runs (``peak_scope`` ``"work"``)."""
    already = tracemalloc.is_tracing()
    if not already:
        tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not already:
            tracemalloc.stop()
    return round(max(0, peak - start) / MB, 3)


def process_peak_mb() -> float:
    """The process's peak resident MB so far (``peak_scope`` ``"process"``)."""
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return round(maxrss / (MB if sys.platform == "darwin" else 1024), 1)


def ratio(seconds: float, baseline_seconds: float) -> float | None:
    """``seconds / baseline_seconds`` to two places; None when the baseline was too fast to time."""
    return round(seconds / baseline_seconds, 2) if baseline_seconds > 0 else None
