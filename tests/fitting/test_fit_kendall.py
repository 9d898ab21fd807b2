"""Kendall's tau-b without scipy.stats: SciPy's numbers, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from fitting._kendall import kendall_tau_b


def _scipy(x, y) -> tuple[float, float]:
    found = kendalltau(x, y, variant="b", alternative="greater")
    return float(found.statistic), float(found.pvalue)


def _same(found: tuple[float, float], expected: tuple[float, float]) -> bool:
    return all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(found, expected, strict=True)
    )


@pytest.mark.parametrize("size", [2, 3, 5, 12, 33, 34, 60, 200, 1500])
def test_kendall_tau_b_is_scipys_bit_for_bit(size: int) -> None:
    rng = np.random.default_rng(size)
    for trial in range(40):
        x = rng.normal(size=size)
        y = x * rng.uniform(-1, 2) + rng.normal(size=size)
        if trial % 4 == 1:  # ties: the asymptotic test
            x = np.round(x, 1)
        if trial % 4 == 2:
            y = np.round(y)
        assert _same(kendall_tau_b(x, y), _scipy(x, y)), (size, trial)


def test_kendall_tau_b_near_perfect_orders_take_the_exact_test() -> None:
    x = np.arange(50.0)
    for y in (x.copy(), x[::-1].copy(), np.r_[x[1::-1], x[2:]]):
        assert _same(kendall_tau_b(x, y), _scipy(x, y))


def test_kendall_tau_b_constant_side_is_nan() -> None:
    found = kendall_tau_b(np.ones(5), np.arange(5.0))
    assert math.isnan(found[0]) and math.isnan(found[1])
