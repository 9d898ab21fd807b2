"""fitting.length_bias: covariate objective, recovery of a planted bias."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import check_grad

from fitting import POINTS_PER_LOGIT, length_bias
from fitting._comparisons import comparisons_iv
from fitting.length_bias import CovariateObjective


def _objective(penalty: float) -> CovariateObjective:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 200)
    b = (a + rng.integers(1, 5, 200)) % 5
    c = comparisons_iv(a, b, rng.choice([0.0, 0.5, 1.0], 200), rng.uniform(0.5, 2, 200), 5)
    return CovariateObjective(c, rng.normal(size=200), penalty)


@pytest.mark.parametrize("penalty", [0.0, 0.4])
def test_covariate_gradient_and_hessian_match_finite_differences(penalty):
    fcts = _objective(penalty)
    x0 = np.random.default_rng(1).normal(size=6)
    assert check_grad(fcts.objective, fcts.gradient, x0) < 1e-5
    for row in range(6):
        error = check_grad(
            lambda x, r=row: fcts.gradient(x)[r], lambda x, r=row: fcts.hessian(x)[r], x0
        )
        assert error < 1e-5


@pytest.mark.parametrize("planted", [0.3, -0.2, 0.0])
def test_recovers_a_planted_length_bias(simulate_rater, planted):
    sim = simulate_rater(
        np.random.default_rng(7), n_systems=8, n_votes=20_000, length_bias=planted, side_bias=0.2
    )
    result = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=8)
    # Standard error here is about 0.017 logits (3 points) per SD.
    assert result.points_per_sd == pytest.approx(POINTS_PER_LOGIT * planted, abs=12)
    assert result.coefficient == pytest.approx(result.points_per_sd / POINTS_PER_LOGIT)
    assert result.converged and result.n_comparisons == 20_000


def test_positive_means_the_longer_output_is_favoured():
    # The longer side always wins.
    a = np.array([0, 1, 0, 1, 0, 1] * 5)
    b = 1 - a
    len_a = np.array([100, 300, 300, 100, 200, 250] * 5, dtype=float)
    len_b = np.array([300, 100, 100, 300, 250, 200] * 5, dtype=float)
    y = (len_a > len_b).astype(float)
    y[:2] = 1 - y[:2]  # one upset each way keeps the fit finite
    result = length_bias(a, b, y, len_a, len_b, n_systems=2)
    assert result.points_per_sd > 0


def test_coefficient_is_not_penalized(simulate_rater):
    # Equal systems: a heavy penalty on the strengths costs nothing here, and
    # would shrink the coefficient to almost zero if it applied to it too.
    sim = simulate_rater(
        np.random.default_rng(8), n_systems=6, n_votes=3000, spread=0.0, length_bias=0.5
    )
    light = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=6, penalty=0.1)
    heavy = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=6, penalty=100.0)
    assert heavy.coefficient == pytest.approx(light.coefficient, rel=0.05)
    assert heavy.coefficient > 0.4


def test_sd_is_taken_over_the_votes_and_reported():
    len_a = np.array([1.0, 3.0, 2.0, 2.0])
    len_b = np.array([3.0, 1.0, 2.0, 6.0])
    y = np.array([0.0, 1.0, 0.5, 1.0])
    result = length_bias([0, 1, 0, 1], [1, 0, 1, 0], y, len_a, len_b, n_systems=2)
    assert result.sd == pytest.approx(np.std([-0.5, 0.5, 0.0, -0.5]))


def test_no_length_variation_gives_nan_not_an_error():
    result = length_bias([0, 1], [1, 0], [1.0, 0.0], [5.0, 5.0], [5.0, 5.0], n_systems=2)
    assert math.isnan(result.points_per_sd) and result.sd == 0.0


def test_unpenalized_fit_works_on_strongly_connected_data(simulate_rater):
    sim = simulate_rater(np.random.default_rng(9), n_systems=5, n_votes=5000, length_bias=0.3)
    exact = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=5, penalty=0.0)
    assert exact.converged
    assert exact.points_per_sd == pytest.approx(POINTS_PER_LOGIT * 0.3, abs=20)


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"len_a": [1.0]}, "`len_a`"),
        ({"len_b": [-1.0, 1.0]}, "`len_b`"),
        ({"len_a": [0.0, 1.0], "len_b": [0.0, 1.0]}, "both be zero"),
        ({"penalty": math.nan}, "`penalty`"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(change, name):
    call = {"len_a": [1.0, 2.0], "len_b": [2.0, 1.0], "penalty": 0.1, **change}
    with pytest.raises(ValueError, match=name):
        length_bias([0, 1], [1, 0], [1.0, 0.0], n_systems=2, **call)


def _design_fit(a, b, y, z, n, penalty):
    """Independently: the same model as a weighted logistic regression on an explicit design
    matrix (columns: one per system but the first, then z), solved by scipy.optimize, and
    the standard error of z's coefficient from the inverse of X'WX (plus the penalty)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    rows = np.zeros((a.size, n))
    rows[np.arange(a.size), a] += 1.0
    rows[np.arange(a.size), b] -= 1.0
    x = np.column_stack([rows[:, 1:] if penalty == 0 else rows, z])
    ridge = np.full(x.shape[1], penalty)
    ridge[-1] = 0.0

    def loss(theta):
        eta = x @ theta
        return float(np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * np.sum(ridge * theta**2))

    def grad(theta):
        return x.T @ (expit(x @ theta) - y) + ridge * theta

    theta = minimize(loss, np.zeros(x.shape[1]), jac=grad, method="BFGS", tol=1e-12).x
    p = expit(x @ theta)
    information = x.T @ (x * (p * (1 - p))[:, None]) + np.diag(ridge)
    return theta[-1], math.sqrt(np.linalg.inv(information)[-1, -1])


