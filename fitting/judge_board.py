"""A judge beside the rater as boards: its length bias, and Kendall's τ between its board and
the rater's, each with a 95% interval from a seeded bootstrap over cases.

Both resample cases (clusters), each bringing all of its comparisons, as the board's own
interval does (:func:`~fitting.bootstrap_points`). The length bias is the rater's estimator
(:func:`~fitting.length_bias`) refitted on each resample; its interval is the estimate ± the
replicates' standard deviation times ``sqrt(K / (K - 1))`` times the Student quantile with
``K - 1`` degrees of freedom, as the board's points are. τ's interval is BCa (Efron 1987),
its bias correction counting a replicate equal to the estimate as half below it (τ takes
few values): τ's replicates are not centred on its estimate (a board refitted on a resample
is noisier, and turns more pairs around), and in simulation the percentile interval held
the τ of the boards the cases stand for in 99.6% of 500 runs of 600 items at nominal 95%,
BCa in 95.0%; with 450 and 300 items BCa held it in 90.6% and 87.4%, so the judges page
shows it only for boards with enough verdicts (``benchmarks/judge_calibration.py``;
docs/judges.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, ndtr, ndtri, stdtrit

from ._comparisons import comparisons_iv
from .bradley_terry import _one_blas_thread
from .defaults import DEFAULT_PENALTY, MIN_LENGTH_COMPARISONS, POINTS_PER_LOGIT
from .judge_agreement import Estimate
from .points import fit_points
from .points_interval import _MAX_HALVINGS, _STACK_ELEMENTS, _newton_stack
from .split_half import tau_b_rows

#: Bootstrap resamples of τ (each refits two boards, all at once) and of the length bias
#: (each a fit of its own, as the board's points take).
TAU_RESAMPLES = 2000
LENGTH_RESAMPLES = 200
_CONFIDENCE = 0.95
Method = Literal["bca", "percentile"]
METHODS: tuple[str, ...] = ("bca", "percentile")


@dataclass(frozen=True)
class CaseComparisons:
    """One judge's comparisons: system indices ``a`` (shown left) and ``b``, outcome ``y``
    for ``a`` (1, 0.5, 0) and the case (cluster) of each."""

    a: NDArray[np.intp]
    b: NDArray[np.intp]
    y: NDArray[np.float64]
    case: NDArray[np.int64]

    @classmethod
    def of(cls, a: ArrayLike, b: ArrayLike, y: ArrayLike, case: ArrayLike) -> CaseComparisons:
        votes = cls(
            np.asarray(a, dtype=np.intp),
            np.asarray(b, dtype=np.intp),
            np.asarray(y, dtype=np.float64),
            np.asarray(case, dtype=np.int64),
        )
        if votes.case.shape != votes.a.shape:
            raise ValueError("`case` must hold one integer label per comparison.")
        return votes


def _draws(labels: NDArray[np.int64], resamples: int, rng: np.random.Generator) -> tuple:
    """The distinct cases, each comparison's case among them, and how many times each case
    is drawn in each resample: (cases, inverse, (resamples, cases))."""
    cases, inverse = np.unique(labels, return_inverse=True)
    k = cases.size
    counts = rng.multinomial(k, np.full(k, 1.0 / k), size=resamples) if k else None
    return cases, inverse, counts


def _wins(votes: CaseComparisons, cases: NDArray[np.int64], n: int) -> scipy.sparse.csr_array:
    """Each case's wins per ordered pair of systems, one row per case of ``cases``."""
    row = np.searchsorted(cases, votes.case)
    return scipy.sparse.csr_array(
        (
            np.concatenate([votes.y, 1.0 - votes.y]),
            (
                np.concatenate([row, row]),
                np.concatenate([votes.a * n + votes.b, votes.b * n + votes.a]),
            ),
        ),
        shape=(cases.size, n * n),
    )


