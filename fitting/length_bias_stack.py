"""The length bias (:func:`~fitting.length_bias`) refitted on many case resamples at once,
for :func:`~fitting.length_bias_interval`.

Each resample is the estimator's fit with every comparison weighted by its case's draws.
The fits share the comparisons, so they are solved as a stack, a chunk of resamples at a
time (no resamples × comparisons matrix beyond a chunk's): the first Newton step, from the
fit on all the comparisons, by per-case sums (the same for every resample but for its
draws); then steps on the comparisons until each meets the estimator's gradient tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import NDArray
from scipy.special import expit

from .bradley_terry import _one_blas_thread
from .defaults import MIN_LENGTH_COMPARISONS, POINTS_PER_LOGIT
from .points_interval import backtrack


def length_bias_refits(
    votes: Any,
    d: NDArray[np.float64],
    inverse: NDArray[np.intp],
    counts: NDArray[np.int64],
    found: Any,
) -> NDArray[np.float64]:
    """:func:`~fitting.length_bias`'s ``points_per_sd`` on each resample (row of ``counts``,
    each case's draws; ``inverse``, each comparison's case), NaN where it would not be
    identified; ``found`` is the penalised fit on all the comparisons.

    The estimator's own steps on a stack of resamples: the standard deviation of ``d``
    over the comparisons drawn (unweighted), its refusals (no spread, separable, too few
    comparisons with a length difference, no convergence) and Newton's method to the same
    optimum. The coefficient is fitted on ``d`` itself (the optimum is the same, over the
    resample's standard deviation), so the comparisons are shared by every resample. The
    first Newton step, from ``found``, is the same for every resample but for its case
    weights: each case's gradient and Hessian at ``found`` are summed once, and each
    resample's step is its draws times those sums. The rest, on the comparisons, to the
    estimator's gradient tolerance."""
    n, penalty = found.strengths.size, found.penalty
    a, b, y, k = votes.a, votes.b, votes.y, counts.shape[1]
    present = (counts > 0).astype(np.float64)

    def per_case(values: NDArray[Any]) -> NDArray[np.float64]:
        return np.asarray(present @ np.bincount(inverse, weights=values, minlength=k))

    # length_bias's refusals before its fit (its _separable, with a penalty).
    tie, sign = y == 0.5, (2.0 * y - 1.0) * np.sign(d)
    separable = (per_case(tie & (d != 0)) == 0) & (
        (per_case(~tie & (sign < 0)) == 0) | (per_case(~tie & (sign > 0)) == 0)
    )
    drawn = per_case(np.ones_like(d))
    centre = per_case(d) / drawn
    sd = np.sqrt(np.maximum(per_case(d * d) / drawn - centre**2, 0.0))
    refused = separable | (per_case(d != 0) < MIN_LENGTH_COMPARISONS) | ~(sd > 0)
    objective = _CovariateStack(a, b, y, d, n, penalty)
    start = np.append(found.strengths, found.coefficient / found.sd)
    todo = np.flatnonzero(~refused)  # the refused are NaN whatever their fit
    first = objective.first_steps(start, inverse, counts[todo])
    out = np.full(counts.shape[0], np.nan)
    chunk = max(1, _REFIT_ELEMENTS // max(a.size, 1))
    with _one_blas_thread():
        for at in range(0, todo.size, chunk):
            part = slice(at, at + chunk)
            rows = todo[part]
            w = counts[rows][:, inverse].T.astype(np.float64)  # comparisons × resamples
            # The estimator's tolerance is on the gradient along d / sd: d's over sd.
            scale = np.ones((rows.size, n + 1))
            scale[:, n] = 1.0 / sd[rows]
            params, converged = objective.refine(w, first[part], scale)
            out[rows] = np.where(converged, POINTS_PER_LOGIT * params[:, n] * sd[rows], np.nan)
    return out


def _steps(hess: NDArray[np.float64], grad: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row's Newton step; NaN for a row whose Hessian is singular (a fit running off
    to infinity: it is not converged, as the estimator would say)."""
    finite = np.isfinite(hess).all(axis=(1, 2)) & np.isfinite(grad).all(axis=1)
    steps = np.full(grad.shape, np.nan)
    try:
        steps[finite] = np.linalg.solve(hess[finite], -grad[finite][:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        for row in np.flatnonzero(finite):
            try:
                steps[row] = np.linalg.solve(hess[row], -grad[row])
            except np.linalg.LinAlgError:
                pass
    return steps


# Comparisons × resamples held at once by the length bias's refits.
_REFIT_ELEMENTS = 1_000_000
# Newton steps from the first (``_CovariateStack.refine``): a resample's fit is taken as
# found when the last step moved no parameter more than this (logits); its error is then
# of the order of the step times the one before (about 1e-8 of a logit), far below the
# tolerance's. Others are refitted with backtracking to the estimator's tolerance.
_STEP_DONE = 1e-5


class _CovariateStack:
    """:class:`~fitting.length_bias.CovariateObjective` with the covariate ``d`` for a stack
    of weightings of the same comparisons: ``w`` holds one column per resample (comparisons
    × resamples, so that the sums over comparisons read it in order), ``params`` one row."""

    def __init__(self, a, b, y, d, n, penalty):  # type: ignore[no-untyped-def]
        self.a, self.b, self.y, self.d, self.n = a, b, y, d, n
        self.penalty = float(penalty)
        m = a.size
        one = np.ones(m)
        # Each comparison's row of the design: +1 for side a, -1 for side b, d.
        cols = np.concatenate([a, b, np.full(m, n)])
        self.design = scipy.sparse.csr_array(
            (np.concatenate([one, -one, d]), (cols, np.tile(np.arange(m), 3))),
            shape=(n + 1, m),
        )
        self.sides = self.design[:n]
        self.pairs = scipy.sparse.csr_array((one, (a * n + b, np.arange(m))), shape=(n * n, m))
        self.y_col, self.d_col, self.d2 = y[:, None], d[:, None], d * d
        self.pair = a * n + b

    def _hessians(
        self, curvature: NDArray[np.float64], scratch: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """The Hessian of each column of ``curvature`` (comparisons × resamples), penalty
        included: (resamples, n + 1, n + 1); ``scratch``, an array of its shape to use."""
        n = self.n
        per_pair = (self.pairs @ curvature).T.reshape(-1, n, n)
        per_pair += per_pair.transpose(0, 2, 1)
        hess = np.zeros((curvature.shape[1], n + 1, n + 1))
        hess[:, :n, :n] = -per_pair
        diagonal = np.arange(n)
        hess[:, diagonal, diagonal] = per_pair.sum(axis=2) + self.penalty
        cross = (self.sides @ np.multiply(curvature, self.d_col, out=scratch)).T
        hess[:, :n, n] = cross
        hess[:, n, :n] = cross
        hess[:, n, n] = self.d2 @ curvature
        return hess

    def first_steps(
        self, start: NDArray[np.float64], inverse: NDArray[np.intp], counts: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """One Newton step from ``start`` for each resample (row of ``counts``): each
        comparison's gradient and Hessian at ``start`` summed per case once, then weighted
        by the resample's draws of the cases."""
        n, k = self.n, counts.shape[1]
        eta = start[self.a] - start[self.b] + start[n] * self.d
        prob = 0.5 * (1.0 + np.tanh(0.5 * eta))
        residual, curvature = prob - self.y, prob * (1.0 - prob)
        grad_case = np.zeros((k, n + 1))
        grad_case[:, :n] = (
            np.bincount(inverse * n + self.a, weights=residual, minlength=k * n)
            - np.bincount(inverse * n + self.b, weights=residual, minlength=k * n)
        ).reshape(k, n)
        grad_case[:, n] = np.bincount(inverse, weights=residual * self.d, minlength=k)
        grad = counts.astype(np.float64) @ grad_case
        grad[:, :n] += self.penalty * start[:n]
        hess_case = self._case_hessians(curvature, inverse, k)
        hess = (counts.astype(np.float64) @ hess_case.reshape(k, -1)).reshape(-1, n + 1, n + 1)
        diagonal = np.arange(n)
        hess[:, diagonal, diagonal] += self.penalty
        return start + _steps(hess, grad)

    def _case_hessians(
        self, curvature: NDArray[np.float64], inverse: NDArray[np.intp], k: int
    ) -> NDArray[np.float64]:
        """Each case's Hessian of the unpenalised objective at the curvatures given:
        (k, n + 1, n + 1)."""
        n, a, b, d = self.n, self.a, self.b, self.d
        size = (n + 1) * (n + 1)
        entries = [  # (row, column, value) of each comparison's outer product
            (a, a, curvature), (b, b, curvature), (a, b, -curvature), (b, a, -curvature),
            (a, n, curvature * d), (n, a, curvature * d), (b, n, -curvature * d),
            (n, b, -curvature * d), (n, n, curvature * d * d),
        ]  # fmt: skip
        flat = np.zeros(k * size)
        for row, col, value in entries:
            at = inverse * size + np.asarray(row) * (n + 1) + np.asarray(col)
            flat += np.bincount(at, weights=value, minlength=k * size)
        return flat.reshape(k, n + 1, n + 1)

    def _eta(self, params: NDArray[np.float64]) -> NDArray[np.float64]:
        # Each ordered pair's difference once, then one gather per comparison.
        s = params[:, : self.n].T
        differences = (s[:, None, :] - s[None, :, :]).reshape(self.n * self.n, -1)
        return np.asarray(differences[self.pair] + self.d_col * params[:, self.n])

    def evaluate(
        self, w: NDArray[np.float64], params: NDArray[np.float64], value: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Objective (NaN unless ``value``), gradient and Hessian of each resample."""
        n = self.n
        eta = self._eta(params)
        objective = np.full(params.shape[0], np.nan)
        if value:
            objective = np.einsum("mr,mr->r", w, np.logaddexp(0.0, eta) - self.y_col * eta)
            objective += 0.5 * self.penalty * np.einsum("ri,ri->r", params[:, :n], params[:, :n])
        # In place from here: these are comparisons × resamples each.
        prob = expit(eta, out=eta)
        residual = np.subtract(prob, self.y_col)
        residual *= w
        grad = (self.design @ residual).T
        grad[:, :n] += self.penalty * params[:, :n]
        curvature = np.subtract(1.0, prob, out=residual)
        curvature *= prob
        curvature *= w
        return objective, grad, self._hessians(curvature, scratch=prob)

    def gradient(self, w: NDArray[np.float64], params: NDArray[np.float64]) -> NDArray[np.float64]:
        """The gradient of each resample's objective."""
        residual = expit(self._eta(params))
        residual -= self.y_col
        residual *= w
        grad = (self.design @ residual).T
        grad[:, : self.n] += self.penalty * params[:, : self.n]
        return np.asarray(grad)

    def refine(
        self, w: NDArray[np.float64], first: NDArray[np.float64], scale: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Each row's fit from ``first`` (a Newton step from near the optimum): a Newton step
        on the comparisons, then one with its Hessian held (the gradient alone is new).
        A row is done when it met the estimator's tolerance or the held step moved it less
        than ``_STEP_DONE``. The others are refitted by :meth:`solve` from there (from
        ``first`` where the steps left no finite point), and those it leaves unconverged
        from zero, as the estimator starts (a resample far from the fit on all the
        comparisons: nearly separable ones)."""
        with np.errstate(invalid="ignore", over="ignore"):
            threshold = 1e-10 * np.maximum(1.0, w.sum(axis=0))
            first = np.where(np.isfinite(first), first, 0.0)
            _, grad, hess = self.evaluate(w, first, value=False)
            second = first + _steps(hess, grad)
            grad = self.gradient(w, second)
            held = _steps(hess, grad)
            done = np.max(np.abs(grad * scale), axis=1) <= threshold
            third = np.where(done[:, None], second, second + held)
            done |= np.max(np.abs(held), axis=1) <= _STEP_DONE
        converged = done.copy()
        for again in (np.flatnonzero(~done), None):
            if again is None:
                again = np.flatnonzero(~converged)
                third[again] = 0.0
            if not again.size:
                continue
            start = np.where(np.isfinite(third[again]), third[again], first[again])
            with np.errstate(invalid="ignore", over="ignore"):
                third[again], converged[again] = self.solve(w[:, again], start, scale[again])
        return third, converged

    def solve(
        self,
        w: NDArray[np.float64],
        start: NDArray[np.float64],
        scale: NDArray[np.float64],
        tol: float = 1e-10,
        max_iter: int = 100,
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Newton's method with backtracking on every row, from ``start``: stopped as
        ``fitting.bradley_terry.newton`` stops, when the largest gradient entry (each times
        ``scale``) is at most ``tol * max(1, total weight)``."""
        threshold = tol * np.maximum(1.0, w.sum(axis=0))
        s = start.copy()
        value, grad, hess = self.evaluate(w, s)
        for _ in range(max_iter):
            active = np.flatnonzero(np.max(np.abs(grad * scale), axis=1) > threshold)
            if not active.size:
                break
            backtrack(
                (s, value, grad, hess),
                active,
                _steps(hess[active], grad[active]),
                lambda rows, candidate: self.evaluate(w[:, rows], candidate),
            )
        return s, np.max(np.abs(grad * scale), axis=1) <= threshold
