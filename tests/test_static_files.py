"""Production's static files: collectstatic with the production storage writes hashed,
compressed files and the manifest; once it exists the site links the hashed names, which
WhiteNoise serves with a long cache lifetime; before it, the plain names (no 500).

(The same was tried from a clean clone with ``make prod`` and curl: docs/tasks/rating-officers-month.md
names the settings.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.test import Client, override_settings

from ratings_site.static_storage import StaticStorage

# collectstatic copies and compresses every static file of every app (4-5 s each on two
# cores, a sixth of the fast tier), and the settings' check starts an interpreter.
pytestmark = pytest.mark.slow

PRODUCTION = {"staticfiles": {"BACKEND": "ratings_site.static_storage.StaticStorage"}}


def test_production_settings_choose_the_hashing_storage_before_any_collectstatic() -> None:
    code = "import ratings_site.settings.production as s; print(s.STORAGES['staticfiles'])"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={
            "PATH": "/usr/bin:/bin",
            "SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123",
            "SITE_URL": "https://ratings.example.org",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "ratings_site.static_storage.StaticStorage" in result.stdout


def test_collectstatic_writes_hashed_compressed_files_and_the_manifest(
    tmp_path: Path, settings: Any
) -> None:
    before = StaticStorage(location=str(tmp_path))
    # Not collected: the plain name, which WhiteNoise finds in the apps.
    assert before.url("favicon.svg") == "/static/favicon.svg"

    with override_settings(STATIC_ROOT=str(tmp_path), STORAGES={**settings.STORAGES, **PRODUCTION}):
        call_command("collectstatic", "--noinput", verbosity=0)
    assert (tmp_path / "staticfiles.json").exists()
    hashed = StaticStorage(location=str(tmp_path)).url("favicon.svg")
    assert hashed != "/static/favicon.svg"
    assert hashed.startswith("/static/favicon.")
    assert hashed.endswith(".svg")
    name = hashed.removeprefix("/static/")
    assert (tmp_path / name).exists()
    assert (tmp_path / f"{name}.gz").exists()


def test_whitenoise_serves_a_hashed_file_for_a_year(tmp_path: Path, settings: Any) -> None:
    with override_settings(STATIC_ROOT=str(tmp_path), STORAGES={**settings.STORAGES, **PRODUCTION}):
        call_command("collectstatic", "--noinput", verbosity=0)
    with override_settings(
        STATIC_ROOT=str(tmp_path),
        STORAGES={**settings.STORAGES, **PRODUCTION},
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
        DEBUG=False,
    ):
        # The storage is made again with these settings (Django's setting_changed does
        # that for STORAGES), and so is WhiteNoise with the new client's handler.
        hashed = staticfiles_storage.url("favicon.svg")
        assert hashed != "/static/favicon.svg"
        answer = Client().get(hashed, HTTP_ACCEPT_ENCODING="gzip")
    assert answer.status_code == 200
    assert "max-age=315360000" in answer["Cache-Control"]
    assert "immutable" in answer["Cache-Control"]
    assert answer.get("Content-Encoding") == "gzip"
