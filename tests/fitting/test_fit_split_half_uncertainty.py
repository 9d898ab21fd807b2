"""The split-half τ's uncertainty: its bootstrap interval, what random votes would give,
and Wilson's interval of a share (rater agreement, the side preference)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from fitting import proportion_interval, split_half_interval, split_half_tau
from fitting.split_half import tau_b_rows


@pytest.mark.parametrize(("k", "n"), [(7, 10), (0, 12), (12, 12), (231, 400)])
def test_wilsons_interval_follows_its_formula(k, n):
    z, p = 1.959963984540054, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert proportion_interval(k, n) == pytest.approx((centre - half, centre + half), abs=1e-12)


def test_a_share_of_nothing_has_no_interval_and_bad_counts_are_named():
    assert all(math.isnan(v) for v in proportion_interval(0, 0))
    with pytest.raises(ValueError, match="`successes`"):
        proportion_interval(5, 4)
    with pytest.raises(ValueError, match="`trials`"):
        proportion_interval(0, -1)


def test_tau_b_by_rows_is_scipys_tau_b_row_by_row():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(50, 6)).astype(float)  # ties on purpose
    z = rng.normal(size=(50, 6))
    z[:5] = 1.0  # constant rows: no τ
    found = tau_b_rows(x, z)
    for row, value in enumerate(found):
        expected = kendalltau(x[row], z[row], variant="b").statistic
        assert (math.isnan(value) and math.isnan(expected)) or value == pytest.approx(expected)


def _permutation_share(x: np.ndarray, z: np.ndarray) -> float:
    found = tau_b_rows(x[None], z[None])[0]
    orders = np.array(list(itertools.permutations(z)))
    return float(np.mean(tau_b_rows(np.repeat(x[None], len(orders), 0), orders) >= found - 1e-12))


def test_what_random_votes_would_give_is_the_exact_permutation_share():
    rng = np.random.default_rng(11)
    for _ in range(5):
        a, b, y, session = _votes(rng, systems=6, votes=240, random=False)
        split = split_half_tau(a, b, y, session=session, n_systems=6)
        x, z = split.odd.points[split.both], split.even.points[split.both]
        assert split.null_p == pytest.approx(_permutation_share(x, z), abs=1e-9)


def _votes(rng: np.random.Generator, *, systems: int, votes: int, random: bool):
    """Votes between ``systems`` of spread strengths (or, with ``random``, a coin's),
    alternating over four sessions."""
    a = rng.integers(0, systems, votes)
    b = (a + rng.integers(1, systems, votes)) % systems
    strength = np.linspace(-1.5, 1.5, systems)
    p = np.full(votes, 0.5) if random else 1 / (1 + np.exp(strength[b] - strength[a]))
    y = (rng.random(votes) < p).astype(float)
    return a, b, y, np.arange(votes) % 4 + 1


def _random_rounds(rounds: int, seed: int) -> tuple[int, int]:
    """Of ``rounds`` rounds of random votes: how many τ intervals hold 0, and how many
    τ reach a share of random votes of at least 0.05."""
    rng = np.random.default_rng(seed)
    holds = reaches = 0
    for _ in range(rounds):
        a, b, y, session = _votes(rng, systems=8, votes=400, random=True)
        cases = rng.integers(0, 100, len(a))
        split = split_half_tau(a, b, y, session=session, n_systems=8, penalty=0.01)
        low, high = split_half_interval(
            a, b, y, session=session, cluster=cases, n_systems=8, rng=rng, penalty=0.01
        )
        holds += low <= 0 <= high
        reaches += split.null_p >= 0.05
    return holds, reaches


def test_random_votes_mostly_give_an_interval_holding_zero():
    holds, reaches = _random_rounds(40, seed=5)
    assert holds >= 36 and reaches >= 36, (holds, reaches)


@pytest.mark.slow
def test_random_votes_give_an_interval_holding_zero_in_95_percent_of_500_rounds():
    holds, reaches = _random_rounds(500, seed=7)
    assert holds >= 475 and reaches >= 475, (holds, reaches)


def test_a_consistent_rater_gets_an_interval_above_zero():
    rng = np.random.default_rng(2)
    a, b, y, session = _votes(rng, systems=8, votes=800, random=False)
    split = split_half_tau(a, b, y, session=session, n_systems=8, penalty=0.01)
    low, high = split_half_interval(
        a,
        b,
        y,
        session=session,
        cluster=np.arange(len(a)) // 4,
        n_systems=8,
        rng=rng,
        penalty=0.01,
    )
    assert 0 < low <= high <= 1 and split.null_p < 0.01
