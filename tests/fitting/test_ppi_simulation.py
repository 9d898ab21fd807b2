"""The core of ``benchmarks/ppi_simulation.py``: what its designs and predictions must be
whatever the draw (unsure-first frequencies and weights, the calibrated judge's means), a
few draws end to end, and, with ``--runslow``, coverage at a small scale."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ps():
    sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
    from benchmarks import ppi_simulation

    return ppi_simulation


@pytest.fixture(scope="module")
def world(ps):
    return ps.make_world()


def _unsure(ps, world, seed=0, judge=0):
    forward, backward = ps.judge_verdicts(world, ps.JUDGES[judge], np.random.default_rng(seed))
    return forward, backward, ps.unsure_of((forward + backward) / 2)


def test_unsure_first_probabilities_and_weights(ps, world):
    _, _, unsure = _unsure(ps, world)
    pi = ps.selection_probabilities(world, unsure)
    m = np.bincount(world.pair, minlength=world.n_pairs)
    # pi sums to 1 within each system pair, unsure items k times as likely as sure ones.
    np.testing.assert_allclose(np.bincount(world.pair, weights=pi), 1.0, atol=1e-12)
    some = np.flatnonzero(unsure)[0], np.flatnonzero(~unsure)[0]
    same_pair = world.pair == world.pair[some[0]]
    assert np.ptp(pi[same_pair & unsure]) < 1e-15 and np.ptp(pi[same_pair & ~unsure]) < 1e-15
    ratio = pi[same_pair & unsure][0] / pi[same_pair & ~unsure][0]
    assert ratio == pytest.approx(ps.UNSURE_K)
    # The weights 1/(m pi) average 1 within a pair over the draw's distribution.
    weight = 1.0 / (m[world.pair] * pi)
    np.testing.assert_allclose(np.bincount(world.pair, weights=pi * weight), 1.0, atol=1e-12)


def test_unsure_first_draws_cases_with_probability_pi(ps, world):
    _, _, unsure = _unsure(ps, world, seed=1)
    rng = np.random.default_rng(2)
    n = 45 * 400
    items, y, prob = ps.design(world, "unsure", n, unsure, rng)
    pi = ps.selection_probabilities(world, unsure)
    np.testing.assert_array_equal(prob, pi[items])
    counts = np.bincount(world.pair[items], minlength=world.n_pairs)
    assert np.all(counts == n // world.n_pairs)  # system pairs in turn
    # Per pair, the share of draws on unsure items is sum(pi over them): within 5 SE.
    expected = np.bincount(world.pair, weights=pi * unsure, minlength=world.n_pairs)
    found = np.bincount(world.pair[items], weights=unsure[items], minlength=world.n_pairs)
    se = np.sqrt(counts * expected * (1 - expected))
    assert np.all(np.abs(found - counts * expected) <= 5 * se + 1)
    # Every item's count over all pairs against n_s pi: a chi-square far from extreme.
    per_item = np.bincount(items, minlength=world.pair.size)
    mean = counts[world.pair] * pi
    chi2 = float(np.sum((per_item - mean) ** 2 / mean))
    dof = world.pair.size - world.n_pairs
    assert abs(chi2 - dof) < 6 * np.sqrt(2 * dof)
    # The inverse-probability weights average about 1 within each pair.
    w = 1.0 / (np.bincount(world.pair)[world.pair[items]] * prob)
    mean_w = np.bincount(world.pair[items], weights=w) / counts
    assert np.all(np.abs(mean_w - 1.0) < 0.15)
    assert set(np.unique(y)) <= {0.0, 0.5, 1.0}


@pytest.mark.parametrize("name", ["coverage", "adaptive"])
def test_pair_designs_vote_distinct_items(ps, world, name):
    rng = np.random.default_rng(3)
    n = 1200
    items, y, prob = ps.design(world, name, n, np.zeros(world.pair.size, dtype=bool), rng)
    assert prob is None and items.size == n and np.unique(items).size == n
    counts = np.bincount(world.pair[items], minlength=world.n_pairs)
    assert counts.min() >= ps.COVER_EACH  # every pair covered first
    if name == "adaptive":
        # The closest systems (neighbours) are voted on more than the farthest.
        i, j = np.triu_indices(ps.N_SYSTEMS, k=1)
        near, far = counts[j - i == 1].mean(), counts[j - i == ps.N_SYSTEMS - 1].mean()
        assert near > 2 * far


def test_calibrated_judge_keeps_each_pairs_mean_outcome(ps, world):
    forward, backward, _ = _unsure(ps, world, seed=4, judge=1)
    found = ps.calibrated(world, forward, backward)
    assert np.all((found >= 0) & (found <= 1))
    np.testing.assert_allclose(
        np.bincount(world.pair, weights=found), np.bincount(world.pair, weights=world.expected)
    )


def test_told_which_calibrates_on_the_wrong_way_flags(ps, world):
    forward, backward, _ = _unsure(ps, world, seed=4)
    known = ps.told_which(world, forward, backward)
    found = ps.calibrated(world, forward, backward, known)
    assert np.all((found >= 0) & (found <= 1))
    np.testing.assert_allclose(
        np.bincount(world.pair, weights=found), np.bincount(world.pair, weights=world.expected)
    )
    # A tie verdict is never wrong-way; a decisive verdict is, when it points away.
    assert not np.any(ps.wrong_way(world, np.full(world.pair.size, 0.5)))
    away = (forward == 1.0) & (world.expected < 0.5) | (forward == 0.0) & (world.expected > 0.5)
    np.testing.assert_array_equal(known % 2 == 1, away)
    # Told which, the prediction sides with the expected outcome wherever a verdict is decisive.
    decisive = (forward != 0.5) & (world.expected != 0.5)
    np.testing.assert_array_equal(found[decisive] >= 0.5, world.expected[decisive] > 0.5)
    # And, given more, it is closer to the expected outcome than the judge calibrated alone.
    plain = ps.calibrated(world, forward, backward)
    assert np.mean((found - world.expected) ** 2) < np.mean((plain - world.expected) ** 2)


def test_votes_for_interpolates_log_width(ps):
    # width = 80 * sqrt(1000 / n): 80 at n = 1000, whatever the grid around it.
    widths = {n: 80 * np.sqrt(1000 / n) for n in (500, 2000)}
    assert ps.votes_for(widths, 80.0) == pytest.approx(1000.0)
    assert ps.votes_for({n: 80 * np.sqrt(1000 / n) for n in (1500, 2000)}, 80.0) == pytest.approx(
        1000.0
    )


@pytest.mark.parametrize("name", ["coverage", "adaptive", "unsure"])
def test_a_few_draws_end_to_end(ps, world, name):
    for draw in range(2):
        out = ps.one_draw(world, ps.JUDGES[0], name, 600, [5, draw])
        assert not out["wider"]  # never wider than the rater alone
        assert 0 <= out["ppi"]["held"] <= 9 and 0.0 <= out["ppi"]["lam"] <= 1.0
        assert out["ppi"]["width"] <= out["rater"]["width"] * (1 + 1e-9)
        assert ("perfect" in out) == ("which" in out) == (name == "coverage")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["coverage", "adaptive", "unsure"])
def test_coverage_at_a_small_scale(ps, world, name):
    draws = 80
    held = sum(
        ps.one_draw(world, ps.JUDGES[0], name, 1500, [7, d])["ppi"]["held"] for d in range(draws)
    )
    assert 0.91 <= held / (9 * draws) <= 0.985
