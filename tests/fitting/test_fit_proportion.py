"""Wilson's interval without scipy.stats: SciPy's numbers, bit for bit."""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from fitting import proportion_interval


def test_proportion_interval_is_scipys_wilson_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    cases = [(k, n) for n in range(1, 60) for k in range(n + 1)]
    cases += [(int(rng.integers(0, n + 1)), int(n)) for n in rng.integers(60, 10**7, size=500)]
    for level in (0.95, 0.9, 0.5, 0.999):
        for k, n in cases:
            found = binomtest(k, n).proportion_ci(level, method="wilson")
            assert proportion_interval(k, n, confidence_level=level) == (
                float(found.low),
                float(found.high),
            ), (k, n, level)
