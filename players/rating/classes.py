"""Rating classes (fide-rules.md section 8, seed 004) and the list floor (section 6)."""

from __future__ import annotations

# Lowest rating of each band, highest first. Rough bands, not titles (titles need norms).
CLASS_BANDS: tuple[tuple[int, str], ...] = (
    (2700, "Super-grandmaster"),
    (2500, "Grandmaster"),
    (2400, "International Master"),
    (2300, "FIDE Master"),
    (2200, "Candidate Master"),
    (2000, "Expert"),
    (1800, "Class A"),
    (1600, "Class B"),
    (1400, "Class C"),
    (1200, "Class D"),
    (1000, "Novice"),
)
BELOW_ALL = "Beginner"

# FIDE publishes only ratings of at least this (fide-rules.md section 6; 7.1.4 for a first
# rating).
FIDE_FLOOR = 1400


def rating_class(rating: int) -> str:
    """The rough class band of a rating (section 8 of the rules reference; not a FIDE title)."""
    for lowest, name in CLASS_BANDS:
        if rating >= lowest:
            return name
    return BELOW_ALL


def apply_floor(rating: int, floor: int | None) -> int | None:
    """FIDE publishes only ratings of at least 1400 (fide-rules.md section 6): below -> None.

    `floor` is the list's (1400 for a FIDE-like list; None publishes every rating). A result
    of None means the player drops off the list and is shown unrated from then on.
    """
    if floor is not None and rating < floor:
        return None
    return rating
