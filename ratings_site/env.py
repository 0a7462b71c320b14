"""Typed readers for settings that come from the environment.

Each reader fails loudly (ImproperlyConfigured naming the variable) on a value it cannot
parse: a typo such as ``DEBUG=ture`` must stop the process, not silently mean False.
"""

from __future__ import annotations

import os

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
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=True)
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
        # read while a job writes, and a writer waits up to 20 s for the other one.
        config["OPTIONS"] = {"timeout": 20, "init_command": "PRAGMA journal_mode=WAL"}
    return dict(config)


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None
