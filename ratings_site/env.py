"""Typed readers for settings that come from the environment.

Each reader fails loudly (ImproperlyConfigured naming the variable) on a value it cannot
parse: a typo such as ``DEBUG=ture`` must stop the process, not silently mean False.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off."
    )


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    items = [item.strip() for item in raw.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(
            f"{name}={raw!r} has an empty entry; separate values with commas."
        )
    return items


def env_database(name: str, *, default: str) -> dict[str, object]:
    raw = os.environ.get(name) or default
    try:
        # No health check: Django's asks the server "SELECT 1" before the first query of
        # every request on a kept connection, a round trip that was a fifth of a request's
        # time under load (cached pages read the database cache). A connection that fails
        # mid-request is closed at its end (Django closes one that had errors and is not
        # usable), and one the server dropped while idle is at most CONN_MAX_AGE old: the
        # price is one failed request after a database restart, not one per request.
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=False)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a database URL: {exc}") from exc
    engine = str(config.get("ENGINE", ""))
    if engine not in {"django.db.backends.sqlite3", "django.db.backends.postgresql"}:
        raise ImproperlyConfigured(
            f"{name}={raw!r}: only sqlite:// and postgres:// URLs are supported."
        )
    if engine == "django.db.backends.postgresql" and env_bool("DATABASE_POOL", default=False):
        # psycopg's connection pool (Django's OPTIONS["pool"]): each process keeps up to
        # DATABASE_POOL_MAX connections open and lends them to requests; replaces
        # persistent connections, which Django refuses beside a pool.
        config["CONN_MAX_AGE"] = 0
        config["CONN_HEALTH_CHECKS"] = False
        config["OPTIONS"] = {
            **dict(config.get("OPTIONS") or {}),
            "pool": {"min_size": 1, "max_size": int(env_float("DATABASE_POOL_MAX", 4))},
        }
    if engine == "django.db.backends.sqlite3":
        # SQLite connections are cheap; persistent ones only keep file locks alive longer.
        config["CONN_MAX_AGE"] = 0
        config["CONN_HEALTH_CHECKS"] = False
        # The site and its job worker write the same file: write-ahead logging lets pages
        # read while a job writes, and a writer waits up to 20 s for the other one. A
        # transaction takes the write lock when it begins (IMMEDIATE): one that read first
        # and wrote later could not wait for it, and failed at once with "database is
        # locked" when the worker had written in between (a request beside a webhook
        # fan-out did).
        config["OPTIONS"] = {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL",
            "transaction_mode": "IMMEDIATE",
        }
        # Django's backend, whose table rebuilds keep the triggers that name the table
        # (ratings_site/sqlite_backend/base.py).
        config["ENGINE"] = "ratings_site.sqlite_backend"
        # Tests keep Django's in-memory database (one per pytest-xdist process).
        # pytest-django knows an SQLite test database only by Django's own ENGINE name:
        # with ours it gave every process a file named after the path, "test_/.../db.sqlite3_gw1",
        # which SQLite cannot open. Named, ":memory:" is left as it is.
        config["TEST"] = {**dict(config.get("TEST") or {}), "NAME": ":memory:"}
    return dict(config)


_EMAIL_SCHEMES = {"smtp": (False, False), "smtp+tls": (True, False), "smtp+ssl": (False, True)}


def env_email(name: str) -> dict[str, object]:
    """Django's EMAIL_* settings from a URL such as ``smtp+tls://user:pw@host:587`` (or
    ``file:///a/folder``: the file backend, one file per mail); ``EMAIL_BACKEND`` (with
    ``EMAIL_FILE_PATH``) names a backend outright; without either, the usual EMAIL_HOST/EMAIL_PORT/... variables, and without those
    the console backend (mail is printed, as in development)."""
    raw = os.environ.get(name)
    backend = os.environ.get("EMAIL_BACKEND")
    if backend and not raw:
        # Named outright (the file backend in tests and staging: every mail one file).
        return {"EMAIL_BACKEND": backend, "EMAIL_FILE_PATH": os.environ.get("EMAIL_FILE_PATH")}
    if raw and raw.startswith("file://"):
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": unquote(urlsplit(raw).path),
        }
    if not raw:
        host = os.environ.get("EMAIL_HOST")
        if not host:
            return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
        port = os.environ.get("EMAIL_PORT", "25")
        if not port.isdigit():
            raise ImproperlyConfigured(f"EMAIL_PORT={port!r} is not a port number.")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": host,
            "EMAIL_PORT": int(port),
            "EMAIL_HOST_USER": os.environ.get("EMAIL_HOST_USER", ""),
            "EMAIL_HOST_PASSWORD": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "EMAIL_USE_TLS": env_bool("EMAIL_USE_TLS", default=False),
            "EMAIL_USE_SSL": env_bool("EMAIL_USE_SSL", default=False),
        }
    parts = urlsplit(raw)
    if parts.scheme not in _EMAIL_SCHEMES or not parts.hostname:
        raise ImproperlyConfigured(
            f"{name}: use smtp://, smtp+tls:// or smtp+ssl:// with a host "
            "(user:password@host:port)."
        )
    try:
        port_number = parts.port or (465 if parts.scheme == "smtp+ssl" else 25)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} has a bad port: {exc}") from exc
    tls, ssl = _EMAIL_SCHEMES[parts.scheme]
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port_number,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls,
        "EMAIL_USE_SSL": ssl,
    }


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if not raw.strip().isdigit():
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.")
    return int(raw)


CACHE_TABLE = "ratings_cache"


def env_cache(name: str) -> dict[str, object]:
    """The default cache: Redis from ``redis://``/``rediss://`` URLs, else the database
    (table ``CACHE_TABLE``)."""
    raw = os.environ.get(name)
    if not raw:
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": CACHE_TABLE,
            # Django's default of 300 entries would keep culling the public views'
            # cache (a club's list pages alone can pass it).
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        }
    if urlsplit(raw).scheme not in {"redis", "rediss"}:
        raise ImproperlyConfigured(
            f"{name}={raw!r}: only redis:// and rediss:// URLs are supported."
        )
    return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": raw}


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name, default)
    if raw not in choices:
        raise ImproperlyConfigured(f"{name}={raw!r}: use one of {', '.join(choices)}.")
    return raw


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None
