"""fitting.judge_board: τ between two boards against scipy, its BCa interval against scipy's
BCa, and the length bias's interval around the rater's estimator."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fitting import CaseComparisons, board_tau, fit_points, length_bias, length_bias_interval
from fitting.judge_board import _bca


def _votes(rng, strengths, cases, *, both_orders=False):
    a, b, y, case = [], [], [], []
    for k in range(cases):
        first, second = rng.choice(strengths.size, 2, replace=False)
        for left, right in [(first, second), (second, first)][: 2 if both_orders else 1]:
            win = 1 / (1 + np.exp(strengths[right] - strengths[left]))
            u = rng.random()
            a.append(left), b.append(right), case.append(k)
            y.append(0.5 if u < 0.1 else float(u < 0.1 + 0.9 * win))
    return CaseComparisons.of(a, b, y, case)


def test_tau_is_scipys_between_the_two_fits_and_repeatable():
    rng = np.random.default_rng(4)
    strengths = np.linspace(-1, 1, 6)
    rater = _votes(rng, strengths, 300)
    judge = _votes(rng, strengths[[0, 2, 1, 4, 3, 5]], 300, both_orders=True)
    found = board_tau(rater, judge, n_systems=6, rng=1, resamples=300)
    boards = [fit_points(v.a, v.b, v.y, n_systems=6).points for v in (rater, judge)]
    assert found.value == pytest.approx(stats.kendalltau(*boards).statistic, abs=1e-12)
    assert found.count == 6
    assert found.low <= found.value <= found.high
    assert board_tau(rater, judge, n_systems=6, rng=1, resamples=300) == found
    shown = board_tau(rater, judge, n_systems=6, rng=1, resamples=300, method="percentile")
    assert shown.value == found.value and shown.low <= shown.high


def test_bca_is_scipys_bca():
    """The same formula as scipy.stats.bootstrap's BCa, on the mean of a skewed sample:
    the two draw their own resamples, so the ends agree to Monte Carlo error only."""
    rng = np.random.default_rng(8)
    x = rng.exponential(size=60)
    drawn = rng.multinomial(60, np.full(60, 1 / 60), size=40_000) @ x / 60
    jackknife = (x.sum() - x) / 59
    low, high = _bca(float(x.mean()), drawn, jackknife)
    theirs = stats.bootstrap(
        (x,), np.mean, method="BCa", n_resamples=40_000, random_state=np.random.default_rng(9)
    ).confidence_interval
    width = theirs.high - theirs.low
    assert abs(low - theirs.low) < 0.02 * width
    assert abs(high - theirs.high) < 0.02 * width
    # Not the percentile interval: the skew moves BCa's ends up.
    assert low > np.quantile(drawn, 0.025) and high > np.quantile(drawn, 0.975)


def test_length_bias_is_the_raters_estimator_with_an_interval_around_it():
    rng = np.random.default_rng(6)
    votes = _votes(rng, np.zeros(4), 400, both_orders=True)
    len_a, len_b = rng.integers(200, 2000, (2, votes.a.size))
    found = length_bias_interval(votes, len_a, len_b, n_systems=4, rng=3, resamples=100)
    plain = length_bias(votes.a, votes.b, votes.y, len_a, len_b, n_systems=4)
    assert found.value == pytest.approx(plain.points_per_sd, abs=1e-12)
    assert found.count == np.count_nonzero(len_a != len_b)
    # The bootstrap's spread is near the estimator's own standard error.
    assert (found.high - found.low) / (2 * 1.96 * plain.standard_error) == pytest.approx(1, abs=0.3)


def test_a_length_bias_that_cannot_be_told_has_no_value():
    votes = CaseComparisons.of([0, 1], [1, 0], [1.0, 0.0], [0, 1])
    found = length_bias_interval(votes, [10, 10], [10, 10], n_systems=2, rng=0)
    assert np.isnan(found.value) and found.count == 0
