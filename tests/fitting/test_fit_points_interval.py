"""The cluster bootstrap of point scores: the stacked solver against fit_points one
replicate at a time, the interval by hand, and its coverage in simulation."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import t as student_t

from fitting import bootstrap_points, fit_points
from fitting import simulate as sim

REPO = Path(__file__).resolve().parents[2]


def _data(seed=0, n=6, votes=400):
    rng = np.random.default_rng(seed)
    systems = sim.draw_systems(n, rng=rng, settle_share=0.2)
    family = sim.draw_family(systems, 50, rng=rng, samples=2)
    settled, pending = sim.settled_pairs(family)
    v = sim.simulate_votes(family, sim.RaterTraits(), votes, rng=rng, pending=pending)
    return (
        np.concatenate([v.a, settled.a]),
        np.concatenate([v.b, settled.b]),
        np.concatenate([v.y, settled.y]),
        np.concatenate([np.ones(v.y.size), settled.w]),
        np.concatenate([v.case, settled.case]),
    )


def test_each_replicate_is_the_fit_of_its_resampled_cases():
    a, b, y, w, case = _data()
    found = bootstrap_points(
        a, b, y, w, cluster=case, n_systems=6, rng=11, anchor=2, n_resamples=40
    )
    # Independently: the same draws of cases, each replicate fitted on its own.
    codes, inverse = np.unique(case, return_inverse=True)
    drawn = np.random.default_rng(11).multinomial(
        codes.size, np.full(codes.size, 1 / codes.size), 40
    )
    for i in range(40):
        again = fit_points(a, b, y, w * drawn[i][inverse], n_systems=6, anchor=2)
        assert found.replicates[i] == pytest.approx(again.points, abs=1e-6)
    assert found.converged and found.n_clusters == codes.size
    assert found.points == pytest.approx(fit_points(a, b, y, w, n_systems=6, anchor=2).points)


def test_the_interval_is_points_plus_minus_a_rescaled_student_t_standard_error():
    a, b, y, w, case = _data(1)
    found = bootstrap_points(a, b, y, w, cluster=case, n_systems=6, rng=3, anchor=0)
    k = found.n_clusters
    sd = np.std(found.replicates, axis=0)
    half = student_t.ppf(0.975, k - 1) * math.sqrt(k / (k - 1)) * sd
    assert found.low == pytest.approx(found.points - half)
    assert found.high == pytest.approx(found.points + half)
    assert (found.low[0], found.high[0]) == (1000.0, 1000.0)  # the anchor, by definition
    again = bootstrap_points(a, b, y, w, cluster=case, n_systems=6, rng=3, anchor=0)
    assert np.array_equal(found.low, again.low)  # seeded: the same interval again
    pct = bootstrap_points(
        a, b, y, w, cluster=case, n_systems=6, rng=3, anchor=0, method="percentile"
    )
    assert pct.low == pytest.approx(np.quantile(pct.replicates, 0.025, axis=0))


def test_systems_outside_the_anchors_component_get_no_interval():
    found = bootstrap_points(
        [0, 1, 2, 0], [1, 0, 3, 1], [1, 0.5, 1, 0], cluster=[0, 1, 2, 3], n_systems=5, rng=0
    )
    assert np.isnan(found.low[2:]).all() and np.isfinite(found.low[:2]).all()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"penalty": 0.0}, "penalty"),
        ({"cluster": [0, 1]}, "cluster"),
        ({"method": "bca"}, "method"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"confidence_level": 1.0}, "confidence_level"),
    ],
)
def test_bad_arguments_are_named(kwargs, name):
    args = {"cluster": [0, 1, 2], "n_systems": 2, "rng": 0, **kwargs}
    with pytest.raises(ValueError, match=f"`{name}`"):
        bootstrap_points([0, 1, 0], [1, 0, 1], [1, 1, 0], **args)


def _calibration():
    sys.path.insert(0, str(REPO))
    from benchmarks import interval_calibration

    return interval_calibration


def test_intervals_cover_the_truth_in_a_small_regime():
    # 200 simulated rounds of 8 systems and 252 votes (every system at the region's edge of
    # 60 votes), as benchmarks/interval_calibration.py runs 1,000 of each regime.
    calibration = _calibration()
    found = calibration.run_regime(
        (calibration.Regime(8, 252, "biased"), 200, 5, "simulated", "default")
    )
    assert found["shown"] >= 190
    assert 0.925 <= found["coverage"] <= 0.975, found


@pytest.mark.slow
@pytest.mark.parametrize(
    "regime", ["3x90 plain", "8x1000 settled", "20x760 biased", "20x2000 plain"]
)
def test_intervals_cover_93_to_97_percent_over_1000_rounds(regime):
    calibration = _calibration()
    size, variant = regime.split()
    n, votes = map(int, size.split("x"))
    found = calibration.run_regime(
        (calibration.Regime(n, votes, variant), 1000, 17, "simulated", "default")
    )
    assert 0.93 <= found["coverage"] <= 0.97, found
