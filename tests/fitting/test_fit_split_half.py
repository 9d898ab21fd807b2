"""fitting.split_half: Kendall tau-b between odd- and even-session fits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fitting import split_half_tau


def test_identical_halves_give_tau_one():
    a = np.array([0, 1, 2, 0, 1, 2] * 2)
    b = np.array([1, 2, 3, 2, 3, 3] * 2)
    y = np.array([1, 1, 1, 1, 0.5, 1] * 2, dtype=float)
    session = np.repeat([1, 2], 6)
    result = split_half_tau(a, b, y, session=session, n_systems=4)
    assert result.tau == pytest.approx(1.0) and result.n_systems == 4


def test_reversed_halves_give_tau_minus_one():
    a = np.array([0, 1, 2, 0, 1, 2])
    b = np.array([1, 2, 3, 2, 3, 3])
    y = np.ones(6)
    a2, b2 = np.concatenate([a, a]), np.concatenate([b, b])
    y2 = np.concatenate([y, 1 - y])
    result = split_half_tau(a2, b2, y2, session=np.repeat([3, 4], 6), n_systems=4)
    assert result.tau == pytest.approx(-1.0)


def test_only_systems_ranked_in_both_halves_count():
    # System 3 only appears in the even session.
    a = np.array([0, 1, 0, 0, 1, 0, 3])
    b = np.array([1, 2, 2, 1, 2, 2, 0])
    y = np.array([1, 1, 1, 1, 1, 1, 1.0])
    session = np.array([1, 1, 1, 2, 2, 2, 2])
    result = split_half_tau(a, b, y, session=session, n_systems=5)
    assert list(result.both) == [True, True, True, False, False]
    assert result.n_systems == 3 and result.tau == pytest.approx(1.0)


def test_fewer_than_two_shared_systems_give_nan():
    result = split_half_tau([0, 2], [1, 3], [1.0, 1.0], session=[1, 2], n_systems=4)
    assert math.isnan(result.tau) and result.n_systems == 0


def test_strong_planted_order_is_reproduced_across_halves(simulate_rater):
    sim = simulate_rater(np.random.default_rng(4), n_systems=12, n_votes=12_000, spread=1.5)
    result = split_half_tau(sim.a, sim.b, sim.y, session=sim.session, n_systems=12)
    assert result.tau > 0.8


def test_bad_sessions_raise_value_errors_naming_them():
    with pytest.raises(ValueError, match="`session`"):
        split_half_tau([0], [1], [1.0], session=[0], n_systems=2)
    with pytest.raises(ValueError, match="`session`"):
        split_half_tau([0], [1], [1.0], session=[1, 2], n_systems=2)
