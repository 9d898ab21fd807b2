"""Agreement between judges of the same pairs: two at a time, and all together.

An answer on an item (one pair of systems on one case) is coded ``-1`` (the pair's first
system is better), ``0`` (a tie) or ``+1`` (the second is better): an ordered scale, so
Krippendorff's α is the ordinal one. Every figure comes with a 95% percentile interval
from one seeded bootstrap over items (each resample draws the items with replacement and
recomputes every figure on the same draw).

Every figure is a function of how many items of each kind a resample holds, the kind being
what the figure reads of an item (the two answers of a pair: 9 kinds; an item's count of
each answer, for α: a few dozen). So a resample is drawn by counts: drawing ``n`` items
with replacement puts ``Multinomial(n, m_j / n)`` of them in the kinds ``j`` of ``m_j``
items, the same distribution as drawing each item, at the cost of the kinds, not of the
items (no resamples × items matrix).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: How many bootstrap resamples an interval is read from, unless told.
RESAMPLES = 2000
_ANSWERS = (-1, 0, 1)
# Of each cell (first answer + 1) * 3 + (second answer + 1): the same answer; both decisive.
_FIRST, _SECOND = np.divmod(np.arange(9), 3)
_SAME_CELL = (_FIRST == _SECOND).astype(float)
_DECISIVE_CELL = ((_FIRST != 1) & (_SECOND != 1)).astype(float)


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95% bootstrap interval and the count it was computed over.

    ``value``, ``low`` and ``high`` are NaN when ``count`` is too small to say.
    """

    value: float
    low: float
    high: float
    count: int


@dataclass(frozen=True)
class PairAgreement:
    """Result of :func:`pair_agreement`.

    Attributes
    ----------
    with_ties : Estimate
        Share of the shared items with the same answer among -1, 0, +1.
    without_ties : Estimate
        Share of the same answer among the items both answered decisively (the MT-bench
        paper's count); ``count`` is those items.
    kappa : Estimate
        Cohen's κ over the three answers.
    """

    with_ties: Estimate
    without_ties: Estimate
    kappa: Estimate


@dataclass(frozen=True)
class PositionResult:
    """Result of :func:`position_bias`.

    Attributes
    ----------
    consistency : Estimate
        Share of the items judged in both orders whose two answers are the same.
    first_preference : Estimate
        Among the decisive answers of those games, the share for the system shown first
        (0.5: no preference).
    """

    consistency: Estimate
    first_preference: Estimate