def board_tau(
    rater: CaseComparisons,
    judge: CaseComparisons,
    *,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    resamples: int = TAU_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    method: Method = "bca",
) -> Estimate:
    """Kendall's τ-b between the rater's and a judge's boards, with a 95% interval.

    Each board is :func:`~fitting.fit_points` on its own comparisons (``penalty`` > 0); τ
    is over the systems ranked on both. Each resample draws the cases of either with
    replacement and refits both boards on the same draw. ``method`` is ``"bca"`` (the
    default; see the module's notes) or ``"percentile"``. ``count`` is the systems ranked
    on both; the value is NaN below two.
    """
    if not penalty > 0:
        raise ValueError("`penalty` must be > 0: a resample may have no finite fit without it.")
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {list(METHODS)}.")
    for votes in (rater, judge):
        comparisons_iv(votes.a, votes.b, votes.y, None, n_systems)
    n = n_systems
    fits = [fit_points(v.a, v.b, v.y, n_systems=n, penalty=penalty) for v in (rater, judge)]
    both = fits[0].ranked & fits[1].ranked
    count = int(both.sum())
    value = float(tau_b_rows(fits[0].strengths[None, both], fits[1].strengths[None, both])[0])
    if count < 2 or not math.isfinite(value):
        return Estimate(math.nan, math.nan, math.nan, count)
    generator = np.random.default_rng(rng)
    cases, _, counts = _draws(np.concatenate([rater.case, judge.case]), resamples, generator)
    per_case = [_wins(votes, cases, n) for votes in (rater, judge)]

    def taus(rows: Callable[[scipy.sparse.csr_array, slice], NDArray[np.float64]], m: int):
        fitted = [
            _refits(p, rows, m, f.strengths, penalty) for p, f in zip(per_case, fits, strict=True)
        ]
        return tau_b_rows(fitted[0][:, both], fitted[1][:, both])

    drawn = taus(lambda p, part: counts[part].astype(np.float64) @ p, resamples)
    if method == "percentile":
        finite = drawn[np.isfinite(drawn)]
        low, high = np.quantile(finite, [(1 - _CONFIDENCE) / 2, (1 + _CONFIDENCE) / 2])
        return Estimate(value, float(low), float(high), count)
    # The jackknife: each case left out in turn (BCa's acceleration).
    left_out = taus(lambda p, part: p.sum(axis=0) - p[part].toarray(), cases.size)
    low, high = _bca(value, drawn, left_out)
    return Estimate(value, low, high, count)


