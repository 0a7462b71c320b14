"""Settings read from the environment fail loudly on values they cannot parse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import Client

from ratings_site.env import env_bool, env_database, env_email, env_list


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("Yes", True), ("on", True), ("0", False), ("off", False)],
)
def test_env_bool_reads_common_spellings(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("X_FLAG", raw)
    assert env_bool("X_FLAG", default=not expected) is expected


def test_env_bool_rejects_typos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_FLAG", "ture")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env_bool("X_FLAG", default=False)


def test_env_list_rejects_empty_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_HOSTS", "a.org,,b.org")
    with pytest.raises(ImproperlyConfigured, match="X_HOSTS"):
        env_list("X_HOSTS", default=[])
    monkeypatch.setenv("X_HOSTS", "a.org, b.org")
    assert env_list("X_HOSTS", default=[]) == ["a.org", "b.org"]


def test_env_database_parses_postgres_and_rejects_other_schemes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("X_DB", "postgres://u@db.example:5433/ratings")
    config = env_database("X_DB", default="sqlite:///x.db")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "ratings")
    monkeypatch.setenv("X_DB", "mysql://u@db/ratings")
    with pytest.raises(ImproperlyConfigured, match="X_DB"):
        env_database("X_DB", default="sqlite:///x.db")
    monkeypatch.setenv("X_DB", "nonsense")
    with pytest.raises(ImproperlyConfigured, match="X_DB"):
        env_database("X_DB", default="sqlite:///x.db")


def test_kept_connections_run_no_health_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_DB", "postgres://u@db.example:5433/ratings")
    config = env_database("X_DB", default="sqlite:///x.db")
    assert config["CONN_MAX_AGE"] == 60
    assert config["CONN_HEALTH_CHECKS"] is False


@pytest.mark.django_db
def test_a_request_on_a_kept_connection_pays_no_health_check_round_trip(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection as a new request finds it (Django marks its health unchecked when a
    request starts): its first query goes out without a "SELECT 1" first."""
    checks: list[int] = []
    usable = connection.is_usable
    monkeypatch.setattr(connection, "is_usable", lambda: checks.append(1) or usable())
    connection.ensure_connection()
    connection.health_check_done = False
    assert client.get("/clubs/").status_code == 200  # a page that queries
    assert checks == []


_SMTP = "django.core.mail.backends.smtp.EmailBackend"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # A password with reserved characters arrives percent-encoded, and is read back.
        (
            "smtp+tls://mailer%40club.org:p%40ss%3Aw%2Frd@mail.example.org:587",
            ("mail.example.org", 587, "mailer@club.org", "p@ss:w/rd", True, False),
        ),
        ("smtp+ssl://mail.example.org", ("mail.example.org", 465, "", "", False, True)),
        ("smtp://relay.local", ("relay.local", 25, "", "", False, False)),
        ("smtp://u:pw@relay.local:2525", ("relay.local", 2525, "u", "pw", False, False)),
    ],
)
def test_env_email_reads_an_smtp_url(
    monkeypatch: pytest.MonkeyPatch, url: str, expected: tuple[object, ...]
) -> None:
    monkeypatch.setenv("X_EMAIL", url)
    config = env_email("X_EMAIL")
    assert config["EMAIL_BACKEND"] == _SMTP
    names = ("HOST", "PORT", "HOST_USER", "HOST_PASSWORD", "USE_TLS", "USE_SSL")
    assert tuple(config[f"EMAIL_{name}"] for name in names) == expected


@pytest.mark.parametrize(
    "url",
    [
        "smtps://mail.example.org",
        "http://mail.example.org",
        "smtp://",
        "smtp://h:99999",
        "smtp://h:x",
    ],
)
def test_env_email_refuses_what_is_not_an_smtp_url(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("X_EMAIL", url)
    with pytest.raises(ImproperlyConfigured, match="X_EMAIL"):
        env_email("X_EMAIL")


def test_env_email_without_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("X_EMAIL", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_USE_TLS", "EMAIL_USE_SSL"):
        monkeypatch.delenv(name, raising=False)
    # Nothing set: mail is printed (development).
    assert env_email("X_EMAIL") == {
        "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"
    }
    # The usual EMAIL_* variables instead of a URL.
    monkeypatch.setenv("EMAIL_HOST", "relay.local")
    monkeypatch.setenv("EMAIL_PORT", "587")
    monkeypatch.setenv("EMAIL_USE_TLS", "1")
    config = env_email("X_EMAIL")
    assert (config["EMAIL_BACKEND"], config["EMAIL_HOST"], config["EMAIL_PORT"]) == (
        _SMTP,
        "relay.local",
        587,
    )
    assert (config["EMAIL_USE_TLS"], config["EMAIL_USE_SSL"]) == (True, False)
    monkeypatch.setenv("EMAIL_PORT", "submission")
    with pytest.raises(ImproperlyConfigured, match="EMAIL_PORT"):
        env_email("X_EMAIL")


@pytest.mark.slow
def test_email_url_reaches_the_settings() -> None:
    code = (
        "import ratings_site.settings.production as s; "
        "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, s.EMAIL_USE_TLS)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={
            "PATH": "/usr/bin:/bin",
            "SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789",
            "EMAIL_URL": "smtp+tls://mailer:pw@mail.example.org:587",
            "SITE_URL": "https://ratings.example.org",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [_SMTP, "mail.example.org", "587", "mailer", "True"]


def _import_production(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "import ratings_site.settings.production"
    return subprocess.run(
        [sys.executable, "-c", code],
        env={"PATH": "/usr/bin:/bin", "SITE_URL": "https://ratings.example.org", **env},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_production_settings_refuse_the_development_key() -> None:
    result = _import_production({})
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.slow
def test_production_settings_refuse_debug() -> None:
    result = _import_production(
        {"SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789", "DEBUG": "1"}
    )
    assert result.returncode != 0
    assert "DEBUG" in result.stderr


@pytest.mark.slow
def test_production_settings_load_with_a_real_key() -> None:
    result = _import_production({"SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789"})
    assert result.returncode == 0, result.stderr


def test_database_pool_switches_on_psycopgs_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_DB", "postgres://u@db.example.org:5432/ratings")
    plain = env_database("X_DB", default="sqlite:///x.db")
    assert "pool" not in dict(plain.get("OPTIONS") or {})  # type: ignore[call-overload]
    monkeypatch.setenv("DATABASE_POOL", "1")
    monkeypatch.setenv("DATABASE_POOL_MAX", "8")
    pooled = env_database("X_DB", default="sqlite:///x.db")
    assert pooled["OPTIONS"] == {"pool": {"min_size": 1, "max_size": 8}}
    assert pooled["CONN_MAX_AGE"] == 0  # Django refuses persistent connections with a pool


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.slow
def test_a_pooled_process_serves_from_the_pool() -> None:
    """A real process with DATABASE_POOL=1 on PostgreSQL (the test database): its
    connection comes from a pool."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the pool is psycopg's, for PostgreSQL connections only")
    s = connection.settings_dict
    url = f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    code = (
        "from django.db import connection; "
        "from django.test import Client; "
        "print(Client().get('/healthz').status_code, type(connection.pool).__name__)"
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "DATABASE_URL": url, "DATABASE_POOL": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split()[-2:] == ["200", "ConnectionPool"], done.stdout + done.stderr


@pytest.mark.slow
def test_production_settings_refuse_to_start_without_the_sites_address() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import ratings_site.settings.production"],
        env={
            "PATH": "/usr/bin:/bin",
            "SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "SITE_URL must be set" in result.stderr
