"""Age categories by birth year (FIDE's count: the age reached in the year)."""

from __future__ import annotations

import pytest

from players.rating.categories import AGE_CATEGORIES, age_category
from players.rating.k_factor import junior_age


@pytest.mark.parametrize(
    ("code", "birth_year", "inside"),
    [
        # 2026: U18 is born 2008 or later (turns at most 18 in 2026).
        ("u18", 2008, True),
        ("u18", 2007, False),
        ("u10", 2016, True),
        ("u10", 2015, False),
        ("u20", 2006, True),
        ("u20", 2005, False),
        # Seniors: 50+ born 1976 or earlier; 65+ born 1961 or earlier.
        ("s50", 1976, True),
        ("s50", 1977, False),
        ("s65", 1961, True),
        ("s65", 1962, False),
        ("u18", None, False),
    ],
)
def test_categories_in_2026(code: str, birth_year: int | None, inside: bool) -> None:
    assert age_category(code).contains(birth_year, 2026) is inside


def test_under_18_is_the_junior_k_age() -> None:
    u18 = age_category("u18")
    for birth_year in range(1990, 2020):
        assert u18.contains(birth_year, 2026) == junior_age(birth_year, period_year=2026)


def test_codes_are_unique_and_unknown_codes_raise() -> None:
    assert len({c.code for c in AGE_CATEGORIES}) == len(AGE_CATEGORIES)
    with pytest.raises(KeyError):
        age_category("u7")
