"""Rating classes (fide-rules.md section 8, seed 004) and the list floor (section 6)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RatingClass:
    """A rating band (seed 004's "What the number means"): named by its numbers, never by a
    title's name, because a title needs norms as well as a rating (section 8 of the rules
    reference); the description is the seed's."""

    lowest: int
    highest: int | None  # None: the top band has no upper end
    description: str

    @property
    def band(self) -> str:
        """``"2400-2499"``; the top band ``"2700+"``."""
        if self.highest is None:
            return f"{self.lowest}+"
        return f"{self.lowest}-{self.highest}"


# Highest first, as the seed lists them.
CLASSES: tuple[RatingClass, ...] = (
    RatingClass(2700, None, "Not an official title. About forty players in the world are here at any time."),
    RatingClass(2500, 2699, "The GM rating requirement. Norms are needed as well as the number."),
    RatingClass(2400, 2499, "The IM rating requirement, and where the elite K-factor of 10 kicks in for good."),
    RatingClass(2300, 2399, "The FM rating requirement. No norms needed: the rating alone earns it."),
    RatingClass(2200, 2299, "The usual threshold for the CM title, and where \"master\" starts being used."),
    RatingClass(2000, 2199, "Beats most club players consistently. Preparation begins to matter."),
    RatingClass(1800, 1999, "Strong club player. Punishes an inaccuracy rather than waiting for a blunder."),
    RatingClass(1600, 1799, "Plans rather than moves. Endgames start being won on technique."),
    RatingClass(1400, 1599, "Opening principles are habit rather than rules being followed."),
    RatingClass(1200, 1399, "Basic tactics (forks, pins, back-rank mates) are seen most of the time."),
    RatingClass(1000, 1199, "Sees one-move threats reliably and has stopped losing pieces for nothing."),
    RatingClass(0, 999, "Knows the moves. Games are decided by whoever hangs less material."),
)  # fmt: skip

# FIDE publishes only ratings of at least this (fide-rules.md section 6; 7.1.4 for a first
# rating).
FIDE_FLOOR = 1400


def rating_band(rating: int) -> RatingClass:
    """The rating's band (section 8 of the rules reference, seed 004): not a FIDE title."""
    for band in CLASSES:
        if rating >= band.lowest:
            return band
    return CLASSES[-1]


def rating_class(rating: int) -> str:
    """The band's name, ``"2400-2499"``: numbers, never a title's name."""
    return rating_band(rating).band


def apply_floor(rating: int, floor: int | None) -> int | None:
    """FIDE publishes only ratings of at least 1400 (fide-rules.md section 6): below -> None.

    `floor` is the list's (1400 for a FIDE-like list; None publishes every rating). A result
    of None means the player drops off the list and is shown unrated from then on.
    """
    if floor is not None and rating < floor:
        return None
    return rating
