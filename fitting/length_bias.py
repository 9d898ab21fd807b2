"""Length bias: Bradley–Terry with the relative length difference as a covariate."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from . import _graph
from ._comparisons import Comparisons, aggregate, comparisons_iv, solver_settings_iv
from .bradley_terry import SmoothObjective, newton
from .defaults import MIN_LENGTH_COMPARISONS
from .points import DEFAULT_PENALTY, POINTS_PER_LOGIT

# Why a coefficient cannot be told (``LengthBiasResult.reason``).
NO_SPREAD = "no_length_spread"
TOO_FEW = "too_few_comparisons"
SEPARABLE = "separable"
NOT_CONVERGED = "not_converged"


class CovariateObjective(SmoothObjective):
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
    standard_error : float
        Standard error of ``points_per_sd`` from the observed information (the
        inverse Hessian of the penalized likelihood at the optimum); NaN when
        the coefficient is not finite.
    identified : bool
        Whether the data can tell the coefficient: lengths that differ, at least
        ``min_comparisons`` comparisons, a likelihood with a finite maximum along
        the coefficient (no separation), and a converged fit.
    reason : str or None
        Why not, when not identified: ``"no_length_spread"``,
        ``"too_few_comparisons"``, ``"separable"`` (the votes follow the length
        difference so well that the likelihood grows without end along the
        coefficient) or ``"not_converged"``.
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
    standard_error: float
    identified: bool
    reason: str | None
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
    min_comparisons: int = MIN_LENGTH_COMPARISONS,
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
    min_comparisons : int, optional
        Fewest comparisons with positive weight and differing lengths for the
        coefficient to count as identified.

    Returns
    -------
    LengthBiasResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    comparisons, d = _length_bias_iv(
        a, b, y, len_a, len_b, w, n_systems, penalty, tol, max_iter, min_comparisons
    )
    n = comparisons.n_systems
    live = comparisons.w > 0
    sd = float(np.std(d[live])) if np.any(live) else 0.0
    reason = None
    if not sd > 0:
        reason = NO_SPREAD
    elif _separable(comparisons, d, penalty):
        reason = SEPARABLE
    if reason is not None:
        return LengthBiasResult(
            points_per_sd=math.nan,
            coefficient=math.nan,
            standard_error=math.nan,
            identified=False,
            reason=reason,
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
    objective = CovariateObjective(comparisons, d / sd, penalty)
    fit = newton(objective, gauge=gauge, tol=tol, max_iter=max_iter)
    beta = float(fit.params[n])
    error = POINTS_PER_LOGIT * _standard_error(objective.hessian(fit.params), penalty)
    spread = int(np.count_nonzero(live & (d != 0)))
    if not fit.converged:
        reason = NOT_CONVERGED
    elif spread < min_comparisons:
        reason = TOO_FEW
    return LengthBiasResult(
        points_per_sd=POINTS_PER_LOGIT * beta,
        coefficient=beta,
        standard_error=error,
        identified=reason is None,
        reason=reason,
        sd=sd,
        n_comparisons=int(live.sum()),
        strengths=fit.params[:n],
        penalty=float(penalty),
        iterations=fit.iterations,
        converged=fit.converged,
    )


def _standard_error(hess: NDArray[np.float64], penalty: float) -> float:
    """Standard error of the covariate's coefficient (the last parameter): the square
    root of its entry of the inverse Hessian, by the Schur complement (a pseudo-inverse
    of the strengths' block without a penalty, where it is singular along each group)."""
    n = hess.shape[0] - 1
    block, cross = hess[:n, :n], hess[:n, n]
    if penalty > 0:
        solved = scipy.linalg.cho_solve(scipy.linalg.cho_factor(block), cross)
    else:
        solved = np.linalg.pinv(block, hermitian=True) @ cross
    information = float(hess[n, n] - cross @ solved)
    return 1.0 / math.sqrt(information) if information > 0 else math.nan


def _separable(comparisons: Comparisons, d: NDArray[np.float64], penalty: float) -> bool:
    """Whether the likelihood grows without end along the coefficient.

    With a penalty the strengths stay finite, so that happens exactly when no tie has
    a length difference and every decisive comparison with one went the same way
    relative to it (all to the longer side, or all to the shorter). Without a
    penalty the strengths may move along too: a small linear program asks whether
    some strengths ``u`` and a sign ``t`` make every decisive comparison agree with
    ``u_a - u_b + t*d`` and every tie sit on ``u_a - u_b + t*d = 0``.
    """
    live = comparisons.w > 0
    a, b, y, z = comparisons.a[live], comparisons.b[live], comparisons.y[live], d[live]
    if not np.any(z != 0):
        return False
    tie = y == 0.5
    if penalty > 0:
        if np.any(tie & (z != 0)):
            return False
        sign = (2.0 * y[~tie] - 1.0) * np.sign(z[~tie])
        return bool(np.all(sign >= 0) or np.all(sign <= 0))
    # Only an unpenalised fit asks a linear program: scipy.optimize (with scipy.fft,
    # spatial, constants: about 80 ms) is loaded then, not by every close and verify.
    from scipy.optimize import linprog

    n = comparisons.n_systems
    rows = np.zeros((a.size, n))
    rows[np.arange(a.size), a] += 1.0
    rows[np.arange(a.size), b] -= 1.0
    for t in (1.0, -1.0):
        signed = (2.0 * y - 1.0)[:, None]
        upper = -(signed * rows)[~tie]
        bound = (signed[:, 0] * t * z)[~tie]
        found = linprog(
            np.zeros(n),
            A_ub=upper if upper.size else None,
            b_ub=bound if upper.size else None,
            A_eq=rows[tie] if np.any(tie) else None,
            b_eq=(-t * z)[tie] if np.any(tie) else None,
            bounds=[(None, None)] * n,
            method="highs",
        )
        if found.status == 0:
            return True
    return False


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
    min_comparisons: int,
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
    if isinstance(min_comparisons, bool) or not isinstance(min_comparisons, (int, np.integer)):
        raise ValueError("`min_comparisons` must be an integer >= 0.")
    if min_comparisons < 0:
        raise ValueError("`min_comparisons` must be an integer >= 0.")
    return comparisons, (lengths[0] - lengths[1]) / both
