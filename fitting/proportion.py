"""A 95% interval for a share: Wilson's score interval.

Worked out as SciPy's ``binomtest(k, n).proportion_ci(method="wilson")`` does it, step by
step, so to the last bit the same (the tests check it): ``scipy.stats`` costs most of a
second to import, formatting the docstrings of its distributions.
"""

from __future__ import annotations

import math


def proportion_interval(
    successes: int, trials: int, *, confidence_level: float = 0.95
) -> tuple[float, float]:
    """Wilson's score interval of ``successes / trials``; (NaN, NaN) with no trials.

    Wilson's interval keeps its coverage near nominal for the small counts a round has
    (ten repeats, a few hundred decisive votes) and never leaves [0, 1], where the
    normal approximation does both.

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 0:
        raise ValueError("`trials` must be an integer >= 0.")
    if isinstance(successes, bool) or not isinstance(successes, int):
        raise ValueError("`successes` must be an integer.")
    if not 0 <= successes <= trials:
        raise ValueError("`successes` must be between 0 and `trials`.")
    if not 0 < confidence_level < 1:
        raise ValueError("`confidence_level` must be in (0, 1).")
    if trials == 0:
        return math.nan, math.nan
    # scipy.special formats no docstrings; a round close has it loaded for its fits.
    from scipy.special import ndtri

    n, p = trials, successes / trials
    z = ndtri(0.5 + 0.5 * confidence_level)
    # Newcombe (1998), as scipy.stats._binomtest._binom_wilson_conf_int.
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    low = 0.0 if successes == 0 else center - delta
    high = 1.0 if successes == trials else center + delta
    return float(low), float(high)
