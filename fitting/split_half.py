"""Split-half reliability: Kendall's tau-b between odd- and even-session fits."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import kendalltau

from .points import DEFAULT_PENALTY, PointsResult, fit_points


@dataclass(frozen=True)
class SplitHalfResult:
    """Result of :func:`split_half_tau`.

    Attributes
    ----------
    tau : float
        Kendall's tau-b between the points of the two halves over the systems
        ranked in both; NaN with fewer than two such systems (or no variation).
    n_systems : int
        Systems ranked in both halves.
    both : ndarray of bool
        Mask of those systems.
    odd, even : PointsResult
        The fits of the odd- and even-numbered sessions.
    """

    tau: float
    n_systems: int
    both: NDArray[np.bool_]
    odd: PointsResult
    even: PointsResult


def split_half_tau(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    w: ArrayLike | None = None,
    *,
    session: ArrayLike,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    anchor: int | None = None,
) -> SplitHalfResult:
    """Kendall's tau-b between the orders fitted to odd and to even sessions.

    Each half is fitted with :func:`~fitting.fit_points` (same penalty and
    anchor rule); only systems ranked in both halves are compared.

    Parameters
    ----------
    a, b, y, w, n_systems, penalty, anchor
        As for :func:`~fitting.fit_points`; pass the human votes only.
    session : array_like of int
        Session number (1, 2, 3, ...) of each comparison.

    Returns
    -------
    SplitHalfResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    sessions = np.asarray(session)
    size = np.shape(a)[0] if np.ndim(a) == 1 else -1
    if sessions.ndim != 1 or sessions.shape[0] != size:
        raise ValueError("`session` must be one-dimensional with the same length as `a`.")
    if sessions.size and (not np.issubdtype(sessions.dtype, np.integer) or sessions.min() < 1):
        raise ValueError("`session` must hold session numbers >= 1.")
    a_arr, b_arr, y_arr = np.asarray(a), np.asarray(b), np.asarray(y)
    w_arr = None if w is None else np.asarray(w)
    odd_mask = sessions % 2 == 1
    halves = []
    for mask in (odd_mask, ~odd_mask):
        halves.append(
            fit_points(
                a_arr[mask],
                b_arr[mask],
                y_arr[mask],
                None if w_arr is None else w_arr[mask],
                n_systems=n_systems,
                penalty=penalty,
                anchor=anchor,
            )
        )
    odd, even = halves
    both = odd.ranked & even.ranked
    x, z = odd.points[both], even.points[both]
    tau = math.nan
    # With one system, or all points equal in a half, tau-b is undefined.
    if x.size >= 2 and np.ptp(x) > 0 and np.ptp(z) > 0:
        tau = float(kendalltau(x, z, variant="b").statistic)
    return SplitHalfResult(
        tau=tau, n_systems=int(np.count_nonzero(both)), both=both, odd=odd, even=even
    )
