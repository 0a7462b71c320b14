"""K on a rapid or blitz list for a player unrated there who is rated through the standard
rating (FIDE Rapid and Blitz Rating Regulations with 8.3.3).

Such a player "uses it and counts as rated", so the four rules of the reference's section
3 apply in their order to the standard rating and to the rated games on the rapid or
blitz list: 10 from 2400, junior 40 only under 2300, 40 under 30 rated games, else 20.
Each expected K below is read off that order by hand; the cases sit on both sides of each
boundary (29/30 games, 2299/2300, 2399/2400, 18/19 years of age in the period's year).
"""

from __future__ import annotations

import pytest

from players.rating import KFactor, KReason, ListKind, PlayerState, k_factor_for

YEAR = 2026
ADULT = 1980
JUNIOR = 2008  # 2026 - 2008 = 18: junior until the end of 2026
TURNED_19 = 2007  # 2026 - 2007 = 19: no longer junior in 2026

K10 = KFactor(10, KReason.REACHED_2400)
K20 = KFactor(20, KReason.STANDARD)
K40_NEW = KFactor(40, KReason.NEW_PLAYER)
K40_JUNIOR = KFactor(40, KReason.JUNIOR)


def unrated_here(*, games: int, born: int | None = ADULT) -> PlayerState:
    """Unrated on the rapid or blitz list, with ``games`` rated games on it (a player whose
    rating there fell below the floor keeps the games counted before)."""
    return PlayerState(rating=None, rated_games=games, birth_year=born, reached_2400=False)


@pytest.mark.parametrize("kind", [ListKind.RAPID, ListKind.BLITZ])
@pytest.mark.parametrize(
    ("player", "standard", "k"),
    [
        # Rule 3: 40 until 30 rated games on this list are completed; rule 4: then 20.
        pytest.param(unrated_here(games=0), 1850, K40_NEW, id="no-games"),
        pytest.param(unrated_here(games=29), 1850, K40_NEW, id="29-games"),
        pytest.param(unrated_here(games=30), 1850, K20, id="30-games"),
        pytest.param(unrated_here(games=31), 1850, K20, id="31-games"),
        # Rule 2: a junior by age is on K 40 only while the rating used is under 2300.
        pytest.param(unrated_here(games=35, born=JUNIOR), 2299, K40_JUNIOR, id="junior-2299"),
        pytest.param(unrated_here(games=35, born=JUNIOR), 2300, K20, id="junior-2300-30-games"),
        # 2300 or more but under 30 games: rule 3 still gives 40, as a new player.
        pytest.param(unrated_here(games=5, born=JUNIOR), 2300, K40_NEW, id="junior-2300-5-games"),
        # Rule 2's age boundary: the year of the 18th birthday is the last junior year.
        pytest.param(unrated_here(games=35, born=JUNIOR), 2000, K40_JUNIOR, id="age-18"),
        pytest.param(unrated_here(games=35, born=TURNED_19), 2000, K20, id="age-19"),
        pytest.param(unrated_here(games=5, born=TURNED_19), 2000, K40_NEW, id="age-19-5-games"),
        # Rule 1: the rating used is a published rating; from 2400 it is K 10, first.
        pytest.param(unrated_here(games=35), 2399, K20, id="2399"),
        pytest.param(unrated_here(games=35), 2400, K10, id="2400"),
        pytest.param(unrated_here(games=0, born=JUNIOR), 2400, K10, id="2400-junior-new"),
        # No standard rating: still unrated, so rule 2 (junior) or rule 3 (new) as before.
        pytest.param(unrated_here(games=35), None, K40_NEW, id="no-standard"),
        pytest.param(unrated_here(games=35, born=JUNIOR), None, K40_JUNIOR, id="no-standard-jr"),
    ],
)
def test_k_through_the_standard_rating(
    player: PlayerState, standard: int | None, k: KFactor, kind: ListKind
) -> None:
    assert k_factor_for(player, period_year=YEAR, list_kind=kind, standard_rating=standard) == k


@pytest.mark.parametrize("kind", [ListKind.RAPID, ListKind.BLITZ])
def test_a_rating_on_the_list_itself_wins_over_the_standard_rating(kind: ListKind) -> None:
    # Rated 1900 on this list with 10 games: rule 3 gives 40, whatever the standard says.
    rated = PlayerState(rating=1900, rated_games=10, birth_year=ADULT, reached_2400=False)
    assert k_factor_for(rated, period_year=YEAR, list_kind=kind, standard_rating=2450) == K40_NEW


def test_the_standard_list_does_not_borrow_from_itself() -> None:
    # Unrated on the standard list: the standard rating given is not a rating there.
    player = unrated_here(games=35)
    k = k_factor_for(player, period_year=YEAR, list_kind=ListKind.STANDARD, standard_rating=2000)
    assert k == K40_NEW
