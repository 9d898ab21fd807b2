"""The judges' agreement figures as fitting/judge_agreement.py computed them before its
bootstrap drew by counts (a resamples × items matrix of draws): the oracle the tests
compare the figures with. Not used by Arena.

Agreement between judges of the same pairs: two at a time, and all together.

An answer on an item (one pair of systems on one case) is coded ``-1`` (the pair's first
system is better), ``0`` (a tie) or ``+1`` (the second is better): an ordered scale, so
Krippendorff's α is the ordinal one. Every figure comes with a 95% percentile interval
from one seeded bootstrap over items (each resample draws the items with replacement and
recomputes every figure on the same draw).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: How many bootstrap resamples an interval is read from, unless told.
RESAMPLES = 2000
_ANSWERS = (-1, 0, 1)


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


def _weights(n: int, resamples: int, rng: np.random.Generator | int | None) -> np.ndarray:
    """How many times each of ``n`` items is drawn in each resample: (resamples, n)."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError("`resamples` must be a positive integer")
    generator = np.random.default_rng(rng)
    if n == 0:
        return np.zeros((resamples, 0))
    return generator.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(float)


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
    cells = np.zeros((a.size, 9))
    cells[np.arange(a.size), (a + 1) * 3 + (b + 1)] = 1.0
    weights = _weights(a.size, resamples, rng)
    ones = np.ones(a.size)
    return PairAgreement(
        with_ties=_estimate(
            float(_ratio(same.sum(), ones.sum())), _ratio(weights @ same, weights @ ones), a.size
        ),
        without_ties=_estimate(
            float(_ratio((same * decisive).sum(), decisive.sum())),
            _ratio(weights @ (same * decisive), weights @ decisive),
            int(decisive.sum()),
        ),
        kappa=_estimate(float(_kappa(cells.sum(axis=0))[0]), _kappa(weights @ cells), a.size),
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
    weights = _weights(a.size, resamples, rng)
    ones = np.ones(a.size)
    return PositionResult(
        consistency=_estimate(
            float(_ratio(same.sum(), ones.sum())), _ratio(weights @ same, weights @ ones), a.size
        ),
        first_preference=_estimate(
            float(_ratio(for_first.sum(), decisive.sum())),
            _ratio(weights @ for_first, weights @ decisive),
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
    weights = _weights(len(per_item), resamples, rng)
    value = float(_alpha(per_item.sum(axis=0), k)[0]) if k > 1 else math.nan
    draws = _alpha(weights @ per_item, k) if k > 1 else np.full(resamples, math.nan)
    return _estimate(value, draws, len(per_item))
