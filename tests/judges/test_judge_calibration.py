"""The judges page's intervals hold what each figure estimates: benchmarks/judge_calibration.py
(a simulated rater and judge with planted agreement, position and length leans). The planted
values are checked against large samples and the krippendorff package; the 500-run coverage
check runs with --runslow."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import judge_calibration as calibration

BAND = (0.93, 0.97)


@pytest.fixture(scope="module")
def planted():
    return calibration.planted(calibration.Traits(), np.random.default_rng(20261204))


def test_planted_shares_are_what_a_large_sample_counts(planted):
    """Answers drawn for 200,000 items, counted as `compare` counts them."""
    rng = np.random.default_rng(1)
    items = calibration.draw_items(rng, 200_000, calibration.Traits())
    rater, first, second = (
        calibration._pick(p, rng.random(p.shape[0])) - 1
        for p in (items.rater, items.in_order, items.swapped)
    )
    judge = np.where(first == second, first, 0)
    decisive = (rater != 0) & (judge != 0)
    counted = {
        "agreement_with_ties": np.mean(rater == judge),
        "agreement_without_ties": np.mean(rater[decisive] == judge[decisive]),
        "position_consistency": np.mean(first == second),
        "first_position_preference": ((first == -1).sum() + (second == 1).sum())
        / ((first != 0).sum() + (second != 0).sum()),
    }
    for name, value in counted.items():
        assert planted[name] == pytest.approx(value, abs=0.005), name
    from krippendorff import alpha
    from sklearn.metrics import cohen_kappa_score

    assert planted["kappa"] == pytest.approx(cohen_kappa_score(rater, judge), abs=0.01)
    table = np.stack([rater, judge]).astype(float)[:, :20_000]
    assert planted["alpha"] == pytest.approx(
        alpha(reliability_data=table, level_of_measurement="ordinal"), abs=0.02
    )


def test_the_planted_leans_and_tau_are_the_ones_built_in(planted):
    assert planted["first_position_preference"] > 0.55  # the lean toward the first shown
    assert planted["length_bias"] > 50  # toward the longer answer, in points per SD
    assert planted["board_tau"] == pytest.approx(11 / 15)  # two neighbour pairs swapped
    assert planted["board"][0] == planted["rater_board"][0] == 1000.0  # the anchor


def test_a_few_runs_go_through_the_page_and_are_counted():
    result = calibration.calibrate(3, 150)
    coverage, counted = result["coverage"], result["intervals"]
    assert set(coverage) >= {*calibration.FIGURES, "alpha", "board", "rater_board"}
    assert all(0 <= share <= 1 for name, share in coverage.items() if name != "board_tau")
    assert counted["board"] == 3 * 5 and counted["kappa"] == 3  # the anchor is not counted
    # 150 items give each system about 44 decisive votes: too few for τ's interval.
    assert counted["board_tau"] == 0 and coverage["board_tau"] is None
    assert result["figures"]["board_tau"] == 3


@pytest.mark.slow
def test_every_interval_holds_its_planted_value_in_93_to_97_percent_of_500_runs():
    result = calibration.calibrate(500, 600)
    coverage = result["coverage"]
    outside = {
        name: share
        for name, share in coverage.items()
        if name not in ("bca_tau", "percentile_tau") and not BAND[0] <= share <= BAND[1]
    }
    assert not outside, outside
    # Every figure shows its interval in nearly every run: none is kept from the count.
    shown = {name: result["intervals"][name] / result["figures"][name] for name in coverage}
    assert min(shown.values()) >= 0.9, shown
