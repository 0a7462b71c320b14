"""Inputs shared by the Elo plan's tests without a database: a FIDE standard list's
settings and a player's start of period."""

from __future__ import annotations

from typing import Any

from players.rating import ExpectedMethod, ListKind
from players.rating.period import ListSettings, PlayerStart


def fide_standard(*, floor: int | None, fide_rules: str | None = None) -> ListSettings:
    """A FIDE standard list: FIDE's table of expected scores, the 400-point rule, K by
    FIDE 8.3.3, no March 2024 adjustment; ``fide_rules`` as ListSettings takes it."""
    return ListSettings(
        system="fide",
        kind=ListKind.STANDARD,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=True,
        fixed_k=None,
        floor=floor,
        adjust_march_2024=False,
        fide_rules=fide_rules,
    )


def start(
    rating: int | None,
    *,
    games: int = 50,
    born: int = 1980,
    pool: list[dict[str, Any]] | None = None,
) -> PlayerStart:
    """A player at the start of a period, with ``games`` rated games before it; 2400 is
    reached when the rating is 2400 or more. No K override."""
    return PlayerStart(
        rating, games, rating is not None and rating >= 2400, pool or [], born, None, None
    )
