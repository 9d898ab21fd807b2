"""Penalized Bradley–Terry on a win matrix, solved exactly by Newton's method.

The model: system ``p`` beats system ``q`` with probability
``sigma(s_p - s_q)``. With ``wins[p, q]`` the weight ``p`` won against ``q``
(a tie gives half to each side) the negative penalized log-likelihood is

    f(s) = sum_{p != q} wins_pq * log(1 + exp(s_q - s_p)) + (penalty/2) * ||s||^2.

Its Hessian is a weighted graph Laplacian plus ``penalty * I``, so a dense
Cholesky solve gives each Newton step; from zero the iteration reaches the
optimum to rounding level in a handful of steps.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

try:  # Optional: a 500x500 Cholesky with two BLAS threads on a busy 2-core
    # machine took 345 ms instead of 2 ms (research/fitting.md).
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover - exercised only without threadpoolctl
    ThreadpoolController = None

# Scanning the loaded libraries costs ~2 ms: once without SciPy's BLAS loaded and once with
# it (the scheduler's model loads no SciPy; a board's fit does, later in the same process).
_controllers: dict[bool, Any] = {}


def _one_blas_thread() -> Any:
    """Context pinning BLAS to one thread (no-op without threadpoolctl)."""
    if ThreadpoolController is None:
        return contextlib.nullcontext()
    key = "scipy.linalg" in sys.modules
    if key not in _controllers:
        _controllers[key] = ThreadpoolController()
    return _controllers[key].limit(limits=1, user_api="blas")


# Largest number of backtracking halvings of one Newton step.
_MAX_HALVINGS = 40


class SmoothObjective:
    """The objective, its gradient and its Hessian one at a time (what
    ``scipy.optimize.check_grad`` takes), from a subclass's one-pass ``evaluate``."""

    def evaluate(
        self, params: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        raise NotImplementedError

    def objective(self, params: NDArray[np.float64]) -> float:
        """Negative penalized log-likelihood at ``params``."""
        return self.evaluate(params)[0]

    def gradient(self, params: NDArray[np.float64]) -> NDArray[np.float64]:
        """Gradient of :meth:`objective`."""
        return self.evaluate(params)[1]

    def hessian(self, params: NDArray[np.float64]) -> NDArray[np.float64]:
        """Hessian of :meth:`objective` (dense, square)."""
        return self.evaluate(params)[2]


class PairwiseObjective(SmoothObjective):
    """Negative penalized log-likelihood, its gradient and its Hessian.

    Parameters
    ----------
    wins : ndarray, shape (n, n)
        ``wins[p, q]`` is the weight ``p`` won against ``q`` (zero diagonal).
    penalty : float
        The ridge penalty ``lambda`` on the strengths (``(lambda/2)*||s||^2``).
    """

    def __init__(self, wins: NDArray[np.float64], penalty: float) -> None:
        self._wins = wins
        self._total = wins + wins.T
        self._penalty = float(penalty)
        self.n_params = wins.shape[0]
        # Weight each system won: the gradient's data term.
        self._net = wins.sum(axis=1)

    @property
    def total_weight(self) -> float:
        """Sum of the weights of all comparisons in the objective."""
        return 0.5 * float(self._total.sum())

    def evaluate(
        self, strengths: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        """Objective, gradient and Hessian from one pass over the matrix.

        Works on the full margin matrix ``D[p, q] = s_p - s_q`` (both orders
        of every pair), which is cheaper in numpy than gathering pair lists.
        """
        s = np.asarray(strengths, dtype=np.float64)
        margin = np.subtract.outer(s, s)
        # exp(-D), capped so that a zero weight never meets an infinity.
        odds = np.exp(np.minimum(np.negative(margin, out=margin), 700.0, out=margin), out=margin)
        # f = sum_{p != q} wins_pq * softplus(-D_pq): each pair's two outcomes.
        value = float(np.vdot(self._wins, np.log1p(odds)))
        value += 0.5 * self._penalty * float(np.dot(s, s))

        prob = np.reciprocal(np.add(odds, 1.0, out=odds), out=odds)  # sigma(D)
        weighted = self._total * prob
        grad = weighted.sum(axis=1) - self._net + self._penalty * s
        # Off-diagonal Hessian -T*p*(1-p); a Laplacian's rows sum to zero.
        hess = np.multiply(weighted, np.subtract(prob, 1.0, out=prob), out=weighted)
        np.fill_diagonal(hess, 0.0)
        hess[np.diag_indices_from(hess)] = self._penalty - hess.sum(axis=1)
        return value, grad, hess


class Objective(Protocol):
    """What :func:`newton` minimises: a smooth convex function of a vector."""

    @property
    def n_params(self) -> int: ...

    @property
    def total_weight(self) -> float: ...

    def evaluate(
        self, params: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]: ...


@dataclass(frozen=True)
class NewtonResult:
    """Outcome of :func:`newton`."""

    params: NDArray[np.float64]
    iterations: int
    converged: bool
    gradient_norm: float


def newton(
    fcts: Objective,
    *,
    gauge: NDArray[np.intp] | None,
    tol: float,
    max_iter: int,
    initial: NDArray[np.float64] | None = None,
    solve: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]] | None = None,
    pinned: bool = True,
) -> NewtonResult:
    """Minimise ``fcts`` by Newton's method with backtracking.

    Parameters
    ----------
    fcts : Objective
        The objective (e.g. :class:`PairwiseObjective`).
    gauge : array of int or None
        With no penalty the objective is unchanged by adding a constant to
        every strength of a connected group; ``gauge`` labels those groups
        (-1 for parameters outside any) and each group is held at mean zero.
        ``None`` when the penalty fixes the level.
    tol : float
        Stop when the largest gradient entry is at most
        ``tol * max(1, total weight)``.
    max_iter : int
        Largest number of Newton steps.
    initial : array, optional
        Starting parameters (zero by default).
    solve : callable, optional
        Solves the Newton system ``(hess, rhs)``: by default SciPy's Cholesky
        (``cho_solve``), which the boards are fitted with; :func:`solve_numpy`
        loads no SciPy.
    pinned : bool
        Run BLAS on one thread meanwhile (default). A small objective (the
        scheduler's model of n x n counts) is too small for BLAS to thread:
        it may leave it, and the ~14 ms of finding the BLAS libraries.

    Returns
    -------
    NewtonResult
    """
    if solve is None:
        # SciPy's LAPACK is loaded before its BLAS threads are pinned below.
        import scipy.linalg  # noqa: F401

        solve = _solve
    n = fcts.n_params
    s = np.zeros(n) if initial is None else np.array(initial, dtype=np.float64)
    threshold = tol * max(1.0, fcts.total_weight)
    add_gauge = None if gauge is None else _gauge(gauge)
    with _one_blas_thread() if pinned else contextlib.nullcontext():
        value, grad, hess = fcts.evaluate(s)
        iterations = 0
        while float(np.max(np.abs(grad), initial=0.0)) > threshold and iterations < max_iter:
            if add_gauge is not None:
                # Rank-deficient along each group's constant vector; adding the
                # group projectors makes it definite without changing the step
                # within the groups (the gradient is orthogonal to them).
                add_gauge(hess, max(float(np.mean(np.diag(hess))), 1.0))
            step = solve(hess, -grad)
            moved, s, value, grad, hess = _backtrack(fcts, s, value, grad, hess, step)
            iterations += 1
            if not moved:
                break
    if gauge is not None:
        s = s - _group_means(s, gauge)
    norm = float(np.max(np.abs(grad), initial=0.0))
    return NewtonResult(
        params=s, iterations=iterations, converged=norm <= threshold, gradient_norm=norm
    )


