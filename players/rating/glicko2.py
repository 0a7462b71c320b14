"""Glicko-2 (Mark E. Glickman, "Example of the Glicko-2 system", 2012/2022): one player's
rating period over plain floats. Each function names the paper's step it implements.

A player is a rating r, a rating deviation RD (how unsure r is) and a volatility sigma.
All of a period's games are scored against the opponents' r and RD at the start of the
period. The product's choices, which the paper leaves open, are arguments here (the
list's settings): tau, the RD of a new player, and a floor and a cap on RD (the paper has
neither: ``rd_min`` 0 and ``rd_max`` infinite reproduce it exactly).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from players.rating.rounding import round_half_away, round_half_away_places

# Step 1: the Glicko-2 scale is the Glicko scale divided by 400 / ln(10).
SCALE = 173.7178
BASE_RATING = 1500.0
# The paper's new player, and its example's system constant.
DEFAULT_RATING = 1500
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
# Step 5: the convergence tolerance of the volatility iteration.
EPSILON = 0.000001
# Published figures: the next period starts from what the list published, so the
# rounding is part of the rules (r in whole points like every list here; RD to two
# decimals; volatility to six).
RD_DECIMALS = 2
VOLATILITY_DECIMALS = 6


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    rating: float
    rd: float
    volatility: float


@dataclass(frozen=True, slots=True)
class Glicko2Game:
    """One game of the period: the opponent's r and RD at its start, and the score."""

    opponent_rating: float
    opponent_rd: float
    score: float


@dataclass(frozen=True, slots=True)
class Glicko2Settings:
    tau: float = DEFAULT_TAU
    rd_start: float = DEFAULT_RD
    rd_min: float = 0.0
    rd_max: float = math.inf
    volatility_start: float = DEFAULT_VOLATILITY


@dataclass(frozen=True, slots=True)
class Glicko2Result:
    """A period's outcome, unrounded, with the paper's intermediate values."""

    before: Glicko2Rating
    after: Glicko2Rating
    games: int
    score: float
    # Sum of E_j: the expected score against these opponents (for the reports).
    expected: float
    # Steps 3 and 4 (None without games).
    v: float | None
    delta: float | None


def g(phi: float) -> float:
    """Step 2: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected_score(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 2: E = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def expected_on_glicko_scale(rating: float, opponent_rating: float, opponent_rd: float) -> float:
    """Step 2 with r and RD as published (converted by step 1)."""
    return expected_score(
        (rating - BASE_RATING) / SCALE, (opponent_rating - BASE_RATING) / SCALE, opponent_rd / SCALE
    )


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the root of f by the Illinois algorithm (regula falsi), to ``EPSILON``."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / tau2

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def clamp_rd(rd: float, settings: Glicko2Settings) -> float:
    """The list's floor and cap on RD (the paper has neither)."""
    return min(max(rd, settings.rd_min), settings.rd_max)


def rate_period(
    player: Glicko2Rating, games: Iterable[Glicko2Game], settings: Glicko2Settings
) -> Glicko2Result:
    """Steps 1-8 for one player and one period; without games only RD grows:
    phi' = sqrt(phi^2 + sigma^2)."""
    mu = (player.rating - BASE_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    # Step 3 and 4's sums, in one pass over the games.
    v_inverse = 0.0
    improvement = 0.0
    expected_total = 0.0
    score = 0.0
    count = 0
    for game in games:
        mu_j = (game.opponent_rating - BASE_RATING) / SCALE
        g_j = g(game.opponent_rd / SCALE)
        e_j = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        v_inverse += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (game.score - e_j)
        expected_total += e_j
        score += game.score
        count += 1
    if count == 0:
        grown = clamp_rd(SCALE * math.sqrt(phi * phi + sigma * sigma), settings)
        after = Glicko2Rating(player.rating, grown, sigma)
        return Glicko2Result(player, after, 0, 0.0, 0.0, None, None)
    v = 1.0 / v_inverse
    delta = v * improvement
    sigma_new = new_volatility(sigma, phi, v, delta, settings.tau)
    # Step 6: the pre-period RD, then step 7.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8.
    after = Glicko2Rating(
        SCALE * mu_new + BASE_RATING, clamp_rd(SCALE * phi_new, settings), sigma_new
    )
    return Glicko2Result(player, after, count, score, expected_total, v, delta)


def published(rating: Glicko2Rating, *, lowest: int, highest: int) -> Glicko2Rating:
    """What the list publishes, and the next period starts from: r rounded half away from
    zero to whole points and kept inside the lists' range, RD and volatility rounded to
    ``RD_DECIMALS`` and ``VOLATILITY_DECIMALS`` (half away from zero too)."""
    whole = round_half_away(rating.rating)
    return Glicko2Rating(
        float(min(max(whole, lowest), highest)),
        round_half_away_places(rating.rd, RD_DECIMALS),
        round_half_away_places(rating.volatility, VOLATILITY_DECIMALS),
    )
