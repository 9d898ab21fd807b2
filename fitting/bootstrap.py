"""Bootstrap interval for a graded family's macro-averaged score."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

# Resampled task draws held in memory at once (per batch of replicates).
_BATCH_ELEMENTS = 2_000_000
Interval = Literal["percentile", "smoothed_t"]
INTERVALS: tuple[str, ...] = ("percentile", "smoothed_t")


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
        Weighted mean task credit of each category.
    task_counts : ndarray of int
        Tasks in each category.
    confidence_interval : ConfidenceInterval
        The interval of ``score`` (see ``interval``).
    bootstrap_distribution : ndarray of float
        The ``n_resamples`` resampled headline scores (for ``"smoothed_t"``: smoothed
        and rescaled, before the t widening).
    confidence_level, n_resamples
        Settings used.
    interval : str
        ``"percentile"`` or ``"smoothed_t"``.
    df : float
        Welch-Satterthwaite degrees of freedom of the headline's variance
        (for ``"smoothed_t"``, whose pseudo-tasks make every category vary;
        infinite when none varies); used by ``"smoothed_t"``.
    """

    score: float
    categories: NDArray[np.generic]
    category_scores: NDArray[np.float64]
    task_counts: NDArray[np.int64]
    confidence_interval: ConfidenceInterval
    bootstrap_distribution: NDArray[np.float64]
    confidence_level: float
    n_resamples: int
    interval: str = "percentile"
    df: float = math.inf


def bootstrap_macro_score(
    credit: ArrayLike,
    category: ArrayLike,
    *,
    rng: np.random.Generator | int,
    weight: ArrayLike | None = None,
    interval: Interval = "percentile",
    confidence_level: float = 0.95,
    n_resamples: int = 9999,
) -> MacroScoreResult:
    """Macro-averaged score with a seeded, stratified bootstrap interval.

    The category score is the weighted mean task credit of the category,
    ``sum(weight * credit) / sum(weight)``; the headline is the unweighted mean
    of the category scores. Each replicate resamples tasks with replacement
    within every category (so each category keeps its size), each drawn task
    carrying its own weight, and recomputes every category score and the
    headline.

    Two intervals:

    ``"percentile"``
        The quantiles of the replicates. With few tasks per category it is too
        narrow: the bootstrap variance of a mean of ``n`` tasks is ``(n - 1) / n``
        of the unbiased one, it ignores that the variance is itself estimated
        from those few tasks, and a category whose tasks all earned the same
        credit adds no width at all (6 of 6 passed is not a true score of 1).
    ``"smoothed_t"``
        Three corrections, for suites of a few tasks per category. (1) For the
        interval's width only, each category's tasks are joined by two pseudo-tasks
        of the category's mean weight, one with credit 1 and one with credit 0
        (as Agresti and Coull add successes and failures to a binomial count), and
        the replicates resample those ``n + 2``; (2) each category's replicates
        are moved away from their centre by ``sqrt(k / (k - 1))`` (the rescaling
        bootstrap of Rao and Wu, 1988), ``k`` the effective number of the ``n + 2``
        (Kish's ``sum(w)**2 / sum(w**2)``; ``n + 2`` with equal weights), and then
        placed around the category's own score; (3) the quantiles of the resulting
        headline are widened by ``t(df) / z``, the Student quantile at the
        Welch-Satterthwaite degrees of freedom of the categories' variances (the
        effective number of real tasks - 1 each) over the normal one. The interval
        is clipped to [0, 1] and always holds the score. Needs two tasks in every
        category.

    Parameters
    ----------
    credit : array_like of float
        Credit of each task in [0, 1] (0 for failures and unattempted tasks).
    category : array_like
        Category label of each task.
    rng : numpy.random.Generator or int
        Source of randomness, or a seed for ``numpy.random.default_rng``.
        Required, so that every interval can be reproduced from its record.
    weight : array_like of float, optional
        Positive weight of each task inside its category (default: all 1).
        With no weights the replicates are plain means (as before weights).
    interval : {"percentile", "smoothed_t"}, optional
        The interval to report (default ``"percentile"``).
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
    credit_arr, weights, labels, generator = _bootstrap_macro_score_iv(
        credit, category, weight, rng, interval, confidence_level, n_resamples
    )
    categories, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    smoothed = interval == "smoothed_t"
    if smoothed and counts.min() < 2:
        raise ValueError("`category`: the smoothed_t interval needs two tasks in every category.")
    w = np.ones_like(credit_arr) if weights is None else weights
    sums = np.bincount(inverse, weights=w * credit_arr, minlength=categories.size)
    category_scores = sums / np.bincount(inverse, weights=w, minlength=categories.size)

    replicates = np.zeros(n_resamples)
    variances = np.zeros(categories.size)
    dof = np.zeros(categories.size)
    for index in range(categories.size):
        tasks, task_weights = credit_arr[inverse == index], w[inverse == index]
        if smoothed:
            tasks = np.append(tasks, [1.0, 0.0])
            task_weights = np.append(task_weights, [task_weights.mean()] * 2)
        count = tasks.size
        centre = float(np.dot(task_weights, tasks) / task_weights.sum())
        # Kish's effective number of tasks: unequal weights make a mean of fewer tasks.
        effective = _kish(task_weights)
        dof[index] = _kish(w[inverse == index]) - 1.0
        batch = max(1, _BATCH_ELEMENTS // count)
        for start in range(0, n_resamples, batch):
            stop = min(start + batch, n_resamples)
            draws = generator.integers(0, count, size=(stop - start, count))
            if weights is None and not smoothed:
                resampled = tasks[draws].mean(axis=1)  # as before weights, to the last bit
            else:
                drawn = task_weights[draws]
                resampled = (drawn * tasks[draws]).sum(axis=1) / drawn.sum(axis=1)
            if smoothed:
                spread = math.sqrt(effective / (effective - 1))
                resampled = category_scores[index] + spread * (resampled - centre)
            replicates[start:stop] += resampled
        # Linearised (delta-method) variance of the category's ratio estimate.
        residual = task_weights * (tasks - centre)
        variances[index] = (
            effective
            * float(np.sum(residual**2))
            / ((effective - 1) * float(task_weights.sum()) ** 2)
            if count > 1
            else 0.0
        )
    replicates /= categories.size
    score = float(category_scores.mean())
    df = _satterthwaite(variances, dof)

    alpha = 1.0 - confidence_level
    low, high = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0])
    if smoothed:
        widen = student_quantile(1.0 - alpha / 2.0, df) / _normal_quantile(1.0 - alpha / 2.0)
        low = min(max(score - widen * (score - low), 0.0), score)
        high = max(min(score + widen * (high - score), 1.0), score)
    return MacroScoreResult(
        score=score,
        categories=categories,
        category_scores=category_scores,
        task_counts=counts.astype(np.int64),
        confidence_interval=ConfidenceInterval(low=float(low), high=float(high)),
        bootstrap_distribution=replicates,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
        interval=interval,
        df=df,
    )


def _kish(weights: NDArray[np.float64]) -> float:
    return float(weights.sum()) ** 2 / float(np.sum(weights**2))


def _satterthwaite(variances: NDArray[np.float64], dof: NDArray[np.float64]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of the categories' variances, each
    with ``dof`` degrees of freedom (categories of one task have none and add nothing)."""
    total = float(variances.sum())
    spread = variances[dof > 0] ** 2 / dof[dof > 0]
    if total <= 0.0 or not spread.any():
        return math.inf
    return total**2 / float(spread.sum())


