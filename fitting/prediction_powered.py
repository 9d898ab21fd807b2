"""Prediction-powered Bradley–Terry: a judge's verdicts, corrected by the rater's votes.

PPI++ (Angelopoulos, Duchi and Zrnic 2023) for the penalized Bradley–Terry fit of
:mod:`fitting.points`. The rater's votes are the labeled set, each with the judge's
prediction ``y_hat`` on the same item (a judge that judged both orders gives the mean of
its two verdicts); the judge's verdicts on the items the rater did not vote on are the
unlabeled set. Stratified by system pair ``s``, with ``n_s`` the rater's weight on ``s``
(votes with a prediction) and ``N_s`` the judge's items on ``s`` (voted on or not), the
fit minimises, in the sum scale of the rater-only fit (so the penalty keeps its meaning),

    sum_s [ sum_{votes of s} w (l(y) - lam l(y_hat)) + lam (n_s/N_s) sum_{items of s} l(y_hat) ]
        + sum_{fixed} w l(y) + (penalty/2) ||s||^2,

``l`` the Bradley–Terry loss of one comparison. Each stratum's rectifier is the mean of the
rater's ``l(y) - lam * l(y_hat)``, its judge term the mean of the judge's ``l(y_hat)``,
both weighted by the rater's own ``n_s``: the estimate targets the rater's board whatever
design chose the rater's pairs, and ``lam = 0`` is exactly the rater-only fit. Votes
without a prediction and fixed comparisons (pairs settled without a vote) enter as they
do today. The objective is linear in the win matrix, so every ``lam`` is one fit of
:func:`fitting.points.points_of_wins` with the same total weight per pair (convex).

Intervals are the sandwich (CLT) ones, ``H^-1 V H^-1``: ``V`` sums, per stratum and
independent part (the rater's items, the judge's other items, the rest), the variance of
that part's summed gradient. ``lam`` is tuned as PPI++ does (the variance-minimising
value, at the rater-only fit, clipped to [0, 1]), then taken from a small grid holding 0
and the tuned value so that no system's interval is wider than at ``lam = 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, ndtri

from ._comparisons import aggregate, comparisons_iv, is_real, solver_settings_iv
from .defaults import DEFAULT_PENALTY, DEFAULT_THRESHOLD, POINTS_PER_LOGIT
from .points import PointsResult, points_of_wins

#: Fractions of the tuned weight tried, largest first, before giving up to 0.
_GRID = (1.0, 0.75, 0.5, 0.25)
# Relative slack when comparing a variance with the rater-only one (rounding).
_WIDER = 1e-9


@dataclass(frozen=True)
class PredictionPoweredResult:
    """Result of :func:`fit_prediction_powered`; arrays are indexed by system.

    Attributes
    ----------
    board : PointsResult
        The board at the chosen ``lam`` (points, ranks, anchor, statuses).
    lam : float
        The judge's weight used (0: the rater-only board).
    lam_tuned : float
        The PPI++ variance-minimising weight, clipped to [0, 1].
    lam_tried : ndarray of float
        The weights tried, and ``qualified``: whether each kept every interval no
        wider than at 0.
    low, high : ndarray of float
        Each ranked system's sandwich interval of points (NaN for the others; the
        anchor's is ``[base, base]``).
    standard_error, rater_only_standard_error : ndarray of float
        Each ranked system's standard error of points at ``lam`` and at 0.
    votes : int
        The rater's votes in the fit (with or without a prediction).
    effective_votes : float
        ``votes * mean(var at 0) / mean(var at lam)`` over the ranked systems but the
        anchor: how many votes the rater alone would need for the same mean variance.
    effective_votes_ci : tuple of float
        Its percentile interval over a cluster bootstrap (``lam`` and the Hessian
        held at the estimate's).
    confidence_level, n_resamples
        Settings used.
    """

    board: PointsResult
    lam: float
    lam_tuned: float
    lam_tried: NDArray[np.float64]
    qualified: NDArray[np.bool_]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    standard_error: NDArray[np.float64]
    rater_only_standard_error: NDArray[np.float64]
    votes: int
    effective_votes: float
    effective_votes_ci: tuple[float, float]
    confidence_level: float
    n_resamples: int


@dataclass(frozen=True)
class _Items:
    """Every item as a contribution to the objective, by stratum (unordered system pair,
    oriented low index first) and part (0: the rater's votes with a prediction, 1: the
    judge's other items, 2: the rest)."""

    p: NDArray[np.intp]
    q: NDArray[np.intp]
    stratum: NDArray[np.intp]  # index into the strata (pairs) met
    part: NDArray[np.intp]
    w: NDArray[np.float64]  # the weight of y (0 for the judge's other items)
    y: NDArray[np.float64]  # oriented to p
    y_hat: NDArray[np.float64]  # oriented to p; 0 where there is none
    judged: NDArray[np.float64]  # the weight of y_hat per unit lam
    cluster: NDArray[np.intp]
    pairs: NDArray[np.intp]  # (n_strata, 2)
    is_vote: NDArray[np.bool_]  # the rater's votes (counted in ``votes``)


def fit_prediction_powered(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    y_hat: ArrayLike,
    w: ArrayLike | None = None,
    *,
    unlabeled_a: ArrayLike,
    unlabeled_b: ArrayLike,
    unlabeled_y_hat: ArrayLike,
    n_systems: int,
    fixed_a: ArrayLike = (),
    fixed_b: ArrayLike = (),
    fixed_y: ArrayLike = (),
    fixed_w: ArrayLike | None = None,
    selection_probability: ArrayLike | None = None,
    cluster: ArrayLike | None = None,
    unlabeled_cluster: ArrayLike | None = None,
    fixed_cluster: ArrayLike | None = None,
    lam: float | None = None,
    penalty: float = DEFAULT_PENALTY,
    anchor: int | None = None,
    base: float = 1000.0,
    decisive_votes: ArrayLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    confidence_level: float = 0.95,
    n_resamples: int = 200,
    rng: int | np.random.Generator = 0,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> PredictionPoweredResult:
    """Fit the prediction-powered board of the rater's votes and a judge's verdicts.

    Parameters
    ----------
    a, b, y, w : array_like
        The rater's votes (the labeled set): sides, outcome for ``a`` (1, 0.5, 0) and
        weight (default 1).
    y_hat : array_like of float
        The judge's prediction for ``a`` on each vote's item, in [0, 1]; NaN where the
        judge did not judge it (the vote then enters as in the rater-only fit).
    unlabeled_a, unlabeled_b, unlabeled_y_hat : array_like
        The judge's verdicts on the items the rater did not vote on.
    n_systems : int
        Number of systems.
    fixed_a, fixed_b, fixed_y, fixed_w : array_like, optional
        Comparisons fitted as they are whatever ``lam`` (pairs settled without a vote);
        they come first, the votes after them, as in the rater-only fit.
    selection_probability : array_like of float, optional
        The probability with which the design chose each vote's item; the votes of a
        stratum are then weighted by its inverse, scaled to keep the stratum's weight.
    cluster, unlabeled_cluster, fixed_cluster : array_like of int, optional
        Each item's cluster (its case) for the bootstrap of ``effective_votes``
        (default: each item its own).
    lam : float, optional
        The judge's weight; by default tuned (see the module docstring).
    penalty, anchor, base, decisive_votes, threshold, tol, max_iter
        As :func:`fitting.fit_points` (``decisive_votes`` defaults to the decisive votes
        among the rater's and the fixed comparisons).
    confidence_level : float
        Of the intervals.
    n_resamples : int
        Bootstrap replicates of ``effective_votes``.
    rng : int or numpy.random.Generator
        The bootstrap's randomness.

    Returns
    -------
    PredictionPoweredResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    solver_settings_iv(penalty, tol, max_iter)
    if lam is not None and (not is_real(lam) or not 0.0 <= lam <= 1.0):
        raise ValueError("`lam` must be a number in [0, 1] or None.")
    if not is_real(confidence_level) or not 0.0 < confidence_level < 1.0:
        raise ValueError("`confidence_level` must be in (0, 1).")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise ValueError("`n_resamples` must be an integer >= 1.")
    if n_resamples < 1:
        raise ValueError("`n_resamples` must be an integer >= 1.")
    generator = np.random.default_rng(rng)

    # The rater-only comparisons, fixed first, validated as fit_points validates them.
    fixed = comparisons_iv(fixed_a, fixed_b, fixed_y, fixed_w, n_systems)
    votes = comparisons_iv(a, b, y, w, n_systems)
    n = votes.n_systems
    hat = _unit_array(y_hat, "y_hat", votes.a.size, allow_nan=True)
    unlabeled = comparisons_iv(unlabeled_a, unlabeled_b, np.zeros(np.shape(unlabeled_a)), None, n)
    un_hat = _unit_array(unlabeled_y_hat, "unlabeled_y_hat", unlabeled.a.size, allow_nan=False)
    weight = np.array(votes.w, dtype=np.float64)
    if selection_probability is not None:
        weight = _inverse_probability(weight, selection_probability, votes.a, votes.b, n)
    both = comparisons_iv(
        np.concatenate([fixed.a, votes.a]),
        np.concatenate([fixed.b, votes.b]),
        np.concatenate([fixed.y, votes.y]),
        np.concatenate([fixed.w, weight]),
        n,
    )
    totals = aggregate(both)
    decided = totals.decisive
    if decisive_votes is not None:
        decided = np.asarray(decisive_votes, dtype=np.float64)
        if decided.shape != (n,) or not np.all(np.isfinite(decided) & (decided >= 0)):
            raise ValueError("`decisive_votes` must hold n_systems finite counts >= 0.")
    if anchor is not None and (
        isinstance(anchor, bool) or not isinstance(anchor, (int, np.integer)) or not 0 <= anchor < n
    ):
        raise ValueError("`anchor` must be a system index in [0, n_systems) or None.")
    if not is_real(base) or not math.isfinite(base):
        raise ValueError("`base` must be a finite number.")
    clusters = [
        _clusters(cluster, "cluster", votes.a.size),
        _clusters(unlabeled_cluster, "unlabeled_cluster", unlabeled.a.size),
        _clusters(fixed_cluster, "fixed_cluster", fixed.a.size),
    ]
    if cluster is None or unlabeled_cluster is None or fixed_cluster is None:
        # Items without a cluster are each their own, apart from every named one.
        top = 1 + max((int(c.max()) for c in clusters if c.size), default=0)
        for i, given in enumerate((cluster, unlabeled_cluster, fixed_cluster)):
            if given is None:
                clusters[i] = top + np.arange(clusters[i].size)
                top += clusters[i].size
    items = _items(votes, weight, hat, unlabeled, un_hat, fixed, clusters, n)

    settings = {
        "penalty": penalty,
        "anchor": None if anchor is None else int(anchor),
        "base": base,
        "threshold": threshold,
        "tol": tol,
        "max_iter": max_iter,
    }
    rater_only = _Fit(totals.wins, decided, items, 0.0, settings)
    tuned = rater_only.tuned() if lam is None else float(lam)
    tried = [0.0] if lam is None else []
    candidates = [rater_only] if lam is None else []
    if lam is not None:
        grid = [float(lam)]
    else:
        grid = sorted({f * tuned for f in _GRID if f * tuned > 0.0}, reverse=True)
    for value in grid:
        tried.append(value)
        candidates.append(
            rater_only if value == 0.0 else _Fit(totals.wins, decided, items, value, settings)
        )
    base_var = rater_only.variance()
    qualified = [bool(np.all(c.variance() <= base_var * (1 + _WIDER))) for c in candidates]
    if lam is None:
        # The qualifying weight with the smallest mean variance (0 always qualifies).
        best = min(
            (i for i, ok in enumerate(qualified) if ok),
            key=lambda i: (float(np.mean(candidates[i].variance())) if base_var.size else 0.0, i),
        )
    else:
        best = 0
    chosen = candidates[best]
    z = float(ndtri(0.5 + confidence_level / 2))
    se = chosen.standard_errors()
    low = chosen.board.points - z * se
    high = chosen.board.points + z * se
    n_votes = int(votes.a.size)
    effective, interval = chosen.effective_votes(
        rater_only, n_votes, n_resamples, generator, confidence_level
    )
    return PredictionPoweredResult(
        board=chosen.board,
        lam=chosen.lam,
        lam_tuned=tuned,
        lam_tried=np.array(tried),
        qualified=np.array(qualified),
        low=low,
        high=high,
        standard_error=se,
        rater_only_standard_error=rater_only.standard_errors(),
        votes=n_votes,
        effective_votes=effective,
        effective_votes_ci=interval,
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
    )


class _Fit:
    """The board at one ``lam``, and what its sandwich variance needs."""

    def __init__(
        self,
        wins: NDArray[np.float64],
        decided: NDArray[np.float64],
        items: _Items,
        lam: float,
        settings: dict,
    ) -> None:
        self.lam = lam
        self.items = items
        fitted = None
        if lam != 0.0:  # at 0 the rater-only matrix itself: the same fit to the last digit
            fitted = wins + lam * _wins(items.p, items.q, items.judged, items.y_hat, wins.shape[0])
        self.board = points_of_wins(wins, decided, fitted=fitted, **settings)
        s = self.board.strengths
        self.sigma = expit(s[items.pairs[:, 0]] - s[items.pairs[:, 1]])
        self.penalty = float(settings["penalty"])
        self._contrast = self._contrasts(wins)

    def _contrasts(self, wins: NDArray[np.float64]) -> NDArray[np.float64]:
        """``C[i, s]``: how a unit of gradient on stratum ``s`` moves system ``i``'s points
        relative to the anchor (rows: the ranked systems; zero for the anchor)."""
        board = self.board
        ranked = np.flatnonzero(board.ranked)
        pairs = self.items.pairs
        contrast = np.zeros((ranked.size, pairs.shape[0]))
        if board.anchor is None or ranked.size < 2:
            self.ranked = ranked
            return contrast
        s = board.strengths[ranked]
        prob = expit(np.subtract.outer(s, s))
        total = (wins + wins.T)[np.ix_(ranked, ranked)]
        hess = -total * prob * (1.0 - prob)
        np.fill_diagonal(hess, 0.0)
        hess[np.diag_indices_from(hess)] = self.penalty - hess.sum(axis=1)
        # Without a penalty the Hessian is singular along the constant vector, which every
        # gradient and every contrast with the anchor is orthogonal to.
        inverse = np.linalg.inv(hess) if self.penalty > 0.0 else np.linalg.pinv(hess)
        where = np.full(board.points.shape[0], -1)
        where[ranked] = np.arange(ranked.size)
        p, q = where[pairs[:, 0]], where[pairs[:, 1]]
        inside = (p >= 0) & (q >= 0)
        contrast[:, inside] = inverse[:, p[inside]] - inverse[:, q[inside]]
        contrast -= contrast[where[board.anchor]]
        self.ranked = ranked
        return POINTS_PER_LOGIT * contrast

    def gradients(self, lam: float) -> NDArray[np.float64]:
        """Each item's part of the gradient along its stratum, at ``lam``."""
        it = self.items
        sigma = self.sigma[it.stratum]
        return it.w * (sigma - it.y) + lam * it.judged * (sigma - it.y_hat)

    def variance(self, lam: float | None = None) -> NDArray[np.float64]:
        """Sandwich variance of each ranked system's points (0 for the anchor)."""
        x = self.gradients(self.lam if lam is None else lam)
        key = self.items.stratum * 3 + self.items.part
        groups = 3 * self.items.pairs.shape[0]
        m = np.bincount(key, minlength=groups).astype(np.float64)
        s1 = np.bincount(key, weights=x, minlength=groups).astype(np.float64)
        s2 = np.bincount(key, weights=x * x, minlength=groups).astype(np.float64)
        per_stratum = _part_variance(m, s1, s2).reshape(-1, 3).sum(axis=1)
        return np.asarray((self._contrast**2) @ per_stratum)

    def standard_errors(self) -> NDArray[np.float64]:
        se = np.full(self.board.points.shape[0], np.nan)
        se[self.ranked] = np.sqrt(self.variance())
        return se

    def tuned(self) -> float:
        """PPI++'s weight: the minimiser of the summed variance (quadratic in ``lam``, the
        fit held at this one), clipped to [0, 1]."""
        at = {value: float(np.sum(self.variance(value))) for value in (-1.0, 0.0, 1.0)}
        curvature = (at[1.0] + at[-1.0]) / 2 - at[0.0]
        slope = (at[1.0] - at[-1.0]) / 2
        if not curvature > 0.0 or not math.isfinite(slope):
            return 0.0
        return float(np.clip(-slope / (2 * curvature), 0.0, 1.0))

    def effective_votes(
        self,
        rater_only: _Fit,
        votes: int,
        n_resamples: int,
        rng: np.random.Generator,
        confidence_level: float,
    ) -> tuple[float, tuple[float, float]]:
        """``votes`` times the rater-only board's mean variance over this one's, and its
        cluster-bootstrap percentile interval (``lam``, Hessians and fitted probabilities
        held; each replicate's sums are one sparse product)."""
        mean = float(np.mean(self.variance()[self._others()])) if self._others().any() else 0.0
        before = float(np.mean(rater_only.variance()[self._others()])) if mean else 0.0
        if self.lam == 0.0 or mean <= 0.0:
            return float(votes), (float(votes), float(votes))
        point = votes * before / mean
        it = self.items
        key = it.stratum * 3 + it.part
        groups, group = np.unique(key, return_inverse=True)
        clusters, member = np.unique(it.cluster, return_inverse=True)
        x0, x1 = rater_only.gradients(0.0), self.gradients(self.lam)
        is_vote = it.is_vote
        stats = np.stack([np.ones_like(x0), x0, x0 * x0, x1, x1 * x1], axis=1)
        rows = np.repeat(member, 5)
        cols = (group[:, None] * 5 + np.arange(5)).ravel()
        table = scipy.sparse.csr_array(
            (stats.ravel(), (rows, cols)), shape=(clusters.size, groups.size * 5)
        )
        counted = np.bincount(member, weights=is_vote.astype(np.float64), minlength=clusters.size)
        draws = rng.multinomial(
            clusters.size, np.full(clusters.size, 1.0 / clusters.size), size=n_resamples
        )
        sums = np.asarray(table.T @ draws.T, dtype=np.float64).T.reshape(
            n_resamples, groups.size, 5
        )
        strata = groups // 3
        n_strata = it.pairs.shape[0]
        means = []
        for fit, offset in ((rater_only, 1), (self, 3)):
            v = _part_variance(sums[:, :, 0], sums[:, :, offset], sums[:, :, offset + 1])
            per = np.zeros((n_strata, n_resamples))
            np.add.at(per, strata, v.T)
            means.append(((fit._contrast[self._others()] ** 2) @ per).mean(axis=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (draws @ counted) * means[0] / means[1]
        ratio = ratio[np.isfinite(ratio)]
        if not ratio.size:
            return point, (math.nan, math.nan)
        tail = (1 - confidence_level) / 2
        low, high = np.quantile(ratio, [tail, 1 - tail])
        return point, (float(low), float(high))

    def _others(self) -> NDArray[np.bool_]:
        """Among the ranked systems, all but the anchor."""
        return np.asarray(self.ranked != self.board.anchor)


def _part_variance(
    m: NDArray[np.float64], s1: NDArray[np.float64], s2: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The variance of a sum of ``m`` independent terms from their sum and sum of squares:
    ``m / (m - 1)`` times the centred sum of squares; a lone term, its square (nothing
    to centre on, so the cautious side)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        centred = np.maximum(s2 - s1 * s1 / m, 0.0) * m / (m - 1)
    return np.where(m >= 2, centred, np.where(m > 0, s2, 0.0))


def _wins(
    p: NDArray[np.intp],
    q: NDArray[np.intp],
    weight: NDArray[np.float64],
    target: NDArray[np.float64],
    n: int,
) -> NDArray[np.float64]:
    """The win matrix of comparisons of ``p`` with ``q`` won by ``p`` with probability
    ``target``, each with ``weight`` (possibly negative)."""
    slots = n * n
    won = np.bincount(p * n + q, weights=weight * target, minlength=slots)
    lost = np.bincount(q * n + p, weights=weight * (1.0 - target), minlength=slots)
    return np.asarray((won + lost).reshape(n, n))


def _unit_array(values: ArrayLike, name: str, size: int, *, allow_nan: bool) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] != size:
        raise ValueError(f"`{name}` must be one-dimensional with one entry per comparison.")
    known = arr[~np.isnan(arr)] if allow_nan else arr
    if (not allow_nan and np.isnan(arr).any()) or np.any((known < 0.0) | (known > 1.0)):
        raise ValueError(
            f"`{name}` must hold predictions in [0, 1]" + (" or NaN." if allow_nan else ".")
        )
    return arr


def _clusters(values: ArrayLike | None, name: str, size: int) -> NDArray[np.intp]:
    if values is None:
        return np.zeros(size, dtype=np.intp)
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != size or (size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"`{name}` must hold one integer per comparison.")
    if size and arr.min() < 0:
        raise ValueError(f"`{name}` must hold integers >= 0.")
    return arr.astype(np.intp, copy=False)


def _inverse_probability(
    weight: NDArray[np.float64],
    probability: ArrayLike,
    a: NDArray[np.intp],
    b: NDArray[np.intp],
    n: int,
) -> NDArray[np.float64]:
    """Each vote's weight over its selection probability, rescaled so every stratum keeps
    the rater's weight on it."""
    prob = np.asarray(probability, dtype=np.float64)
    if prob.shape != weight.shape or not np.all((prob > 0.0) & (prob <= 1.0)):
        raise ValueError("`selection_probability` must hold one probability in (0, 1] per vote.")
    key = np.minimum(a, b) * n + np.maximum(a, b)
    scaled = weight / prob
    before = np.bincount(key, weights=weight, minlength=n * n)
    after = np.bincount(key, weights=scaled, minlength=n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(after > 0, before / after, 0.0)
    return np.asarray(scaled * factor[key])


def _items(votes, weight, hat, unlabeled, un_hat, fixed, clusters, n) -> _Items:  # type: ignore[no-untyped-def]
    """Every vote, judged item and fixed comparison, oriented by stratum (see _Items)."""
    a = np.concatenate([votes.a, unlabeled.a, fixed.a])
    b = np.concatenate([votes.b, unlabeled.b, fixed.b])
    has_hat = ~np.isnan(hat)
    part = np.concatenate(
        [
            np.where(has_hat, 0, 2),
            np.ones(unlabeled.a.size, dtype=np.intp),
            np.full(fixed.a.size, 2, dtype=np.intp),
        ]
    ).astype(np.intp)
    w = np.concatenate([weight, np.zeros(unlabeled.a.size), np.asarray(fixed.w, dtype=np.float64)])
    y = np.concatenate([votes.y, np.zeros(unlabeled.a.size), fixed.y])
    y_hat = np.concatenate([np.where(has_hat, hat, 0.0), un_hat, np.zeros(fixed.a.size)])
    flip = a > b
    p, q = np.where(flip, b, a), np.where(flip, a, b)
    y = np.where(flip, 1.0 - y, y)
    y_hat = np.where(flip, 1.0 - y_hat, y_hat)
    keys, stratum = np.unique(p * n + q, return_inverse=True)
    strata = keys.size
    # n_s: the rater's weight on votes with a prediction; N_s: the judge's items.
    rated = np.bincount(stratum, weights=np.where(part == 0, w, 0.0), minlength=strata)
    judged_items = np.bincount(stratum, weights=(part <= 1).astype(np.float64), minlength=strata)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(judged_items > 0, rated / judged_items, 0.0)
    f = share[stratum]
    judged = np.where(part == 0, -(w - f), np.where(part == 1, f, 0.0))
    is_vote = np.zeros(a.size, dtype=bool)
    is_vote[: votes.a.size] = True
    return _Items(
        p=p.astype(np.intp),
        q=q.astype(np.intp),
        stratum=stratum.astype(np.intp),
        part=part,
        w=w,
        y=y,
        y_hat=y_hat,
        judged=judged,
        cluster=np.concatenate(clusters).astype(np.intp),
        pairs=np.stack([keys // n, keys % n], axis=1).astype(np.intp),
        is_vote=is_vote,
    )
