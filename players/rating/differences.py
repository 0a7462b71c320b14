"""Which rating difference counts, and which games are not rated at all (FIDE 8.3.1)."""

from __future__ import annotations

from players.rating.types import CountedDifference, ListKind, RatingRules

CAP = 400
# Standard list since 1 October 2025: players rated this much or more use the full difference.
STANDARD_UNCAPPED_FROM = 2650
# Rapid and blitz since 1 December 2024: games this far apart with a player above 2600 are
# not rated.
FAST_UNRATED_GAP = 600
FAST_UNRATED_ABOVE = 2600

NOTE_FAST_GAP = "rapid/blitz: 600+ points apart with a player above 2600"


def player_is_capped(own: int, rules: RatingRules) -> bool:
    """FIDE 8.3.1: does the 400-point rule apply to a player with this own rating?"""
    if not rules.apply_400_rule:
        return False
    return rules.list_kind is not ListKind.STANDARD or own < STANDARD_UNCAPPED_FROM


def counted_difference(own: int, opponent: int, *, rules: RatingRules) -> CountedDifference:
    """FIDE 8.3.1, the 400-point rule, decided per player by the player's own rating.

    Standard list: a difference beyond +/-400 counts as +/-400 for a player rated below 2650;
    2650 and above use the full difference. Rapid and blitz: the cap applies to everyone.
    """
    raw = own - opponent
    if player_is_capped(own, rules) and (raw > CAP or raw < -CAP):
        return CountedDifference(raw=raw, counted=CAP if raw > 0 else -CAP, capped=True)
    return CountedDifference(raw=raw, counted=raw, capped=False)


def not_rated_reason(own: int, opponent: int, *, rules: RatingRules) -> str | None:
    """FIDE Rapid and Blitz Rating Regulations, rule in force from 1 December 2024.

    On the rapid and blitz lists a game between players 600 or more points apart is not
    rated if either is rated above 2600 (own > 2600 or opponent > 2600). Returns the reason,
    or None when the game is rated.
    """
    if rules.list_kind is ListKind.STANDARD:
        return None
    if abs(own - opponent) >= FAST_UNRATED_GAP and (
        own > FAST_UNRATED_ABOVE or opponent > FAST_UNRATED_ABOVE
    ):
        return NOTE_FAST_GAP
    return None
