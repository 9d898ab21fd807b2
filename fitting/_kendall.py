"""Kendall's tau-b and its test, as ``scipy.stats.kendalltau`` works them out.

The same steps in the same order, so the same numbers to the last bit (the tests check it
against SciPy): importing ``scipy.stats`` costs most of a second, formatting the docstrings
of its hundred distributions, which a round close has no use for.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

# Rows of pairs compared at once when counting discordant pairs: bounds the memory.
_BLOCK = 1024


def _discordant(x: NDArray[np.intp], y: NDArray[np.intp]) -> int:
    """Pairs with ``x`` strictly up and ``y`` strictly down (SciPy's ``_kendall_dis``)."""
    count = 0
    for start in range(0, x.size, _BLOCK):
        xs, ys = x[start : start + _BLOCK, None], y[start : start + _BLOCK, None]
        count += int(np.count_nonzero((xs < x[None, :]) & (ys > y[None, :])))
    return count


def _rank_ties(ranks: NDArray[np.intp]) -> tuple[int, int, int]:
    cnt = np.bincount(ranks).astype("int64", copy=False)
    cnt = cnt[cnt > 1]
    # Python ints, as SciPy's, so that nothing overflows further on.
    return (
        int((cnt * (cnt - 1) // 2).sum()),
        int((cnt * (cnt - 1.0) * (cnt - 2)).sum()),
        int((cnt * (cnt - 1.0) * (2 * cnt + 5)).sum()),
    )


def _exact_p(n: int, c: int, greater: bool) -> float:
    """One-sided p-value of ``c`` concordant pairs among ``n`` untied values (Kendall 1970),
    as SciPy's ``_kendall_p_exact``."""
    in_right_tail = c >= (n * (n - 1)) // 2 - c
    c = int(min(c, (n * (n - 1)) // 2 - c))
    if n == 1:
        prob, p_mass_at_c = 1.0, 1.0
    elif n == 2:
        prob, p_mass_at_c = 1.0, 0.5
    elif c == 0:
        prob = 2.0 / math.factorial(n) if n < 171 else 0.0
        p_mass_at_c = prob / 2
    elif c == 1:
        prob = 2.0 / math.factorial(n - 1) if n < 172 else 0.0
        p_mass_at_c = (n - 1) / math.factorial(n)
    elif n < 171:
        new = np.zeros(c + 1)
        new[0:2] = 1.0
        for j in range(3, n + 1):
            new = np.cumsum(new)
            if j <= c:
                new[j:] -= new[: c + 1 - j]
        prob = 2.0 * np.sum(new) / math.factorial(n)
        p_mass_at_c = new[-1] / math.factorial(n)
    else:
        new = np.zeros(c + 1)
        new[0:2] = 1.0
        for j in range(3, n + 1):
            new = np.cumsum(new) / j
            if j <= c:
                new[j:] -= new[: c + 1 - j]
        prob = np.sum(new)
        p_mass_at_c = new[-1] / 2
    prob = prob / 2 if in_right_tail == greater else 1 - prob / 2 + p_mass_at_c
    return float(np.clip(prob, 0, 1))


def kendall_tau_b(x: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    """Kendall's tau-b of ``x`` and ``y`` and the one-sided p-value of the test that they
    are independent against a positive association: ``kendalltau(x, y, variant="b",
    alternative="greater")``, method ``"auto"``. NaN, NaN when either is constant.

    ``x`` and ``y`` are one-dimensional, of one length of at least 2, without NaN.
    """
    x, y = np.asarray(x).ravel(), np.asarray(y).ravel()
    size = x.size
    perm = np.argsort(y)  # sort on y and turn y into dense ranks
    x, y = x[perm], y[perm]
    y_rank = np.r_[True, y[1:] != y[:-1]].cumsum(dtype=np.intp)
    perm = np.argsort(x, kind="mergesort")  # stable sort on x, x into dense ranks
    x, y_rank = x[perm], y_rank[perm]
    x_rank = np.r_[True, x[1:] != x[:-1]].cumsum(dtype=np.intp)

    dis = _discordant(x_rank, y_rank)
    obs = np.r_[True, (x_rank[1:] != x_rank[:-1]) | (y_rank[1:] != y_rank[:-1]), True]
    cnt = np.diff(np.nonzero(obs)[0]).astype("int64", copy=False)
    ntie = int((cnt * (cnt - 1) // 2).sum())  # joint ties
    xtie, x0, x1 = _rank_ties(x_rank)
    ytie, y0, y1 = _rank_ties(y_rank)
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return math.nan, math.nan

    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1.0, max(-1.0, tau))
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        return float(tau), _exact_p(size, tot - dis, greater=True)
    # con_minus_dis is about normal with this variance (Kendall 1970).
    m = size * (size - 1.0)
    var = (
        (m * (2 * size + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (size - 2))
    )
    z = con_minus_dis / np.sqrt(var)
    # scipy.special only here: loaded by then for the fits, and it formats no docstrings.
    from scipy.special import ndtr

    return float(tau), float(ndtr(-z))