def _gauge(labels: NDArray[np.intp]) -> Callable[[NDArray[np.float64], float], None]:
    """A function adding ``scale`` times each group's projector to a matrix."""
    inside = labels >= 0
    if inside.all() and np.all(labels == labels[0]):
        size = labels.size  # one group: the projector is ones / size

        def add_one(hess: NDArray[np.float64], scale: float) -> None:
            hess += scale / size

        return add_one
    sizes = np.bincount(labels[inside])
    same = (labels[:, None] == labels[None, :]) & inside[:, None]
    block = same / np.where(inside, sizes[np.maximum(labels, 0)], 1)[:, None]

    def add_block(hess: NDArray[np.float64], scale: float) -> None:
        hess += scale * block

    return add_block


def _group_means(values: NDArray[np.float64], labels: NDArray[np.intp]) -> NDArray[np.float64]:
    inside = labels >= 0
    sums = np.bincount(labels[inside], weights=values[inside])
    sizes = np.bincount(labels[inside])
    return np.where(inside, (sums / np.maximum(sizes, 1))[np.maximum(labels, 0)], 0.0)


def _solve(hess: NDArray[np.float64], rhs: NDArray[np.float64]) -> NDArray[np.float64]:
    # Loaded on use (by `newton`): the scheduler's model (`arena status`) uses numpy alone.
    import scipy.linalg

    try:
        factor = scipy.linalg.cho_factor(hess, check_finite=False)
        return np.asarray(scipy.linalg.cho_solve(factor, rhs, check_finite=False))
    except np.linalg.LinAlgError:
        # Curvature can underflow for pairs far apart mid-iteration; a
        # least-squares step is still a descent direction there.
        return np.asarray(np.linalg.lstsq(hess, rhs, rcond=None)[0])


def solve_numpy(hess: NDArray[np.float64], rhs: NDArray[np.float64]) -> NDArray[np.float64]:
    """The Newton step with numpy's LAPACK (LU), for a caller that must not load SciPy:
    the same step up to rounding, not to the bit (the boards keep :func:`_solve`)."""
    try:
        return np.asarray(np.linalg.solve(hess, rhs))
    except np.linalg.LinAlgError:
        return np.asarray(np.linalg.lstsq(hess, rhs, rcond=None)[0])


def _backtrack(
    fcts: Objective,
    s: NDArray[np.float64],
    value: float,
    grad: NDArray[np.float64],
    hess: NDArray[np.float64],
    step: NDArray[np.float64],
) -> tuple[bool, NDArray[np.float64], float, NDArray[np.float64], NDArray[np.float64]]:
    # The full Newton step is almost always taken, so the candidate is
    # evaluated completely once and reused as the next iterate.
    slope = float(np.dot(grad, step))
    # Near the optimum the decrease is at rounding level; allow for that.
    slack = 1e-12 * max(1.0, abs(value))
    t = 1.0
    for _ in range(_MAX_HALVINGS):
        candidate = s + t * step
        new_value, new_grad, new_hess = fcts.evaluate(candidate)
        if new_value <= value + 1e-4 * t * slope + slack:
            return True, candidate, new_value, new_grad, new_hess
        t *= 0.5
    return False, s, value, grad, hess
