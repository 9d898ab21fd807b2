"""Validate comparison arrays and collapse them into per-pair totals.

Every fit in this package starts here. Aggregating once is O(comparisons);
everything after it depends only on the number of systems.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Largest ``n_systems`` accepted: the solver keeps dense square matrices
#: (about 8 * n_systems**2 bytes each, several at once).
MAX_SYSTEMS = 4000


@dataclass(frozen=True)
class Comparisons:
    """Validated comparison arrays, one entry per comparison.

    ``outcome`` is ``2 * y`` as an integer (0 = b won, 1 = tie, 2 = a won);
    ``unit_weights`` says every weight is 1.
    """

    a: NDArray[np.intp]
    b: NDArray[np.intp]
    y: NDArray[np.float64]
    w: NDArray[np.float64]
    n_systems: int
    outcome: NDArray[np.int8]
    unit_weights: bool


@dataclass(frozen=True)
class Aggregate:
    """Comparisons summed per ordered pair of systems.

    ``wins[p, q]`` is the weight ``p`` won against ``q`` (a tie gives half to
    each side); it is an exact zero where ``p`` never won or tied against
    ``q``. ``decisive[p]`` counts the comparisons with a winner and a positive
    weight that ``p`` took part in.
    """

    wins: NDArray[np.float64]
    decisive: NDArray[np.float64]


def comparisons_iv(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    w: ArrayLike | None,
    n_systems: int,
) -> Comparisons:
    """Check comparison arrays; every ``ValueError`` names the argument.

    ``y`` is 1 (``a`` won), 0 (``b`` won) or 0.5 (tie or both bad); ``w``
    defaults to 1 for every comparison.
    """
    if isinstance(n_systems, bool) or not isinstance(n_systems, (int, np.integer)):
        raise ValueError("`n_systems` must be an integer.")
    n = int(n_systems)
    if not 1 <= n <= MAX_SYSTEMS:
        raise ValueError(f"`n_systems` must be between 1 and {MAX_SYSTEMS}.")

    a_arr = _index_array(a, "a", n)
    b_arr = _index_array(b, "b", n)
    size = a_arr.shape[0]
    if b_arr.shape[0] != size:
        raise ValueError("`b` must have the same length as `a`.")
    if np.any(a_arr == b_arr):
        raise ValueError(
            "`a` and `b` must differ in every comparison (a system cannot meet itself)."
        )

    y_arr = np.asarray(y, dtype=np.float64)
    if y_arr.ndim != 1 or y_arr.shape[0] != size:
        raise ValueError("`y` must be one-dimensional with the same length as `a`.")
    doubled = 2.0 * y_arr
    with np.errstate(invalid="ignore"):  # NaN and infinities fail the checks below
        outcome = doubled.astype(np.int8)
    if size and (outcome.min() < 0 or outcome.max() > 2 or not np.array_equal(outcome, doubled)):
        raise ValueError("`y` must be 1 (a won), 0 (b won) or 0.5 (tie or both bad).")

    if w is None:
        # A read-only view of one value: unit weights cost no memory and no time.
        w_arr = np.broadcast_to(np.float64(1.0), (size,))
        unit = True
    else:
        w_arr = np.asarray(w, dtype=np.float64)
        if w_arr.ndim != 1 or w_arr.shape[0] != size:
            raise ValueError("`w` must be one-dimensional with the same length as `a`.")
        if size and not (np.isfinite(w_arr.sum()) and w_arr.min() >= 0.0):
            raise ValueError("`w` must be finite and non-negative.")
        unit = bool(np.all(w_arr == 1.0))
    return Comparisons(
        a=a_arr, b=b_arr, y=y_arr, w=w_arr, n_systems=n, outcome=outcome, unit_weights=unit
    )


def is_real(value: object) -> bool:
    """A real number (not a bool)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def solver_settings_iv(penalty: float, tol: float, max_iter: int) -> None:
    """Check the settings every Bradley–Terry fit takes."""
    if not is_real(penalty) or not np.isfinite(penalty) or penalty < 0:
        raise ValueError("`penalty` must be a finite number >= 0.")
    if not is_real(tol) or not np.isfinite(tol) or not tol > 0:
        raise ValueError("`tol` must be a finite number > 0.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError("`max_iter` must be an integer >= 1.")


def _index_array(values: ArrayLike, name: str, n_systems: int) -> NDArray[np.intp]:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional.")
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"`{name}` must hold integer system indices.")
    if arr.min() < 0 or arr.max() >= n_systems:
        raise ValueError(f"`{name}` must hold system indices in [0, n_systems).")
    return arr.astype(np.intp, copy=False)


def aggregate(comparisons: Comparisons) -> Aggregate:
    """Sum the comparisons per ordered pair and outcome with one ``np.bincount``.

    O(comparisons) once; after it nothing depends on their number.
    """
    c = comparisons
    n = c.n_systems
    # One slot per (a, b, outcome): counts, or weights, of each kind of result.
    code = c.a * (3 * n)
    code += c.b * 3
    code += c.outcome
    slots = 3 * n * n
    totals: NDArray[Any]
    counts: NDArray[Any]
    if c.unit_weights:
        totals = counts = np.bincount(code, minlength=slots)  # integer counts
    else:
        totals = np.bincount(code, weights=c.w, minlength=slots)
        counts = np.bincount(code[c.w > 0], minlength=slots)
    lost, tied, won = np.moveaxis(totals.reshape(n, n, 3), 2, 0)
    # p's wins over q: as side a it won or tied; as side b, a lost or tied.
    wins = won + 0.5 * tied + (lost + 0.5 * tied).T
    by_pair = counts.reshape(n, n, 3)
    decided = by_pair[:, :, 0] + by_pair[:, :, 2]
    decisive = (decided.sum(axis=0) + decided.sum(axis=1)).astype(np.float64)
    return Aggregate(wins=wins.astype(np.float64, copy=False), decisive=decisive)
