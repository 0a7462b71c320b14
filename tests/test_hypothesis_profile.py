"""Hypothesis runs without a per-example deadline (the profile loaded in tests/conftest.py):
a slow shared machine must not fail a property by timing."""

from __future__ import annotations

from hypothesis import settings


def test_no_deadline_by_default_or_in_settings_that_leave_it_out() -> None:
    assert settings.default.deadline is None
    assert settings(max_examples=5).deadline is None
