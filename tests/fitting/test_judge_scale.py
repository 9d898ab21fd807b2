"""The judges' figures at scale against the way they were computed before: the item
bootstraps drawn by counts (tests/fitting/reference_judge_agreement.py drew every item),
the length bias's resamples refitted all at once (reference_judge_board.py: one fit each),
and neither holding a resamples × items matrix."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from fitting import (
    CaseComparisons,
    krippendorff_alpha,
    length_bias_interval,
    pair_agreement,
    position_bias,
)
from tests.fitting import reference_judge_agreement as old
from tests.fitting import reference_judge_board as old_board


def _answers(rng, n):
    a = rng.choice([-1, 0, 1], size=n, p=[0.45, 0.15, 0.4])
    b = np.where(rng.random(n) < 0.7, a, rng.choice([-1, 0, 1], size=n))
    return a, b


def _figures(result):
    return [getattr(result, f) for f in result.__dataclass_fields__]


def test_values_are_the_old_ones_and_intervals_agree_within_monte_carlo():
    rng = np.random.default_rng(11)
    a, b = _answers(rng, 3000)
    table = np.array([np.where(rng.random(3000) < 0.8, a, -a) for _ in range(4)], float)
    table[rng.random(table.shape) < 0.3] = np.nan
    pairs = [
        (pair_agreement(a, b, rng=1), old.pair_agreement(a, b, rng=1)),
        (position_bias(a, b, rng=1), old.position_bias(a, b, rng=1)),
    ]
    found = [
        (n, o) for new, was in pairs for n, o in zip(_figures(new), _figures(was), strict=True)
    ]
    found.append((krippendorff_alpha(table, rng=1), old.krippendorff_alpha(table, rng=1)))
    for new, was in found:
        assert new.value == was.value and new.count == was.count
        width = was.high - was.low
        # Each end of 2000 resamples: a Monte Carlo SD of about 1.5% of the width.
        assert new.low == pytest.approx(was.low, abs=0.15 * width)
        assert new.high == pytest.approx(was.high, abs=0.15 * width)


def test_drawing_by_counts_is_drawing_the_items():
    """With many resamples both bootstraps' intervals are the same distribution's."""
    rng = np.random.default_rng(12)
    a, b = _answers(rng, 200)
    new = pair_agreement(a, b, rng=2, resamples=40_000)
    was = old.pair_agreement(a, b, rng=3, resamples=40_000)
    for mine, theirs in zip(_figures(new), _figures(was), strict=True):
        width = theirs.high - theirs.low
        assert mine.low == pytest.approx(theirs.low, abs=0.03 * width)
        assert mine.high == pytest.approx(theirs.high, abs=0.03 * width)


def _length_votes(rng, n_systems, n, cases, lean=2.0):
    strengths = rng.normal(size=n_systems)
    a = rng.integers(0, n_systems, n)
    b = (a + rng.integers(1, n_systems, n)) % n_systems
    len_a, len_b = (rng.integers(100, 400, n).astype(float) for _ in range(2))
    d = (len_a - len_b) / (len_a + len_b)
    win = 1 / (1 + np.exp(-(strengths[a] - strengths[b] + lean * d)))
    u = rng.random(n)
    y = np.where(u < 0.1, 0.5, (u < 0.1 + 0.9 * win).astype(float))
    return CaseComparisons.of(a, b, y, rng.integers(0, cases, n)), len_a, len_b


@pytest.mark.parametrize(
    ("n_systems", "n", "cases"),
    [(6, 4000, 300), (4, 300, 60), (3, 95, 40)],  # the last: many resamples too few to tell
)
def test_length_bias_interval_is_one_fit_per_resample(n_systems, n, cases):
    rng = np.random.default_rng(n)
    votes, len_a, len_b = _length_votes(rng, n_systems, n, cases)
    new = length_bias_interval(votes, len_a, len_b, n_systems=n_systems, rng=5)
    was = old_board.length_bias_interval(votes, len_a, len_b, n_systems=n_systems, rng=5)
    assert new.value == was.value and new.count == was.count
    width = was.high - was.low
    assert np.isfinite(width)
    assert new.low == pytest.approx(was.low, abs=1e-6 * width)
    assert new.high == pytest.approx(was.high, abs=1e-6 * width)


def test_length_bias_refusals_are_the_estimators():
    """Every decisive verdict goes to the longer side but one, in case 0: a resample
    without case 0 is separable and one of too few comparisons cannot tell; each is left
    out as the estimator leaves it out."""
    rng = np.random.default_rng(3)
    n = 200
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    len_a, len_b = (rng.integers(100, 400, n).astype(float) for _ in range(2))
    y = (len_a > len_b).astype(float)
    case = np.arange(n) % 20
    y[0] = 1.0 - y[0]  # case 0's one verdict for the shorter side
    votes = CaseComparisons.of(a, b, y, case)
    from fitting import length_bias

    drawn = np.random.default_rng(1).multinomial(20, np.full(20, 0.05), size=60)
    reasons = {
        length_bias(a, b, y, len_a, len_b, row[case].astype(float), n_systems=3).reason
        for row in drawn
    }
    assert {"separable", None} <= reasons
    new = length_bias_interval(votes, len_a, len_b, n_systems=3, rng=1, resamples=60)
    was = old_board.length_bias_interval(votes, len_a, len_b, n_systems=3, rng=1, resamples=60)
    assert new.value == was.value
    assert new.low == pytest.approx(was.low, rel=1e-6)
    assert new.high == pytest.approx(was.high, rel=1e-6)


def _peak_mb(run) -> float:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_no_resamples_by_items_matrix():
    rng = np.random.default_rng(4)
    a, b = _answers(rng, 100_000)
    # 2000 × 100,000 draws would be 1.6 GB.
    assert _peak_mb(lambda: pair_agreement(a, b, rng=0)) < 20
    assert _peak_mb(lambda: position_bias(a, b, rng=0)) < 20
    table = np.array([a, b, -a], float)
    assert _peak_mb(lambda: krippendorff_alpha(table, rng=0)) < 50
    votes, len_a, len_b = _length_votes(rng, 10, 50_000, 1000)
    # 200 resamples × 50,000 comparisons would be 80 MB a matrix, and several are needed.
    assert _peak_mb(lambda: length_bias_interval(votes, len_a, len_b, n_systems=10, rng=0)) < 80


def test_board_taus_is_board_tau_for_each_judge():
    """The rater's refits made once for judges over the same cases: each τ as alone."""
    from fitting import board_tau, board_taus

    rng = np.random.default_rng(9)
    strengths = np.linspace(-1, 1, 5)

    def votes(order, n):
        a = rng.integers(0, 5, n)
        b = (a + rng.integers(1, 5, n)) % 5
        s = strengths[order]
        y = (rng.random(n) < 1 / (1 + np.exp(s[b] - s[a]))).astype(float)
        return CaseComparisons.of(a, b, y, rng.integers(0, 80, n))

    rater = votes([0, 1, 2, 3, 4], 600)
    judges = [votes([0, 2, 1, 3, 4], 500), votes([4, 3, 2, 1, 0], 500), votes([0, 1, 2, 3, 4], 40)]
    together = board_taus(rater, judges, n_systems=5, rng=[3, 3], resamples=300)
    alone = [board_tau(rater, j, n_systems=5, rng=[3, 3], resamples=300) for j in judges]
    assert together == alone
    assert together[0].low < together[0].high


def test_figures_at_scale_match_independent_implementations():
    """κ against scikit-learn, α against the krippendorff package, on 60,000 items."""
    from krippendorff import alpha
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(13)
    a, b = _answers(rng, 60_000)
    found = pair_agreement(a, b, rng=0)
    assert found.kappa.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert found.kappa.low < found.kappa.value < found.kappa.high
    table = np.array([a, b, np.where(rng.random(60_000) < 0.8, a, -a)], float)
    table[rng.random(table.shape) < 0.2] = np.nan
    expected = alpha(reliability_data=table, level_of_measurement="ordinal")
    assert krippendorff_alpha(table, rng=0).value == pytest.approx(expected, abs=1e-12)
