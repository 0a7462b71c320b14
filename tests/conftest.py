"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest
from django.db import connection


@pytest.fixture
def postgres_only() -> None:
    """Row locks and concurrent transactions need PostgreSQL; SQLite locks the whole file."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite has no row locks (SELECT ... FOR UPDATE)")
