"""benchmarks/ppi_real_coverage.py's core on a few draws of the real Chatbot Arena half, when
../shared/realdata is present: only what holds whatever the draw (the coverage itself is the
benchmark's, recorded in benchmarks/README.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchmarks import ppi_real_coverage as bench
from fitting import DEFAULT_PENALTY, fit_points, fit_prediction_powered
from tests.conftest import REALDATA

DATA = REALDATA / "chatbot-arena-judges"
pytestmark = pytest.mark.skipif(
    not (DATA / "human.jsonl").is_file(), reason="no ../shared/realdata/chatbot-arena-judges"
)
DRAWS = 4


@pytest.fixture(scope="module")
def data():
    return bench.load(DATA)


@pytest.fixture(scope="module")
def target(data):
    return bench.truth(data)


@pytest.fixture(scope="module", params=[("gpt-4-0125-preview", 500), ("gpt-3.5-turbo", 1000)])
def cell(request, data, target):
    judge, n = request.param
    return n, bench.run_cell(data, judge, n, DRAWS, target=target, diagnose=True)


def test_the_data_is_what_source_md_describes(data, target):
    assert data.size == 13_459 and len(data.systems) == 20
    assert set(np.unique(data.y)) == {0.0, 0.5, 1.0}
    assert data.systems[target.anchor] == "vicuna-13b"  # the most compared


def test_ppi_is_never_wider_than_the_rater_alone_and_lam_is_a_weight(cell):
    n, found = cell
    rater, ppi, _ = found["width"]
    compared = ~np.isnan(rater)
    assert np.all(ppi[compared] <= rater[compared] * (1 + 1e-6))
    assert np.all((found["lam"] >= 0.0) & (found["lam"] <= found["lam_tuned"]))
    assert np.all((found["lam_tuned"] >= 0.0) & (found["lam_tuned"] <= 1.0))
    # Worth at least the votes it has (its mean variance is no larger).
    assert np.all(found["effective"][1] >= n * (1 - 1e-6))


def test_every_board_is_scored_on_the_same_systems_anchor_left_out(cell, target):
    _, found = cell
    for covered in found["covered"]:
        assert np.all(np.isnan(covered[:, target.anchor]))
        shown = ~np.isnan(covered)
        assert np.array_equal(shown, ~np.isnan(found["covered"][0]))
        assert set(np.unique(covered[shown])) <= {0.0, 1.0}


def test_the_draws_are_fixed_and_the_same_for_every_judge(data):
    first = bench.drawn(data, 500, 3)
    assert np.array_equal(first, bench.drawn(data, 500, 3))
    assert np.unique(first).size == 500
    assert not np.array_equal(first, bench.drawn(data, 500, 4))


def test_the_benchmarks_sandwich_is_the_ppi_fits_own_at_lam_zero(data, target):
    """The pooled board's intervals use the same variance as the PPI fit's."""
    votes = bench.drawn(data, 1000, 0)
    rest = np.setdiff1d(np.arange(data.size), votes)
    verdicts = data.judges["claude-3-opus-20240229"]
    anchor = int(target.anchor)
    ppi = fit_prediction_powered(
        data.a[votes], data.b[votes], data.y[votes], verdicts[votes],
        unlabeled_a=data.a[rest], unlabeled_b=data.b[rest], unlabeled_y_hat=verdicts[rest],
        n_systems=20, anchor=anchor, lam=0.0, n_resamples=1,
    )  # fmt: skip
    alone = fit_points(data.a[votes], data.b[votes], data.y[votes], n_systems=20, anchor=anchor)
    s = alone.strengths
    gradient = expit(s[data.a[votes]] - s[data.b[votes]]) - data.y[votes]
    var = bench.sandwich(
        s, data.a[votes], data.b[votes], np.ones(votes.size), gradient,
        np.zeros(votes.size, dtype=np.intp), DEFAULT_PENALTY, anchor, alone.ranked,
    )  # fmt: skip
    np.testing.assert_allclose(np.sqrt(var), ppi.rater_only_standard_error, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(alone.points, ppi.board.points, atol=1e-6)


def test_pooled_board_is_todays_rule_the_judge_weighing_as_much_as_the_votes(data, target):
    votes = bench.drawn(data, 500, 0)
    verdicts = data.judges["gpt-4-0125-preview"]
    points, se = bench.pooled_board(data, votes, verdicts, target.anchor)
    weight = np.concatenate([np.ones(500), np.full(data.size, 500 / data.size)])
    assert weight[500:].sum() == pytest.approx(500)
    pooled = fit_points(
        np.concatenate([data.a[votes], data.a]),
        np.concatenate([data.b[votes], data.b]),
        np.concatenate([data.y[votes], verdicts]),
        weight,
        n_systems=20,
        anchor=target.anchor,
    )
    np.testing.assert_allclose(points, pooled.points, atol=1e-9)
    assert points[target.anchor] == 1000.0 and se[target.anchor] == 0.0
    assert np.all(np.isfinite(se)) and np.all(se >= 0.0)
