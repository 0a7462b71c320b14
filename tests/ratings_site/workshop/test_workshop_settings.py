"""The workshop (demo loader, benchmark commands) is there in development and tests, and
production's settings do not load it: its commands do not exist there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[3]
WORKSHOP_COMMANDS = {"load_demo", "bench_close", "bench_replay"}


def test_development_settings_have_the_workshop() -> None:
    assert apps.is_installed("ratings_site.workshop")
    commands = get_commands()
    assert {name: commands[name] for name in WORKSHOP_COMMANDS} == dict.fromkeys(
        WORKSHOP_COMMANDS, "ratings_site.workshop"
    )


@pytest.mark.slow
def test_production_settings_leave_the_workshop_out() -> None:
    code = (
        "import django; django.setup(); "
        "from django.apps import apps; from django.core.management import get_commands; "
        "print(apps.is_installed('ratings_site.workshop'), "
        "sorted(set(get_commands()) & {'load_demo', 'bench_close', 'bench_replay'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "ratings_site.settings.production",
            "SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789",
            "ALLOWED_HOSTS": "ratings.example.org",
            "SITE_URL": "https://ratings.example.org",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "[]"]
