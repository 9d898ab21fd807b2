"""Split-half reliability: Kendall's tau-b between odd- and even-session fits."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._kendall import kendall_tau_b
from .points import DEFAULT_PENALTY, PointsResult, fit_points
from .points_interval import bootstrap_points


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
    null_p : float
        How often random votes would give ``tau`` or more: the one-sided p-value of
        Kendall's test of independence (random votes order each half's systems at
        random, independently of the other); NaN when ``tau`` is.
    """

    tau: float
    n_systems: int
    both: NDArray[np.bool_]
    odd: PointsResult
    even: PointsResult
    null_p: float = math.nan


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
    tau = null_p = math.nan
    # With one system, or all points equal in a half, tau-b is undefined.
    if x.size >= 2 and np.ptp(x) > 0 and np.ptp(z) > 0:
        tau, null_p = kendall_tau_b(x, z)
    return SplitHalfResult(
        tau=tau,
        n_systems=int(np.count_nonzero(both)),
        both=both,
        odd=odd,
        even=even,
        null_p=null_p,
    )


def split_half_interval(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    w: ArrayLike | None = None,
    *,
    session: ArrayLike,
    cluster: ArrayLike,
    n_systems: int,
    rng: np.random.Generator | int,
    penalty: float = DEFAULT_PENALTY,
    confidence_level: float = 0.95,
    n_resamples: int = 200,
) -> tuple[float, float]:
    """Percentile interval of the split-half tau from a cluster bootstrap of each half.

    Each half's comparisons are resampled by ``cluster`` (e.g. the case) with
    :func:`~fitting.bootstrap_points`; the tau of each pair of replicates (the
    i-th of the odd half against the i-th of the even) over the systems ranked
    in both makes the bootstrap distribution. (NaN, NaN) when no replicate has a
    tau.

    Parameters
    ----------
    a, b, y, w, session, n_systems, penalty
        As for :func:`split_half_tau`.
    cluster : array_like of int
        The cluster of each comparison.
    rng : numpy.random.Generator or int
        Source of randomness, or a seed for ``numpy.random.default_rng``.
    confidence_level : float, optional
        Coverage of the two-sided interval, in (0, 1).
    n_resamples : int, optional
        Replicates of each half.

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    sessions = np.asarray(session)
    a_arr, b_arr, y_arr = np.asarray(a), np.asarray(b), np.asarray(y)
    w_arr = np.ones(a_arr.shape) if w is None else np.asarray(w, dtype=float)
    labels = np.asarray(cluster)
    if sessions.shape != a_arr.shape or labels.shape != a_arr.shape:
        raise ValueError("`session` and `cluster` must have one entry per comparison.")
    if not 0 < confidence_level < 1:
        raise ValueError("`confidence_level` must be in (0, 1).")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    odd_mask = sessions % 2 == 1
    replicates = [
        bootstrap_points(
            a_arr[mask],
            b_arr[mask],
            y_arr[mask],
            w_arr[mask],
            cluster=labels[mask],
            n_systems=n_systems,
            rng=generator,
            penalty=penalty,
            n_resamples=n_resamples,
        ).replicates
        for mask in (odd_mask, ~odd_mask)
    ]
    both = np.isfinite(replicates[0]).all(axis=0) & np.isfinite(replicates[1]).all(axis=0)
    if np.count_nonzero(both) < 2:
        return math.nan, math.nan
    taus = tau_b_rows(replicates[0][:, both], replicates[1][:, both])
    taus = taus[np.isfinite(taus)]
    if not taus.size:
        return math.nan, math.nan
    alpha = (1.0 - confidence_level) / 2.0
    low, high = np.quantile(taus, [alpha, 1.0 - alpha])
    return float(low), float(high)


def tau_b_rows(x: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kendall's tau-b between each row of ``x`` and the same row of ``z`` (shape
    ``(rows, n)``); NaN for a row where either is constant."""
    upper = np.triu_indices(x.shape[1], 1)
    sx = np.sign(x[:, upper[0]] - x[:, upper[1]])
    sz = np.sign(z[:, upper[0]] - z[:, upper[1]])
    untied = np.count_nonzero(sx, axis=1) * np.count_nonzero(sz, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, (sx * sz).sum(axis=1) / np.sqrt(untied), np.nan)
