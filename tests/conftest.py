"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest
from django.db import connection
from hypothesis import settings

# No per-example deadline anywhere: on a shared or slow machine an example that takes longer
# than Hypothesis's default 200 ms is not a failure. Tests still set their own
# max_examples; they inherit this profile for everything they leave out.
settings.register_profile("ratings", deadline=None)
settings.load_profile("ratings")


def pytest_configure(config: pytest.Config) -> None:
    # The default cache is the database's (throttle counts shared by every worker); the
    # suite counts in memory, so tests without the database (the calculator's API) can be
    # throttled too. tests/accounts/test_doors.py checks the database cache itself.
    from django.conf import settings as django_settings

    django_settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    }


@pytest.fixture
def postgres_only() -> None:
    """Row locks and concurrent transactions need PostgreSQL; SQLite locks the whole file."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks (SELECT ... FOR UPDATE)")
