"""Age categories of a rating list, counted by birth year as FIDE counts them.

FIDE's youth and senior categories go by the year of birth, not the birthday: a player is
"under 18" in a year when they turn at most 18 in it (the World Youth U18 of 2026 takes
players born in 2008 or later; the same count as the junior K of 8.3.3, "until the end of
the year of the 18th birthday"), and "50+" when they turn at least 50 in it (the World
Seniors 50+ of 2026 takes players born in 1976 or earlier).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgeCategory:
    code: str
    label: str
    #: "under": at most ``age`` in the year; "over": at least ``age`` in the year.
    kind: str
    age: int

    def birth_years(self, year: int) -> tuple[int | None, int | None]:
        """The birth years (earliest, latest; None: open) that fall in the category in
        ``year``."""
        if self.kind == "under":
            return (year - self.age, None)
        return (None, year - self.age)

    def contains(self, birth_year: int | None, year: int) -> bool:
        if birth_year is None:
            return False
        earliest, latest = self.birth_years(year)
        return (earliest is None or birth_year >= earliest) and (
            latest is None or birth_year <= latest
        )


AGE_CATEGORIES: tuple[AgeCategory, ...] = (
    *(AgeCategory(f"u{age}", f"Under {age}", "under", age) for age in (20, 18, 16, 14, 12, 10)),
    AgeCategory("s50", "Seniors 50+", "over", 50),
    AgeCategory("s65", "Seniors 65+", "over", 65),
)
BY_CODE = {category.code: category for category in AGE_CATEGORIES}


def age_category(code: str) -> AgeCategory:
    """The category named ``code`` (``u18``, ``s50``...); KeyError when there is none."""
    return BY_CODE[code]