@pytest.mark.parametrize("penalty", [0.0, 0.5])
def test_standard_error_matches_an_explicit_logistic_regression(simulate_rater, penalty):
    sim = simulate_rater(np.random.default_rng(12), n_systems=4, n_votes=400, length_bias=0.4)
    found = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=4, penalty=penalty)
    d = (sim.len_a - sim.len_b) / (sim.len_a + sim.len_b)
    beta, error = _design_fit(sim.a, sim.b, sim.y, d / found.sd, 4, penalty)
    assert found.identified and found.reason is None
    assert found.coefficient == pytest.approx(beta, abs=1e-5)
    assert found.standard_error == pytest.approx(POINTS_PER_LOGIT * error, rel=1e-4)


def test_votes_that_all_follow_the_length_are_separable_not_a_number():
    # "+4,140 points per SD from 2 votes": every vote went to the longer output.
    two = length_bias([0, 1], [1, 2], [1.0, 0.0], [900.0, 100.0], [100.0, 800.0], n_systems=3)
    assert not two.identified and two.reason == "separable"
    assert math.isnan(two.points_per_sd) and math.isnan(two.standard_error)
    # Without a penalty the strengths can absorb the votes too: a linear program finds it.
    a, b = np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0])
    lengths = np.array([300.0, 100.0, 120.0, 100.0]), np.array([100.0, 300.0, 100.0, 120.0])
    y = np.array([1.0, 0.0, 1.0, 0.0])  # system 0 always wins: separable through the strengths
    assert length_bias(a, b, y, *lengths, n_systems=2, penalty=0.0).reason == "separable"
    # A tie on outputs of different lengths keeps the lean finite.
    tied = length_bias(
        [0, 1, 0], [1, 2, 2], [1.0, 0.0, 0.5], [900, 100, 300], [100, 800, 200], n_systems=3
    )
    assert tied.reason == "too_few_comparisons" and math.isfinite(tied.points_per_sd)


def test_fewer_than_fifty_votes_on_different_lengths_are_too_few(simulate_rater):
    sim = simulate_rater(np.random.default_rng(13), n_systems=3, n_votes=49, length_bias=0.3)
    found = length_bias(sim.a, sim.b, sim.y, sim.len_a, sim.len_b, n_systems=3)
    assert (found.identified, found.reason) == (False, "too_few_comparisons")
    more = simulate_rater(np.random.default_rng(13), n_systems=3, n_votes=60, length_bias=0.3)
    assert length_bias(more.a, more.b, more.y, more.len_a, more.len_b, n_systems=3).identified


def test_a_planted_length_preference_lies_within_its_reported_uncertainty():
    from fitting import simulate

    rng = np.random.default_rng(14)
    systems = simulate.draw_systems(6, rng=rng)
    rater = simulate.RaterTraits(length_preference=3.0, side_bias=0.2, inconsistency=0.1)
    # The planted lean as this rater's fit measures it (ties and random choices shrink it):
    # the fit to the expected outcome of 100,000 votes.
    big = simulate.draw_family(systems, 3000, rng=rng)
    v = simulate.simulate_votes(big, rater, 100_000, rng=rng)
    p = simulate.expected_y(simulate.choice_probabilities(big, rater, v.case, v.left, v.right))
    two = np.r_[np.ones(p.size), np.zeros(p.size)]
    pop = length_bias(
        np.r_[v.a, v.a],
        np.r_[v.b, v.b],
        two,
        np.r_[v.len_a, v.len_a],
        np.r_[v.len_b, v.len_b],
        np.r_[p, 1 - p],
        n_systems=6,
        penalty=0.0,
    )
    per_unit = pop.coefficient / pop.sd
    inside = []
    for _ in range(200):
        family = simulate.draw_family(systems, 60, rng=rng)
        votes = simulate.simulate_votes(family, rater, 300, rng=rng)
        found = length_bias(votes.a, votes.b, votes.y, votes.len_a, votes.len_b, n_systems=6)
        planted = POINTS_PER_LOGIT * per_unit * found.sd
        inside.append(abs(found.points_per_sd - planted) <= 1.96 * found.standard_error)
    assert 0.92 <= np.mean(inside) <= 0.99
