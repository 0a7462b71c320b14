"""K factor selection, the 700 rule, and why K changed (FIDE 8.3.3)."""

from __future__ import annotations

from players.rating.kinds import ListKind
from players.rating.types import KChangeReason, KFactor, KReason, PlayerState

K_ELITE = 10
K_NEW = 40
K_STANDARD = 20
ELITE_FROM = 2400
JUNIOR_MAX_AGE = 18  # junior until the end of the calendar year of the 18th birthday
JUNIOR_BELOW = 2300
NEW_PLAYER_GAMES = 30
PERIOD_CAP = 700
FIXED_K_MIN = 1
FIXED_K_MAX = 100


def junior_age(birth_year: int | None, *, period_year: int, max_age: int = JUNIOR_MAX_AGE) -> bool:
    """FIDE 8.3.3: of junior age until the end of the year of the 18th birthday
    (``max_age``: an earlier rule's limit, ``fide_rules``)."""
    return birth_year is not None and period_year - birth_year <= max_age


def is_junior(state: PlayerState, *, period_year: int, max_age: int = JUNIOR_MAX_AGE) -> bool:
    """FIDE 8.3.3: junior K applies until the end of the year of the 18th birthday, under 2300.

    An unrated junior counts as under 2300.
    """
    if not junior_age(state.birth_year, period_year=period_year, max_age=max_age):
        return False
    return state.rating is None or state.rating < JUNIOR_BELOW


def has_reached_2400(reached_before: bool, rating: int | None) -> bool:
    """FIDE 8.3.3 rule 1: K 10 for good once a published rating has reached 2400, so a
    player who had reached it keeps it, and a rating of 2400 or more reaches it."""
    return reached_before or (rating is not None and rating >= ELITE_FROM)


def counted_state(
    state: PlayerState, *, list_kind: ListKind, standard_rating: int | None
) -> PlayerState:
    """FIDE Rapid and Blitz Rating Regulations: the state the K rules of 8.3.3 see.

    On a rapid or blitz list (a kind that ``counts_standard``) a player unrated there who
    holds a standard rating in force uses it and counts as rated: the four rules then read
    that rating (rule 1: a published rating of 2400 or more; rule 2: junior only under
    2300) with the rated games the player has on this list (rule 3: 30 or more completed
    means no K 40 for a new player). Anyone else (rated on this list, no standard rating,
    the standard list itself): the state unchanged.
    """
    if state.rating is not None or standard_rating is None or not list_kind.counts_standard:
        return state
    return PlayerState(
        standard_rating,
        state.rated_games,
        state.birth_year,
        has_reached_2400(state.reached_2400, standard_rating),
    )


def k_factor_for(
    state: PlayerState,
    *,
    period_year: int,
    list_kind: ListKind,
    standard_rating: int | None = None,
    junior_max_age: int = JUNIOR_MAX_AGE,
) -> KFactor:
    """FIDE 8.3.3: K for a whole period from the player's state at its start.

    Order (reproduces FIDE's published K): 10 once a published rating has reached 2400
    (forever); 40 for a junior under 2300; 40 until 30 rated games are completed; else 20.
    An unrated player gets JUNIOR when the junior rule applies, otherwise NEW_PLAYER (40):
    an unrated player has by definition not completed a rated record on this list.
    Rapid and blitz use the same four rules (Rapid and Blitz Rating Regulations 2024);
    there, ``standard_rating`` is the standard rating in force at the period's start, which
    a player unrated on the list counts as rated with (``counted_state``).
    """
    state = counted_state(state, list_kind=list_kind, standard_rating=standard_rating)
    if state.reached_2400:
        return KFactor(K_ELITE, KReason.REACHED_2400)
    if is_junior(state, period_year=period_year, max_age=junior_max_age):
        return KFactor(K_NEW, KReason.JUNIOR)
    if state.rating is None or state.rated_games < NEW_PLAYER_GAMES:
        return KFactor(K_NEW, KReason.NEW_PLAYER)
    return KFactor(K_STANDARD, KReason.STANDARD)


def cap_k(k: int, games: int) -> int:
    """FIDE 8.3.3: if K x n > 700 for the n rated games of the period, K = floor(700 / n)."""
    if games < 0:
        raise ValueError(f"games must not be negative (got {games})")
    if games and k * games > PERIOD_CAP:
        return PERIOD_CAP // games
    return k


