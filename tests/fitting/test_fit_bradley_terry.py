"""fitting.bradley_terry and fitting._comparisons: objective, derivatives, solver."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad

from fitting._comparisons import aggregate, comparisons_iv
from fitting.bradley_terry import PairwiseObjective, newton


def _wins(seed: int = 0, n: int = 6, m: int = 300) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    y = rng.choice([0.0, 0.5, 1.0], m)
    w = rng.uniform(0.2, 2.0, m)
    return aggregate(comparisons_iv(a, b, y, w, n)).wins


def test_aggregate_splits_ties_sums_weights_and_counts_decisive_votes():
    c = comparisons_iv(
        [0, 1, 0, 2, 1], [1, 0, 1, 0, 2], [1.0, 1.0, 0.5, 0.0, 1.0], [2.0, 1.0, 1.0, 3.0, 0.0], 3
    )
    totals = aggregate(c)
    np.testing.assert_allclose(totals.wins, [[0, 2.5, 3.0], [1.5, 0, 0], [0, 0, 0]])
    # The zero-weight comparison is not a decisive vote.
    np.testing.assert_array_equal(totals.decisive, [3, 2, 1])


def test_aggregate_with_unit_weights_counts_every_comparison():
    c = comparisons_iv([0, 0, 1], [1, 2, 2], [1.0, 0.5, 0.0], None, 3)
    totals = aggregate(c)
    np.testing.assert_allclose(totals.wins, [[0, 1, 0.5], [0, 0, 0], [0.5, 1, 0]])
    np.testing.assert_array_equal(totals.decisive, [1, 2, 1])


def test_never_won_is_an_exact_zero():
    c = comparisons_iv([0] * 3, [1] * 3, [1.0] * 3, [0.1, 0.2, 0.7], 2)
    assert aggregate(c).wins[1, 0] == 0.0


@pytest.mark.parametrize("penalty", [0.0, 0.3])
def test_gradient_matches_finite_differences(penalty):
    fcts = PairwiseObjective(_wins(), penalty)
    x0 = np.random.default_rng(1).normal(size=6)
    assert check_grad(fcts.objective, fcts.gradient, x0) < 1e-5


@pytest.mark.parametrize("penalty", [0.0, 0.3])
def test_hessian_rows_match_finite_differences_of_the_gradient(penalty):
    fcts = PairwiseObjective(_wins(2), penalty)
    x0 = np.random.default_rng(3).normal(size=6)
    for row in range(6):
        error = check_grad(
            lambda x, r=row: fcts.gradient(x)[r], lambda x, r=row: fcts.hessian(x)[r], x0
        )
        assert error < 1e-5


def test_objective_is_the_weighted_negative_log_likelihood():
    wins = np.array([[0.0, 3.0], [1.0, 0.0]])
    s = np.array([0.4, -0.2])
    p = 1.0 / (1.0 + np.exp(-0.6))
    expected = -(3.0 * np.log(p) + 1.0 * np.log(1 - p)) + 0.5 * 0.2 * np.dot(s, s)
    assert PairwiseObjective(wins, 0.2).objective(s) == pytest.approx(expected, rel=1e-12)


def test_objective_stays_finite_for_huge_margins():
    wins = np.array([[0.0, 1.0], [0.0, 0.0]])
    value, grad, hess = PairwiseObjective(wins, 0.0).evaluate(np.array([-800.0, 800.0]))
    assert np.isfinite(value) and np.isfinite(grad).all() and np.isfinite(hess).all()


def test_newton_reaches_the_gradient_tolerance_in_a_few_steps():
    fcts = PairwiseObjective(_wins(4), 0.0)
    fit = newton(fcts, gauge=np.zeros(6, dtype=np.intp), tol=1e-12, max_iter=50)
    assert fit.converged and fit.iterations <= 8
    assert fit.gradient_norm <= 1e-12 * fcts.total_weight
    assert fit.params.mean() == pytest.approx(0.0, abs=1e-12)


def test_newton_centres_each_gauge_group_on_its_own_mean():
    wins = np.zeros((4, 4))
    wins[0, 1], wins[1, 0] = 3.0, 1.0
    wins[2, 3], wins[3, 2] = 1.0, 2.0
    fit = newton(PairwiseObjective(wins, 0.0), gauge=np.array([0, 0, 1, 1]), tol=1e-12, max_iter=50)
    np.testing.assert_allclose(
        fit.params, [np.log(3) / 2, -np.log(3) / 2, -np.log(2) / 2, np.log(2) / 2]
    )


def test_newton_reports_non_convergence_when_out_of_steps():
    fit = newton(PairwiseObjective(_wins(5), 0.1), gauge=None, tol=1e-14, max_iter=1)
    assert fit.iterations == 1 and not fit.converged