def _answers_iv(values: ArrayLike, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional")
    if not np.isin(array, _ANSWERS).all():
        raise ValueError(f"`{name}` must hold only -1, 0 and 1")
    return array.astype(int)


def _by_kind(
    kind: np.ndarray, resamples: int, rng: np.random.Generator | int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The kinds met (sorted) and how many items of each a resample of the items holds:
    (kinds, (resamples, kinds)), each resample drawing ``kind.size`` items with
    replacement."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError("`resamples` must be a positive integer")
    generator = np.random.default_rng(rng)
    kinds, sizes = np.unique(kind, return_counts=True, axis=0)
    n = int(sizes.sum())
    if n == 0:
        return kinds, np.zeros((resamples, 0))
    drawn = generator.multinomial(n, sizes / n, size=resamples)
    return kinds, drawn.astype(float)


def _estimate(value: float, draws: np.ndarray, count: int) -> Estimate:
    finite = draws[np.isfinite(draws)]
    if not math.isfinite(value) or finite.size == 0:
        return Estimate(value, math.nan, math.nan, count)
    low, high = np.percentile(finite, [2.5, 97.5])
    return Estimate(value, float(low), float(high), count)


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)


def _kappa(cells: np.ndarray) -> np.ndarray:
    """Cohen's κ from 3×3 count tables flattened to 9 columns (one row per table)."""
    tables = cells.reshape(-1, 3, 3)
    total = tables.sum(axis=(1, 2))
    observed = _ratio(np.trace(tables, axis1=1, axis2=2), total)
    chance = _ratio((tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1), total**2)
    return _ratio(observed - chance, 1 - chance)


def pair_agreement(
    first: ArrayLike,
    second: ArrayLike,
    *,
    resamples: int = RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> PairAgreement:
    """Agreement of two judges on the items both answered.

    Parameters
    ----------
    first, second : array_like of int
        Each judge's answer on each shared item, in the same order: -1, 0 or +1.
    resamples : int, optional
        Bootstrap resamples for the intervals.
    rng : numpy.random.Generator or int, optional
        The bootstrap's randomness (a seed makes the intervals repeatable).
    """
    a, b = _answers_iv(first, "first"), _answers_iv(second, "second")
    if a.shape != b.shape:
        raise ValueError("`first` and `second` must have the same length")
    same = (a == b).astype(float)
    decisive = ((a != 0) & (b != 0)).astype(float)
    cell = (a + 1) * 3 + (b + 1)
    cells = np.bincount(cell, minlength=9).astype(float)
    # The figures of a resample, from its count of each cell (the kinds).
    kinds, weights = _by_kind(cell, resamples, rng)
    table = weights @ np.eye(9)[kinds]
    same_k, decisive_k = _SAME_CELL[kinds], _DECISIVE_CELL[kinds]
    ones = weights.sum(axis=1)
    return PairAgreement(
        with_ties=_estimate(
            float(_ratio(same.sum(), np.asarray(a.size))), _ratio(weights @ same_k, ones), a.size
        ),
        without_ties=_estimate(
            float(_ratio((same * decisive).sum(), decisive.sum())),
            _ratio(weights @ (same_k * decisive_k), weights @ decisive_k),
            int(decisive.sum()),
        ),
        kappa=_estimate(float(_kappa(cells)[0]), _kappa(table), a.size),
    )


def position_bias(
    in_order: ArrayLike,
    swapped: ArrayLike,
    *,
    resamples: int = RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> PositionResult:
    """Position consistency and first-position preference of a judge that saw each item
    in both orders.

    Parameters
    ----------
    in_order, swapped : array_like of int
        The judge's answer on each item (-1, 0, +1, the pair's first system better being
        -1) when the pair's first system was shown first, and when it was shown second.
    resamples, rng
        As :func:`pair_agreement`.
    """
    a, b = _answers_iv(in_order, "in_order"), _answers_iv(swapped, "swapped")
    if a.shape != b.shape:
        raise ValueError("`in_order` and `swapped` must have the same length")
    same = (a == b).astype(float)
    # Shown first: the first system in the first game (-1), the second in the swapped one (+1).
    for_first = (a == -1).astype(float) + (b == 1)
    decisive = (a != 0).astype(float) + (b != 0)
    kinds, weights = _by_kind((a + 1) * 3 + (b + 1), resamples, rng)
    first_a, first_b = kinds // 3 - 1, kinds % 3 - 1
    same_k = (first_a == first_b).astype(float)
    for_first_k = (first_a == -1).astype(float) + (first_b == 1)
    decisive_k = (first_a != 0).astype(float) + (first_b != 0)
    return PositionResult(
        consistency=_estimate(
            float(_ratio(same.sum(), np.asarray(a.size))),
            _ratio(weights @ same_k, weights.sum(axis=1)),
            a.size,
        ),
        first_preference=_estimate(
            float(_ratio(for_first.sum(), decisive.sum())),
            _ratio(weights @ for_first_k, weights @ decisive_k),
            int(decisive.sum()),
        ),
    )


def _alpha(coincidences: np.ndarray, k: int) -> np.ndarray:
    """Ordinal α from coincidence matrices flattened to k*k columns (one row each)."""
    o = coincidences.reshape(-1, k, k)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    # Ordinal distance: the values between c and k, inclusive, counting the ends by half.
    cum = np.cumsum(n_c, axis=1)
    lo, hi = (
        np.minimum.outer(np.arange(k), np.arange(k)),
        np.maximum.outer(np.arange(k), np.arange(k)),
    )
    between = cum[:, hi] - cum[:, lo] + n_c[:, lo]
    delta = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
    observed = (o * delta).sum(axis=(1, 2))
    expected = _ratio((n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2)), n - 1)
    return 1 - _ratio(observed, expected)


def krippendorff_alpha(
    answers: ArrayLike,
    *,
    resamples: int = RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> Estimate:
    """Krippendorff's α (ordinal) of several judges over the items.

    Parameters
    ----------
    answers : array_like of float, shape (judges, items)
        Each judge's answer on each item (-1, 0, +1), NaN where it gave none. Items with
        fewer than two answers are left out, as α prescribes.
    resamples, rng
        As :func:`pair_agreement`; the bootstrap draws items.

    Returns
    -------
    Estimate
        ``count`` is the number of items with two answers or more.
    """
    table = np.asarray(answers, dtype=float)
    if table.ndim != 2:
        raise ValueError("`answers` must be two-dimensional (judges, items)")
    given = ~np.isnan(table)
    if not np.isin(table[given], _ANSWERS).all():
        raise ValueError("`answers` must hold only -1, 0, 1 and NaN")
    values = np.unique(table[given]).astype(int)
    k = values.size
    counts = np.stack([(table == v).sum(axis=0) for v in values], axis=1).astype(float)
    pairable = counts.sum(axis=1)
    counts = counts[pairable >= 2]
    m = counts.sum(axis=1)
    # Each item's coincidences: ordered pairs of its answers from different judges.
    per_item = (counts[:, :, None] * counts[:, None, :]) - counts[:, :, None] * np.eye(k)
    per_item = (per_item / (m - 1)[:, None, None]).reshape(-1, k * k)
    # An item's coincidences are its count of each answer's: those counts are its kind.
    kinds, weights = _by_kind(counts.astype(np.int64).reshape(-1, k), resamples, rng)
    per_kind = kinds[:, :, None] * kinds[:, None, :] - kinds[:, :, None] * np.eye(k)
    per_kind = (per_kind / (kinds.sum(axis=1) - 1)[:, None, None]).reshape(-1, k * k)
    value = float(_alpha(per_item.sum(axis=0), k)[0]) if k > 1 else math.nan
    draws = _alpha(weights @ per_kind, k) if k > 1 else np.full(resamples, math.nan)
    return _estimate(value, draws, len(per_item))
