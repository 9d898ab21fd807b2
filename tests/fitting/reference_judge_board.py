"""The length bias's interval as fitting/judge_board.py computed it before its resamples
were refitted all at once (one ``length_bias`` fit per resample): the oracle the tests
compare it with. Not used by Arena."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import stdtrit

from fitting import CaseComparisons, Estimate, length_bias
from fitting.defaults import DEFAULT_PENALTY


def length_bias_interval(
    votes: CaseComparisons,
    len_a,
    len_b,
    *,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    resamples: int = 200,
    rng=None,
) -> Estimate:
    la, lb = np.asarray(len_a, dtype=np.float64), np.asarray(len_b, dtype=np.float64)

    def bias(w):
        found = length_bias(
            votes.a, votes.b, votes.y, la, lb, w, n_systems=n_systems, penalty=penalty
        )
        return found.points_per_sd if found.identified else math.nan

    value = bias(None)
    count = int(np.count_nonzero(la != lb))
    if not math.isfinite(value):
        return Estimate(math.nan, math.nan, math.nan, count)
    generator = np.random.default_rng(rng)
    cases, inverse = np.unique(votes.case, return_inverse=True)
    k = cases.size
    counts = generator.multinomial(k, np.full(k, 1.0 / k), size=resamples)
    draws = np.array([bias(drawn[inverse].astype(np.float64)) for drawn in counts])
    draws = draws[np.isfinite(draws)]
    if draws.size < 2 or k < 2:
        return Estimate(value, math.nan, math.nan, count)
    half = stdtrit(k - 1, 1 - 0.05 / 2) * math.sqrt(k / (k - 1)) * np.std(draws)
    return Estimate(value, value - float(half), value + float(half), count)