def fixed_k(value: int) -> KFactor:
    """A K fixed by the list or a calculator, 1..100 (outside FIDE 8.3.3: clubs' own Elo lists)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"K must be a whole number from 1 to 100 (got {value!r})")
    if not FIXED_K_MIN <= value <= FIXED_K_MAX:
        raise ValueError(f"K must be from {FIXED_K_MIN} to {FIXED_K_MAX} (got {value})")
    return KFactor(value, KReason.FIXED)


# When a rules-based K replaces another rules-based K, the new reason says what happened.
_RULE_TRANSITIONS: dict[tuple[KReason, KReason], KChangeReason] = {
    (KReason.NEW_PLAYER, KReason.STANDARD): KChangeReason.GAMES_30,
    (KReason.JUNIOR, KReason.STANDARD): KChangeReason.TURNED_19,
    (KReason.JUNIOR, KReason.NEW_PLAYER): KChangeReason.TURNED_19,
    (KReason.NEW_PLAYER, KReason.JUNIOR): KChangeReason.JUNIOR,
    (KReason.STANDARD, KReason.JUNIOR): KChangeReason.JUNIOR,
    (KReason.STANDARD, KReason.NEW_PLAYER): KChangeReason.NEW_PLAYER,
}

_FIRST_K: dict[KReason, KChangeReason] = {
    KReason.NEW_PLAYER: KChangeReason.NEW_PLAYER,
    KReason.JUNIOR: KChangeReason.JUNIOR,
    KReason.REACHED_2400: KChangeReason.REACHED_2400,
    KReason.STANDARD: KChangeReason.RULES,
    KReason.FIXED: KChangeReason.FIXED,
    KReason.MANUAL: KChangeReason.MANUAL,
}

_OVERRIDES = (KReason.FIXED, KReason.MANUAL)


def k_change_reason(
    old: KFactor | None, new: KFactor, *, still_junior_age: bool = False
) -> KChangeReason | None:
    """Why K went from `old` to `new` (FIDE 8.3.3 transitions); None when nothing changed.

    - no previous K: the reason the first K applies (STANDARD on arrival -> RULES);
    - the new K is manual or fixed: MANUAL or FIXED;
    - the new K is the 2400 K: REACHED_2400 (also when it replaces an override);
    - NEW_PLAYER -> STANDARD: GAMES_30;
    - JUNIOR -> anything else under the rules: JUNIOR_2300 when the player is
      ``still_junior_age`` in the new K's year (so the rating reached 2300), else TURNED_19;
    - back from an override to the rules, or anything else: RULES.
    """
    if old is None:
        return _FIRST_K[new.reason]
    if old == new:
        return None
    if new.reason is KReason.MANUAL:
        return KChangeReason.MANUAL
    if new.reason is KReason.FIXED:
        return KChangeReason.FIXED
    if new.reason is KReason.REACHED_2400:
        return KChangeReason.REACHED_2400
    if old.reason in _OVERRIDES:
        return KChangeReason.RULES
    if old.reason is KReason.JUNIOR and still_junior_age:
        return KChangeReason.JUNIOR_2300
    return _RULE_TRANSITIONS.get((old.reason, new.reason), KChangeReason.RULES)


def list_k(
    state: PlayerState,
    *,
    list_fixed_k: int | None,
    k_override: int | None,
    period_year: int,
    list_kind: ListKind,
    standard_rating: int | None = None,
    junior_max_age: int = JUNIOR_MAX_AGE,
) -> KFactor:
    """The K a player has for a period on a list: the officer's override, else the list's
    one K (``list_fixed_k``, a club's own Elo list), else FIDE 8.3.3 from the player's state
    at the period's start (``standard_rating``: see ``k_factor_for``)."""
    if k_override is not None:
        return KFactor(k_override, KReason.MANUAL)
    if list_fixed_k is not None:
        return fixed_k(list_fixed_k)
    return k_factor_for(
        state,
        period_year=period_year,
        list_kind=list_kind,
        standard_rating=standard_rating,
        junior_max_age=junior_max_age,
    )
