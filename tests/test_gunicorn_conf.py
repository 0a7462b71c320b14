"""deploy/gunicorn.conf.py: the settings gunicorn reads, run as gunicorn runs them."""

from __future__ import annotations

import gc
import runpy
from pathlib import Path

CONF = Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"


def test_a_worker_freezes_the_loaded_site_out_of_the_collectors_reach() -> None:
    settings = runpy.run_path(str(CONF))
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    try:
        settings["post_worker_init"](object())
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_workers_outlive_the_longest_wait_and_restart_apart() -> None:
    settings = runpy.run_path(str(CONF))
    assert settings["timeout"] > 30  # the API's longest ?wait=
    assert settings["max_requests_jitter"] >= settings["max_requests"] // 4
