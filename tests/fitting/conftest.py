"""Simulated raters for the fitting tests (fixtures local to tests/fitting)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest


@dataclass(frozen=True)
class Simulated:
    """Votes from a simulated rater; ``a`` is the left side, ``b`` the right."""

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    len_a: np.ndarray
    len_b: np.ndarray
    session: np.ndarray
    strengths: np.ndarray
    z: np.ndarray  # the planted length covariate, standardised over these votes


def simulate(
    rng: np.random.Generator,
    *,
    n_systems: int,
    n_votes: int,
    spread: float = 1.0,
    side_bias: float = 0.0,
    length_bias: float = 0.0,
    noise: float = 0.0,
    tie_rate: float = 0.0,
    n_sessions: int = 10,
) -> Simulated:
    """A rater with planted strengths (log-odds), side and length bias.

    P(left wins) = sigma(s_left - s_right + side_bias + length_bias * z), with
    z the standardised relative length difference. With probability ``noise``
    the rater votes at random instead; with ``tie_rate`` a vote is a tie. Sides
    are counterbalanced: each pair is shown either way round equally often.
    """
    strengths = rng.normal(0.0, spread, n_systems)
    first = rng.integers(0, n_systems, n_votes)
    second = rng.integers(0, n_systems - 1, n_votes)
    second = second + (second >= first)
    flip = np.arange(n_votes) % 2 == 1
    rng.shuffle(flip)
    a = np.where(flip, second, first)
    b = np.where(flip, first, second)
    len_a = rng.lognormal(6.0, 0.6, n_votes)
    len_b = rng.lognormal(6.0, 0.6, n_votes)
    d = (len_a - len_b) / (len_a + len_b)
    z = d / d.std()
    logit = strengths[a] - strengths[b] + side_bias + length_bias * z
    won = rng.random(n_votes) < 1.0 / (1.0 + np.exp(-logit))
    random_vote = rng.random(n_votes) < noise
    won = np.where(random_vote, rng.random(n_votes) < 0.5, won)
    y = np.where(rng.random(n_votes) < tie_rate, 0.5, won.astype(float))
    session = 1 + np.arange(n_votes) * n_sessions // n_votes
    return Simulated(a, b, y, len_a, len_b, session, strengths, z)


@pytest.fixture
def simulate_rater() -> Callable[..., Simulated]:
    return simulate
