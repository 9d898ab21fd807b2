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
