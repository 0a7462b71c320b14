"""The rules engine imports no Django: checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Each test starts a fresh interpreter.
pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]

# Every module of the engine, the rating systems (the close's plan) included.
CHECK = (
    "import importlib, pkgutil, sys, players.rating; "
    "[importlib.import_module(m.name) for m in "
    "pkgutil.walk_packages(players.rating.__path__, 'players.rating.')]; "
    "assert 'players.rating.systems.elo_arrays' in sys.modules; "
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
    # import players.rating, and the models the systems' registry, and should not pay for
    # numpy (the registry loads the array paths on a close's first use).
    probe = "import players.rating, players.rating.systems, sys; assert 'numpy' not in sys.modules"
    completed = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
