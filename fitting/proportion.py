"""A 95% interval for a share: Wilson's score interval (SciPy's ``binomtest``)."""

from __future__ import annotations

import math

from scipy.stats import binomtest


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
    found = binomtest(successes, trials).proportion_ci(confidence_level, method="wilson")
    return float(found.low), float(found.high)
