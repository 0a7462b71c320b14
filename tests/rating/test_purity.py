"""The rules engine imports no Django: checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

CHECK = (
    "import players.rating, players.rating.bulk, sys; "
    "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
)


def test_rules_engine_imports_no_django() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr


def test_the_check_would_catch_django() -> None:
    # Proves the probe can fail: importing django in the same way trips the assertion.
    completed = subprocess.run(
        [sys.executable, "-c", "import django.conf; " + CHECK],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode != 0


def test_engine_package_leaves_numpy_to_the_close() -> None:
    # players.rating.bulk (numpy) is imported on its own: the calculator and the pages
    # import players.rating and should not pay for numpy.
    probe = "import players.rating, sys; assert 'numpy' not in sys.modules"
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
