"""Bootstrap interval for a graded family's macro-averaged score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

# Resampled task draws held in memory at once (per batch of replicates).
_BATCH_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided interval."""

    low: float
    high: float


@dataclass(frozen=True)
class MacroScoreResult:
    """Result of :func:`bootstrap_macro_score`.

    Attributes
    ----------
    score : float
        Headline: the mean of the category scores.
    categories : ndarray
        Category labels, sorted.
    category_scores : ndarray of float
        Mean task credit of each category.
    task_counts : ndarray of int
        Tasks in each category.
    confidence_interval : ConfidenceInterval
        Percentile interval of the bootstrap distribution of ``score``.
    bootstrap_distribution : ndarray of float
        The ``n_resamples`` resampled headline scores.
    confidence_level, n_resamples
        Settings used.
    """

    score: float
    categories: NDArray[np.generic]
    category_scores: NDArray[np.float64]
    task_counts: NDArray[np.int64]
    confidence_interval: ConfidenceInterval
    bootstrap_distribution: NDArray[np.float64]
    confidence_level: float
    n_resamples: int


def bootstrap_macro_score(
    credit: ArrayLike,
    category: ArrayLike,
    *,
    rng: np.random.Generator | int,
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
) -> MacroScoreResult:
    """Macro-averaged score with a seeded percentile bootstrap interval.

    The category score is the mean task credit of the category; the headline
    is the unweighted mean of the category scores. Each replicate resamples
    tasks with replacement within every category (so each category keeps its
    size) and recomputes the headline.

    Parameters
    ----------
    credit : array_like of float
        Credit of each task in [0, 1] (0 for failures and unattempted tasks).
    category : array_like
        Category label of each task.
    rng : numpy.random.Generator or int
        Source of randomness, or a seed for ``numpy.random.default_rng``.
        Required, so that every interval can be reproduced from its record.
    confidence_level : float, optional
        Coverage of the two-sided interval, in (0, 1).
    n_resamples : int, optional
        Bootstrap replicates.

    Returns
    -------
    MacroScoreResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    credit_arr, labels, generator = _bootstrap_macro_score_iv(
        credit, category, rng, confidence_level, n_resamples
    )
    categories, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=credit_arr, minlength=categories.size)
    category_scores = sums / counts

    replicates = np.zeros(n_resamples)
    for index, count in enumerate(counts):
        tasks = credit_arr[inverse == index]
        batch = max(1, _BATCH_ELEMENTS // int(count))
        for start in range(0, n_resamples, batch):
            stop = min(start + batch, n_resamples)
            draws = generator.integers(0, count, size=(stop - start, count))
            replicates[start:stop] += tasks[draws].mean(axis=1)
    replicates /= categories.size

    alpha = 1.0 - confidence_level
    low, high = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0])
    return MacroScoreResult(
        score=float(category_scores.mean()),
        categories=categories,
        category_scores=category_scores,
        task_counts=counts.astype(np.int64),
        confidence_interval=ConfidenceInterval(low=float(low), high=float(high)),
        bootstrap_distribution=replicates,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
    )


def _bootstrap_macro_score_iv(
    credit: ArrayLike,
    category: ArrayLike,
    rng: np.random.Generator | int,
    confidence_level: float,
    n_resamples: int,
) -> tuple[NDArray[np.float64], NDArray[np.generic], np.random.Generator]:
    credit_arr = np.asarray(credit, dtype=np.float64)
    if credit_arr.ndim != 1 or credit_arr.size == 0:
        raise ValueError("`credit` must be a non-empty one-dimensional array.")
    if not np.all((credit_arr >= 0.0) & (credit_arr <= 1.0)):
        raise ValueError("`credit` must lie in [0, 1].")
    labels = np.asarray(category)
    if labels.shape != credit_arr.shape:
        raise ValueError("`category` must have one label per task in `credit`.")
    if isinstance(rng, np.random.Generator):
        generator = rng
    elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        generator = np.random.default_rng(int(rng))
    else:
        raise ValueError("`rng` must be a numpy.random.Generator or a non-negative integer seed.")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, (int, float)):
        raise ValueError("`confidence_level` must be a number in (0, 1).")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError("`confidence_level` must be a number in (0, 1).")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError("`n_resamples` must be a positive integer.")
    if n_resamples < 1:
        raise ValueError("`n_resamples` must be a positive integer.")
    return credit_arr, labels, generator
