"""The scheduler's model: the Laplace posterior, and the value of a comparison to the order,
each held to a second, plain computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.optimize
from scipy.stats import norm

from fitting.information import (
    LEADER_WEIGHT,
    SCHEDULER_PENALTY,
    Posterior,
    expected_discordance,
    order_gain,
    posterior,
    stop_threshold,
    votes_to_settle,
)


def _wins(rng: np.random.Generator, n: int) -> np.ndarray:
    wins = rng.integers(0, 6, (n, n)).astype(float) + 0.5 * rng.integers(0, 2, (n, n))
    np.fill_diagonal(wins, 0.0)
    return wins


def _objective(s: np.ndarray, wins: np.ndarray, penalty: float) -> float:
    margin = np.subtract.outer(s, s)
    return float(np.sum(wins * np.logaddexp(0.0, -margin)) + 0.5 * penalty * s @ s)


@pytest.mark.parametrize("seed", range(4))
def test_the_posterior_is_the_penalized_fit_and_its_inverse_curvature(seed):
    rng = np.random.default_rng(seed)
    wins = _wins(rng, 5)
    post = posterior(wins)
    found = scipy.optimize.minimize(
        _objective, np.zeros(5), args=(wins, SCHEDULER_PENALTY), method="BFGS", tol=1e-12
    )
    assert np.allclose(post.mean, found.x, atol=1e-5)
    # The Hessian by finite differences of the objective, inverted.
    step, n = 1e-4, 5
    hessian = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * step, np.eye(n)[j] * step
            f = lambda d: _objective(post.mean + d, wins, SCHEDULER_PENALTY)  # noqa: E731
            hessian[i, j] = (f(e_i + e_j) - f(e_i - e_j) - f(e_j - e_i) + f(-e_i - e_j)) / (
                4 * step * step
            )
    assert np.allclose(post.cov, np.linalg.inv(hessian), rtol=1e-3, atol=1e-6)


def test_the_same_wins_give_the_same_numbers():
    wins = _wins(np.random.default_rng(9), 6)
    one, two = posterior(wins), posterior(wins.copy())
    assert np.array_equal(one.mean, two.mean) and np.array_equal(one.cov, two.cov)


@pytest.mark.parametrize("seed", range(3))
def test_order_gain_is_the_weighted_variance_a_comparison_takes_off_every_difference(seed):
    rng = np.random.default_rng(seed)
    post = posterior(_wins(rng, 5))
    first, second = np.triu_indices(5, k=1)
    gains = order_gain(post, first, second)
    leader = int(np.argmax(post.mean))
    for k, (i, j) in enumerate(zip(first.tolist(), second.tolist(), strict=True)):
        d = np.zeros(5)
        d[i], d[j] = 1.0, -1.0
        t = d @ post.cov @ d
        p = 1 / (1 + math.exp(-(post.mean[i] - post.mean[j]) / math.sqrt(1 + math.pi * t / 8)))
        h = p * (1 - p)
        after = post.cov - h / (1 + h * t) * np.outer(post.cov @ d, post.cov @ d)
        total = 0.0
        for a in range(5):
            for b in range(a + 1, 5):
                e = np.zeros(5)
                e[a], e[b] = 1.0, -1.0
                var, var_after = e @ post.cov @ e, e @ after @ e
                density = norm.pdf(abs(post.mean[a] - post.mean[b]) / math.sqrt(var))
                weight = 1 + LEADER_WEIGHT if leader in (a, b) else 1.0
                total += weight * density / var * (var - var_after)
        assert gains[k] == pytest.approx(total, rel=1e-9)


def test_a_comparison_of_two_close_uncertain_systems_is_worth_more_than_of_two_far_apart():
    post = Posterior(np.array([-2.0, 0.0, 0.1]), np.eye(3) * 0.2)
    near, far = order_gain(post, np.array([1, 0]), np.array([2, 1]))
    assert near > 5 * far


def test_the_leaders_differences_weigh_more_than_the_same_differences_lower_down():
    # Two mirror images, (0, 1) at the top and (2, 3) at the bottom: alike but for the leader.
    post = Posterior(np.array([1.0, 0.9, -0.9, -1.0]), np.eye(4) * 0.2)
    top, bottom = order_gain(post, np.array([0, 2]), np.array([1, 3]))
    assert LEADER_WEIGHT > 0 and top > 1.2 * bottom


def test_expected_discordance_of_two_systems_is_their_chance_of_standing_the_other_way():
    post = Posterior(np.array([0.3, -0.2]), np.array([[0.5, 0.1], [0.1, 0.4]]))
    sd = math.sqrt(0.5 + 0.4 - 0.2)
    assert expected_discordance(post) == pytest.approx(norm.cdf(-0.5 / sd), rel=1e-12)
    assert expected_discordance(Posterior(np.zeros(1), np.eye(1))) == 0.0


def test_votes_to_settle_of_two_systems_solves_their_chance_of_standing_the_other_way():
    # One difference: Phi(-gap / (sd * sqrt(v / (v + m)))) = threshold, solved for m.
    post = Posterior(np.array([0.3, -0.2]), np.array([[0.5, 0.1], [0.1, 0.4]]))
    sd, threshold = math.sqrt(0.5 + 0.4 - 0.2), 0.05
    kept = (0.5 / (sd * norm.ppf(1.0 - threshold))) ** 2
    assert votes_to_settle(post, 40, threshold) == pytest.approx(40 * (1 / kept - 1), rel=1e-3)
    assert votes_to_settle(post, 40, 0.4) == 0.0  # already under it


def test_votes_to_settle_on_many_systems_reaches_the_threshold_and_no_sooner():
    post = posterior(_wins(np.random.default_rng(4), 6))
    votes = 60.0
    more = votes_to_settle(post, votes, 0.025)
    assert more is not None and more > 0

    def scaled(extra: float) -> float:  # the expected discordance with ``extra`` more votes
        return expected_discordance(Posterior(post.mean, post.cov * votes / (votes + extra)))

    assert scaled(more) <= 0.025 < scaled(0.99 * more)


def test_votes_to_settle_cannot_be_told_without_votes_or_between_equal_means():
    post = Posterior(np.array([0.3, -0.2]), np.eye(2))
    assert votes_to_settle(post, 0, 0.025) is None
    assert votes_to_settle(Posterior(np.zeros(3), np.eye(3)), 10, 0.025) is None
    with pytest.raises(ValueError, match="threshold"):
        votes_to_settle(post, 10, 1.5)


def test_the_stop_threshold_gives_a_5_percent_chance_of_tau_under_0_9():
    from scipy.stats import poisson

    # 5 systems: one pair the wrong way round puts tau at 0.8; 10 systems: three (0.87).
    assert stop_threshold(5) * 10 == pytest.approx(-math.log(0.95), rel=1e-9)
    assert poisson.sf(2, stop_threshold(10) * 45) == pytest.approx(0.05, rel=1e-9)
    assert poisson.sf(9, stop_threshold(20) * 190) == pytest.approx(0.05, rel=1e-9)
    assert stop_threshold(10) < stop_threshold(20)
    with pytest.raises(ValueError, match="n_systems"):
        stop_threshold(1)


def test_the_posterior_needs_a_proper_prior():
    with pytest.raises(ValueError, match="penalty"):
        posterior(np.zeros((2, 2)), penalty=0.0)


def test_the_posterior_leaves_blas_unpinned_and_fits_as_a_pinned_fit(monkeypatch):
    """The scheduler's model is n × n counts: too small for BLAS to thread, so its fit
    skips pinning BLAS (finding the libraries costs the first pair ~14 ms), bit for bit
    the fit pinned."""
    from fitting import bradley_terry
    from fitting.bradley_terry import PairwiseObjective, newton, solve_numpy

    rng = np.random.default_rng(4)
    cases = [_wins(rng, n) for n in (2, 5, 20, 40)]
    pinned = [
        newton(
            PairwiseObjective(w, SCHEDULER_PENALTY),
            gauge=None,
            tol=1e-10,
            max_iter=100,
            solve=solve_numpy,
        ).params
        for w in cases
    ]

    def no_pinning():
        raise AssertionError("the scheduler's model pinned BLAS")

    monkeypatch.setattr(bradley_terry, "_one_blas_thread", no_pinning)
    for wins, expected in zip(cases, pinned, strict=True):
        assert (posterior(wins).mean == expected).all()