def _normal_quantile(p: float) -> float:
    return NormalDist().inv_cdf(p)


# Gauss-Legendre nodes and weights on [-1, 1], for the Student CDF's integral.
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(64)


def student_quantile(p: float, df: float) -> float:
    """The ``p`` quantile (0.5 < p < 1) of Student's t with ``df`` ≥ 1 degrees of freedom.

    With ``t = sqrt(df) tan(θ)``, ``P(0 < T < t)`` is ``c ∫₀^θ cos(u)^(df-1) du``, a
    smooth integral taken by Gauss-Legendre quadrature; Newton's method on θ
    finds the quantile (numpy only; within 1e-8 of SciPy's ``t.ppf``, relatively).
    """
    z = _normal_quantile(p)
    if math.isinf(df):
        return z
    if df >= 300:  # the Cornish-Fisher expansion (Abramowitz and Stegun 26.7.5) is exact here
        terms = (
            (z**3 + z) / 4,
            (5 * z**5 + 16 * z**3 + 3 * z) / 96,
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
            (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
        )
        return z + sum(g / df ** (i + 1) for i, g in enumerate(terms))
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(math.pi))
    target = p - 0.5

    def integrand(u: NDArray[np.float64] | float) -> NDArray[np.float64]:
        # cos(u)^(df-1), through log1p(-sin²) so that a large df keeps its precision.
        return np.exp((df - 1) / 2 * np.log1p(-(np.sin(u) ** 2)))

    theta = math.atan(z / math.sqrt(df))
    for _ in range(200):
        below = scale * theta / 2 * float(np.dot(_WEIGHTS, integrand(theta / 2 * (_NODES + 1))))
        step = (below - target) / (scale * float(integrand(theta)))
        theta = min(max(theta - step, theta / 2), (theta + math.pi / 2) / 2)
        if abs(step) < 1e-14 * max(theta, 1e-300):
            break
    return math.sqrt(df) * math.tan(theta)


def _bootstrap_macro_score_iv(
    credit: ArrayLike,
    category: ArrayLike,
    weight: ArrayLike | None,
    rng: np.random.Generator | int,
    interval: str,
    confidence_level: float,
    n_resamples: int,
) -> tuple[
    NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.generic], np.random.Generator
]:
    credit_arr = np.asarray(credit, dtype=np.float64)
    if credit_arr.ndim != 1 or credit_arr.size == 0:
        raise ValueError("`credit` must be a non-empty one-dimensional array.")
    if not np.all((credit_arr >= 0.0) & (credit_arr <= 1.0)):
        raise ValueError("`credit` must lie in [0, 1].")
    labels = np.asarray(category)
    if labels.shape != credit_arr.shape:
        raise ValueError("`category` must have one label per task in `credit`.")
    weights = None
    if weight is not None:
        weights = np.asarray(weight, dtype=np.float64)
        if weights.shape != credit_arr.shape:
            raise ValueError("`weight` must have one weight per task in `credit`.")
        if not np.all(np.isfinite(weights) & (weights > 0.0)):
            raise ValueError("`weight` must be positive and finite.")
    if isinstance(rng, np.random.Generator):
        generator = rng
    elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        generator = np.random.default_rng(int(rng))
    else:
        raise ValueError("`rng` must be a numpy.random.Generator or a non-negative integer seed.")
    if interval not in INTERVALS:
        raise ValueError(f"`interval` must be one of {', '.join(INTERVALS)}.")
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, (int, float)):
        raise ValueError("`confidence_level` must be a number in (0, 1).")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError("`confidence_level` must be a number in (0, 1).")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError("`n_resamples` must be a positive integer.")
    if n_resamples < 1:
        raise ValueError("`n_resamples` must be a positive integer.")
    return credit_arr, weights, labels, generator
