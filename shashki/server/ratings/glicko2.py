"""Glicko-2, as Mark Glickman describes it in "Example of the Glicko-2 system" (2013).

A rating is (r, RD, σ) on the Glicko scale; the computation runs on the Glicko-2 scale
(μ = (r - 1500) / 173.7178, φ = RD / 173.7178). One call of `rate` is one rating period: a player and the
games they played in it, each against an opponent as rated at the start of the period. The server makes
every rated game its own rating period (`shashki.server.ratings.service`).

The worked example of the paper (τ = 0.5): a 1500/200/0.06 player beats a 1400/30 player and loses to
1550/100 and 1700/300 players.

>>> r = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)],
...          tau=0.5)
>>> round(r.mu, 4), round(r.phi, 4), f"{r.volatility:.6f}"
(-0.2069, 0.8722, '0.059996')
>>> f"{r.rating:.2f} {r.deviation:.2f}"
'1464.05 151.52'

(The paper prints r' = 1464.06, computed from μ' already rounded to -0.2069, and σ' = 0.05999.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SCALE = 173.7178  # Glicko points per Glicko-2 unit (400 / ln 10)
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
# The system constant τ bounds how fast the volatility may change (the paper suggests 0.3 to 1.2).
DEFAULT_TAU = 0.75
# Convergence tolerance of the volatility iteration (step 5 of the paper).
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A player's rating `rating`, its deviation RD and volatility σ, on the Glicko scale."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Rating, results: Iterable[tuple[Rating, float]], *, tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period; `results` are (opponent, score) with score 1 for a
    win, 0.5 for a draw and 0 for a loss. Without results only the deviation grows (step 6).
    """
    results = list(results)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not results:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)

    # Steps 3 and 4: the estimated variance v and improvement Δ from the period's games.
    v_inverse = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        g = _g(opponent.phi)
        e = _expected(mu, opponent.mu, opponent.phi)
        v_inverse += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inverse
    delta = v * delta_sum

    # Step 5: the new volatility, by the Illinois algorithm on f(x) = 0 with x = ln σ².
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2 * spread * spread) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
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
            f_a /= 2
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2)

    # Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Rating(new_mu * SCALE + DEFAULT_RATING, new_phi * SCALE, new_sigma)
