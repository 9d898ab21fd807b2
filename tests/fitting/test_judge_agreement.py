"""fitting.judge_agreement against scikit-learn, the krippendorff package and planted data."""

from __future__ import annotations

import numpy as np
import pytest

from fitting import krippendorff_alpha, pair_agreement, position_bias


def test_kappa_and_agreement_match_independent_counts():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    a = rng.choice([-1, 0, 1], size=300, p=[0.45, 0.15, 0.4])
    b = np.where(rng.random(300) < 0.7, a, rng.choice([-1, 0, 1], size=300))
    result = pair_agreement(a, b, rng=1, resamples=500)
    assert result.kappa.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    decisive = (a != 0) & (b != 0)
    assert result.without_ties.value == pytest.approx(np.mean(a[decisive] == b[decisive]))
    assert result.with_ties.low < result.with_ties.value < result.with_ties.high
    assert pair_agreement(a, b, rng=1, resamples=500) == result  # seeded


def test_alpha_matches_the_krippendorff_package_with_missing_answers():
    from krippendorff import alpha

    rng = np.random.default_rng(5)
    truth = rng.choice([-1, 0, 1], size=200)
    table = np.array([np.where(rng.random(200) < 0.8, truth, -truth) for _ in range(4)], float)
    table[rng.random(table.shape) < 0.3] = np.nan
    expected = alpha(reliability_data=table, level_of_measurement="ordinal")
    assert krippendorff_alpha(table, rng=0, resamples=200).value == pytest.approx(
        expected, abs=1e-12
    )


def test_a_judge_that_prefers_the_first_position_is_seen_to():
    rng = np.random.default_rng(7)
    truth = rng.choice([-1, 1], size=400)
    # Half the time the judge names whatever was shown first.
    lazy = rng.random((2, 400)) < 0.5
    in_order = np.where(lazy[0], -1, truth)
    swapped = np.where(lazy[1], 1, truth)
    result = position_bias(in_order, swapped, rng=2, resamples=500)
    assert result.first_preference.low < 0.75 < result.first_preference.high
    assert result.consistency.value == pytest.approx(np.mean(in_order == swapped))


def test_answers_outside_the_scale_are_refused_by_name():
    with pytest.raises(ValueError, match="`second`"):
        pair_agreement([1, 0], [1, 2])
