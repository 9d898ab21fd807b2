"""Length bias: Bradley–Terry with the relative length difference as a covariate."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _graph
from ._comparisons import Comparisons, aggregate, comparisons_iv, solver_settings_iv
from .bradley_terry import newton
from .points import DEFAULT_PENALTY, POINTS_PER_LOGIT


class CovariateObjective:
    """Negative log-likelihood of ``logit P(a wins) = s_a - s_b + beta * z``.

    The strengths ``s`` carry the ridge penalty ``(lambda/2)*||s||^2``; the
    covariate coefficient ``beta`` (the last parameter) is not penalized.

    Parameters
    ----------
    comparisons : Comparisons
        Validated comparisons (``a``, ``b``, ``y``, ``w``).
    z : ndarray
        Covariate of each comparison (for length bias: standardised
        ``(len_a - len_b) / (len_a + len_b)``).
    penalty : float
        Ridge penalty on the strengths.
    """

    def __init__(self, comparisons: Comparisons, z: NDArray[np.float64], penalty: float) -> None:
        self._c = comparisons
        self._z = z
        self._penalty = float(penalty)
        self._n = comparisons.n_systems
        self.n_params = comparisons.n_systems + 1

    @property
    def total_weight(self) -> float:
        """Sum of the comparison weights."""
        return float(self._c.w.sum())

    def objective(self, params: NDArray[np.float64]) -> float:
        """Negative penalized log-likelihood."""
        return self.evaluate(params)[0]

    def gradient(self, params: NDArray[np.float64]) -> NDArray[np.float64]:
        """Gradient of :meth:`objective`."""
        return self.evaluate(params)[1]

    def hessian(self, params: NDArray[np.float64]) -> NDArray[np.float64]:
        """Hessian of :meth:`objective`."""
        return self.evaluate(params)[2]

    def evaluate(
        self, params: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        """Objective, gradient and Hessian in one pass over the comparisons."""
        c, z, n = self._c, self._z, self._n
        s, beta = params[:n], params[n]
        eta = s[c.a] - s[c.b] + beta * z
        value = float(np.dot(c.w, np.logaddexp(0.0, eta) - c.y * eta))
        value += 0.5 * self._penalty * float(np.dot(s, s))

        prob = 0.5 * (1.0 + np.tanh(0.5 * eta))  # sigma(eta) without overflow
        residual = c.w * (prob - c.y)
        grad = np.empty(n + 1)
        grad[:n] = _spread(c, residual, n) + self._penalty * s
        grad[n] = np.dot(residual, z)

        curvature = c.w * prob * (1.0 - prob)
        per_pair = np.bincount(c.a * n + c.b, weights=curvature, minlength=n * n).reshape(n, n)
        per_pair += per_pair.T
        hess = np.zeros((n + 1, n + 1))
        hess[:n, :n] = -per_pair
        hess[np.arange(n), np.arange(n)] = per_pair.sum(axis=1) + self._penalty
        cross = _spread(c, curvature * z, n)
        hess[:n, n] = cross
        hess[n, :n] = cross
        hess[n, n] = np.dot(curvature, z * z)
        return value, grad, hess


def _spread(c: Comparisons, values: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    # +value to side a, -value to side b of each comparison.
    plus = np.bincount(c.a, weights=values, minlength=n)
    return np.asarray(plus - np.bincount(c.b, weights=values, minlength=n), dtype=np.float64)


@dataclass(frozen=True)
class LengthBiasResult:
    """Result of :func:`length_bias`.

    Attributes
    ----------
    points_per_sd : float
        The covariate's coefficient in points (``x 400/ln 10``) per standard
        deviation of the relative length difference; positive = the rater
        favours the longer output. NaN when the lengths never differ.
    coefficient : float
        The same in log-odds per standard deviation.
    sd : float
        Standard deviation of ``(len_a - len_b) / (len_a + len_b)`` over the
        comparisons with positive weight.
    n_comparisons : int
        Comparisons with positive weight.
    strengths : ndarray
        Fitted log-strengths alongside the covariate.
    penalty : float
        Ridge penalty on the strengths (the covariate is never penalized).
    iterations : int
        Newton steps taken.
    converged : bool
        Whether the gradient tolerance was reached.
    """

    points_per_sd: float
    coefficient: float
    sd: float
    n_comparisons: int
    strengths: NDArray[np.float64]
    penalty: float
    iterations: int
    converged: bool


def length_bias(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    len_a: ArrayLike,
    len_b: ArrayLike,
    w: ArrayLike | None = None,
    *,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> LengthBiasResult:
    """Estimate how far votes lean toward the longer output.

    Fits ``logit P(a wins) = s_a - s_b + beta * d / sd(d)`` with
    ``d = (len_a - len_b) / (len_a + len_b)``, the strengths penalized as in
    :func:`~fitting.fit_points` and ``beta`` unpenalized (a penalty on it
    shrinks the bias several-fold). Pass the two sides in their shown order
    (``a`` = left) for the rater's votes; for diff families pass diff lengths.

    Parameters
    ----------
    a, b, y, w, n_systems
        Comparisons, as for :func:`~fitting.fit_points`.
    len_a, len_b : array_like of float
        Length of each side's output (characters, or diff lines/characters).
    penalty : float, optional
        Ridge penalty on the strengths. With 0, comparisons between systems
        in different strongly connected parts of the win graph are left out,
        as they are in :func:`~fitting.fit_points`.
    tol, max_iter
        Newton stopping rule, as for :func:`~fitting.fit_points`.

    Returns
    -------
    LengthBiasResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    comparisons, d = _length_bias_iv(a, b, y, len_a, len_b, w, n_systems, penalty, tol, max_iter)
    n = comparisons.n_systems
    live = comparisons.w > 0
    sd = float(np.std(d[live])) if np.any(live) else 0.0
    if not sd > 0:
        return LengthBiasResult(
            points_per_sd=math.nan,
            coefficient=math.nan,
            sd=sd,
            n_comparisons=int(live.sum()),
            strengths=np.zeros(n),
            penalty=float(penalty),
            iterations=0,
            converged=False,
        )
    gauge = None
    if penalty == 0:
        group = _graph.strong_components(aggregate(comparisons).wins)
        inside = group[comparisons.a] == group[comparisons.b]
        comparisons = dataclasses.replace(comparisons, w=np.where(inside, comparisons.w, 0.0))
        gauge = np.append(group, -1)
    fit = newton(
        CovariateObjective(comparisons, d / sd, penalty), gauge=gauge, tol=tol, max_iter=max_iter
    )
    beta = float(fit.params[n])
    return LengthBiasResult(
        points_per_sd=POINTS_PER_LOGIT * beta,
        coefficient=beta,
        sd=sd,
        n_comparisons=int(live.sum()),
        strengths=fit.params[:n],
        penalty=float(penalty),
        iterations=fit.iterations,
        converged=fit.converged,
    )


def _length_bias_iv(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    len_a: ArrayLike,
    len_b: ArrayLike,
    w: ArrayLike | None,
    n_systems: int,
    penalty: float,
    tol: float,
    max_iter: int,
) -> tuple[Comparisons, NDArray[np.float64]]:
    comparisons = comparisons_iv(a, b, y, w, n_systems)
    size = comparisons.a.shape[0]
    lengths = []
    for name, values in (("len_a", len_a), ("len_b", len_b)):
        arr = np.asarray(values, dtype=np.float64)
        if arr.shape != (size,):
            raise ValueError(f"`{name}` must be one-dimensional with the same length as `a`.")
        if not np.all(np.isfinite(arr) & (arr >= 0)):
            raise ValueError(f"`{name}` must be finite and non-negative.")
        lengths.append(arr)
    both = lengths[0] + lengths[1]
    if np.any(both <= 0):
        raise ValueError("`len_a` and `len_b` must not both be zero in a comparison.")
    solver_settings_iv(penalty, tol, max_iter)
    return comparisons, (lengths[0] - lengths[1]) / both