def _refits(
    per_case: scipy.sparse.csr_array,
    rows: Callable[[scipy.sparse.csr_array, slice], NDArray[np.float64]],
    m: int,
    start: NDArray[np.float64],
    penalty: float,
) -> NDArray[np.float64]:
    """The strengths of ``m`` boards, the wins of boards ``part`` being ``rows(per_case,
    part)``, solved a stack at a time from ``start``."""
    n = start.size
    chunk = max(1, _STACK_ELEMENTS // (n * n))
    out = np.empty((m, n))
    with _one_blas_thread():
        for first in range(0, m, chunk):
            part = slice(first, min(m, first + chunk))
            wins = np.asarray(rows(per_case, part)).reshape(-1, n, n)
            out[part] = _newton_stack(wins, penalty, start, 1e-9, 50)[0]
    return out


def _bca(
    value: float, replicates: NDArray[np.float64], jackknife: NDArray[np.float64]
) -> tuple[float, float]:
    """The BCa interval of ``value`` from its bootstrap and jackknife replicates. A replicate
    equal to ``value`` counts half below it: τ takes few values, and many replicates equal it."""
    draws = replicates[np.isfinite(replicates)]
    jack = jackknife[np.isfinite(jackknife)]
    if not draws.size:
        return math.nan, math.nan
    below = (np.count_nonzero(draws < value) + 0.5 * np.count_nonzero(draws == value)) / draws.size
    bias = float(ndtri(np.clip(below, 0.5 / draws.size, 1 - 0.5 / draws.size)))
    spread = jack.mean() - jack
    denominator = 6.0 * float(np.sum(spread**2)) ** 1.5
    acceleration = float(np.sum(spread**3)) / denominator if denominator > 0 else 0.0
    alpha = (1.0 - _CONFIDENCE) / 2.0
    ends = []
    for z in (ndtri(alpha), ndtri(1 - alpha)):
        shifted = bias + (bias + z) / (1 - acceleration * (bias + z))
        ends.append(float(np.quantile(draws, ndtr(shifted))))
    return ends[0], ends[1]


def length_bias_interval(
    votes: CaseComparisons,
    len_a: ArrayLike,
    len_b: ArrayLike,
    *,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    resamples: int = LENGTH_RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> Estimate:
    """The length bias (:func:`~fitting.length_bias`, points per SD, ``a`` shown left) with a
    case-bootstrap Student-t interval. ``count`` is the comparisons whose lengths differ;
    the value is NaN when the estimator cannot tell (``identified`` false).

    With ``penalty`` > 0 the resamples are refitted all at once (a stack of resamples at a
    time: :func:`_length_bias_refits`), each the estimator's fit with the comparisons
    weighted by their case's draws, to the estimator's tolerance; without, one at a time."""
    # The function by the package's lazy name: importing the module of the same name here
    # would leave the package's ``length_bias`` naming the module.
    from . import length_bias

    la, lb = np.asarray(len_a, dtype=np.float64), np.asarray(len_b, dtype=np.float64)

    def fitted(w: NDArray[np.float64] | None) -> Any:
        return length_bias(
            votes.a, votes.b, votes.y, la, lb, w, n_systems=n_systems, penalty=penalty
        )

    found = fitted(None)
    value = found.points_per_sd if found.identified else math.nan
    count = int(np.count_nonzero(la != lb))
    if not math.isfinite(value):
        return Estimate(math.nan, math.nan, math.nan, count)
    cases, inverse, counts = _draws(votes.case, resamples, np.random.default_rng(rng))
    if penalty > 0:
        draws = _length_bias_refits(votes, (la - lb) / (la + lb), inverse, counts, found)
    else:
        draws = np.array(
            [
                f.points_per_sd if (f := fitted(drawn[inverse].astype(np.float64))).identified
                else math.nan
                for drawn in counts
            ]
        )  # fmt: skip
    draws = draws[np.isfinite(draws)]
    k = cases.size
    if draws.size < 2 or k < 2:
        return Estimate(value, math.nan, math.nan, count)
    half = stdtrit(k - 1, 1 - (1 - _CONFIDENCE) / 2) * math.sqrt(k / (k - 1)) * np.std(draws)
    return Estimate(value, value - float(half), value + float(half), count)


def _length_bias_refits(
    votes: CaseComparisons,
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

    def _hessians(self, curvature: NDArray[np.float64]) -> NDArray[np.float64]:
        """The Hessian of each column of ``curvature`` (comparisons × resamples), penalty
        included: (resamples, n + 1, n + 1)."""
        n = self.n
        per_pair = (self.pairs @ curvature).T.reshape(-1, n, n)
        per_pair += per_pair.transpose(0, 2, 1)
        hess = np.zeros((curvature.shape[1], n + 1, n + 1))
        hess[:, :n, :n] = -per_pair
        diagonal = np.arange(n)
        hess[:, diagonal, diagonal] = per_pair.sum(axis=2) + self.penalty
        cross = (self.sides @ (curvature * self.d_col)).T
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
        strengths = np.ascontiguousarray(params[:, : self.n].T)
        return np.asarray(strengths[self.a] - strengths[self.b] + self.d_col * params[:, self.n])

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
        prob = expit(eta)
        grad = (self.design @ (w * (prob - self.y_col))).T
        grad[:, :n] += self.penalty * params[:, :n]
        return objective, grad, self._hessians(w * prob * (1.0 - prob))

    def gradient(self, w: NDArray[np.float64], params: NDArray[np.float64]) -> NDArray[np.float64]:
        """The gradient of each resample's objective."""
        grad = (self.design @ (w * (expit(self._eta(params)) - self.y_col))).T
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
            step = _steps(hess[active], grad[active])
            slope = np.einsum("ki,ki->k", grad[active], step)
            slack = 1e-12 * np.maximum(1.0, np.abs(value[active]))
            t, pending = 1.0, np.arange(active.size)
            for _ in range(_MAX_HALVINGS):
                rows = active[pending]
                candidate = s[rows] + t * step[pending]
                v, g, h = self.evaluate(w[:, rows], candidate)
                ok = v <= value[rows] + 1e-4 * t * slope[pending] + slack[pending]
                done = rows[ok]
                s[done], value[done], grad[done], hess[done] = candidate[ok], v[ok], g[ok], h[ok]
                pending = pending[~ok]
                if not pending.size:
                    break
                t *= 0.5
        return s, np.max(np.abs(grad * scale), axis=1) <= threshold
