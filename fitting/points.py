"""Point scores: a penalized Bradley–Terry fit, anchored, ranked and flagged."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _graph
from ._comparisons import Comparisons, aggregate, comparisons_iv, is_real, solver_settings_iv
from .bradley_terry import PairwiseObjective, newton
from .defaults import DEFAULT_PENALTY, DEFAULT_THRESHOLD, POINTS_PER_LOGIT

# Status of each system in a PointsResult.
RANKED = "ranked"
UNRANKED = "unranked"  # outside the anchor's component
NO_COMPARISONS = "no_comparisons"
UNBOUNDED_ABOVE = "unbounded_above"  # penalty 0: never loses to the anchor's group
UNBOUNDED_BELOW = "unbounded_below"  # penalty 0: never beats the anchor's group
UNBOUNDED = "unbounded"  # penalty 0: no finite points, order to the anchor unknown


@dataclass(frozen=True)
class PointsResult:
    """Result of :func:`fit_points`; arrays are indexed by system.

    Attributes
    ----------
    points : ndarray of float
        ``base + POINTS_PER_LOGIT * (s_i - s_anchor)`` for ranked systems,
        NaN for every other system.
    ranks : ndarray of int
        Competition rank (1, 2, 2, 4, ...) of ranked systems by their points
        rounded to whole numbers (as displayed); 0 for other systems.
    status : ndarray of str
        ``"ranked"``, ``"unranked"`` (no comparison path to the anchor),
        ``"no_comparisons"``, or, with penalty 0 only, ``"unbounded_above"``
        / ``"unbounded_below"`` / ``"unbounded"`` for systems connected to the
        anchor whose maximum-likelihood points are infinite (see
        :func:`fit_points`).
    preliminary : ndarray of bool
        Fewer decisive votes than ``threshold``.
    decisive_votes : ndarray of float
        Decisive votes per system used for ``preliminary``.
    strengths : ndarray of float
        Fitted log-strengths. With a penalty they are all on one scale; with
        penalty 0 each group fitted separately is centred on its own mean,
        so only differences within a group mean anything.
    component : ndarray of int
        Connected-component label of each system in the comparison graph.
    anchor : int or None
        The system the points are relative to (None if nothing was compared).
    anchor_requested : int or None
        The anchor the caller asked for.
    anchor_reason : str
        ``"requested"``; ``"requested_has_no_comparisons"``,
        ``"requested_unrankable"`` (penalty 0: the requested system has no
        finite points against any other) or ``"none_requested"`` (the
        rankable system with the largest comparison weight was used); or
        ``"no_comparisons"`` (no system has a comparison).
    anchor_candidates : int
        How many systems the anchor was chosen among by weight (0 when it was
        the requested one): the rankable systems, those with comparisons that,
        with penalty 0, share their strongly connected group of the win graph
        with another system (alone, a system's points against every other are
        infinite); all compared systems when none is rankable.
    anchor_tie : ndarray of int
        The candidates that shared the largest weight, when more than one did:
        lowest index (the anchor) first. Empty otherwise.
    weight : ndarray of float
        Total comparison weight of each system, which the anchor is chosen by.
    mle_exists : bool
        Whether the fit of the anchor's component is finite without help from
        the penalty (always True with a positive penalty).
    penalty, base, threshold, tol, max_iter
        Settings used.
    iterations : int
        Newton steps taken.
    converged : bool
        Whether the largest gradient entry reached ``tol * max(1, total weight)``.
    gradient_norm : float
        Largest absolute gradient entry at the returned strengths.
    """

    points: NDArray[np.float64]
    ranks: NDArray[np.int64]
    status: NDArray[np.str_]
    preliminary: NDArray[np.bool_]
    decisive_votes: NDArray[np.float64]
    strengths: NDArray[np.float64]
    component: NDArray[np.intp]
    anchor: int | None
    anchor_requested: int | None
    anchor_reason: str
    anchor_candidates: int
    anchor_tie: NDArray[np.intp]
    weight: NDArray[np.float64]
    mle_exists: bool
    penalty: float
    base: float
    threshold: float
    iterations: int
    converged: bool
    gradient_norm: float
    tol: float
    max_iter: int

    @property
    def ranked(self) -> NDArray[np.bool_]:
        """Mask of systems that received points."""
        return np.asarray(self.status == RANKED)


def fit_points(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    w: ArrayLike | None = None,
    *,
    n_systems: int,
    penalty: float = DEFAULT_PENALTY,
    anchor: int | None = None,
    base: float = 1000.0,
    decisive: ArrayLike | None = None,
    decisive_votes: ArrayLike | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> PointsResult:
    """Fit Elo-like point scores with weighted, penalized Bradley–Terry.

    Maximises ``sum w*[y*log sigma(s_a - s_b) + (1-y)*log sigma(s_b - s_a)]
    - (penalty/2) * sum s_i**2`` exactly (Newton's method on per-pair totals)
    and reports ``base + 400/ln(10) * (s_i - s_anchor)``.

    Parameters
    ----------
    a, b : array_like of int
        System indices of the two sides of each comparison.
    y : array_like of float
        Outcome for ``a``: 1 won, 0 lost, 0.5 tie or both bad.
    w : array_like of float, optional
        Weight of each comparison (default 1).
    n_systems : int
        Number of systems; indices run from 0 to ``n_systems - 1``.
    penalty : float, optional
        Ridge penalty ``lambda >= 0``. With 0 the fit is exact maximum
        likelihood: within the anchor's component only the systems strongly
        connected to the anchor in the win graph get points; the others are
        reported as unbounded rather than given a number that only reflects
        a stopping rule.
    anchor : int, optional
        The reference system. When None, or when it cannot be ranked (no
        comparisons; with penalty 0, no finite points against any other
        system), the rankable system with the largest total comparison weight
        is used (ties: the lowest index, and ``anchor_tie`` lists the tied);
        ``anchor_reason`` says why.
    base : float, optional
        Points of the anchor.
    decisive : array_like of bool, optional
        Marks the comparisons that are decisive human votes; each counts one
        for both of its systems. By default every comparison with a positive
        weight and ``y`` of 0 or 1 counts.
    decisive_votes : array_like of float, optional
        Decisive votes per system, given directly (not with ``decisive``).
    threshold : float, optional
        A system with fewer decisive votes is preliminary.
    tol : float, optional
        Convergence when the largest gradient entry is at most
        ``tol * max(1, total weight)``.
    max_iter : int, optional
        Largest number of Newton steps.

    Returns
    -------
    PointsResult

    Raises
    ------
    ValueError
        If an argument is malformed; the message names it.
    """
    comparisons, anchor_req = _fit_points_iv(
        a, b, y, w, n_systems, penalty, anchor, base, threshold, tol, max_iter
    )
    totals = aggregate(comparisons)
    votes = _decisive_votes(comparisons, totals.decisive, decisive, decisive_votes)
    return points_of_wins(
        totals.wins,
        votes,
        penalty=penalty,
        anchor=anchor_req,
        base=base,
        threshold=threshold,
        tol=tol,
        max_iter=max_iter,
    )


def points_of_wins(
    wins: NDArray[np.float64],
    votes: NDArray[np.float64],
    *,
    penalty: float,
    anchor: int | None,
    base: float,
    threshold: float,
    tol: float,
    max_iter: int,
    fitted: NDArray[np.float64] | None = None,
) -> PointsResult:
    """:func:`fit_points` from checked inputs: the win matrix of the comparisons and each
    system's decisive votes. ``fitted``: another matrix with the same total weight per
    pair whose objective is minimised instead (a prediction-powered one, whose entries may
    be negative); the graph, the anchor and the start are still the comparisons' own."""
    n = wins.shape[0]
    anchor_req = anchor
    won, lost = wins.sum(axis=1), wins.sum(axis=0)
    weight = won + lost
    # Start from each system's log win/loss ratio: Newton then needs about
    # half the steps it needs from zero.
    start = np.log((won + 0.5) / (lost + 0.5))
    component = _graph.components(wins)
    group = None if penalty > 0.0 else _graph.strong_components(wins)
    rankable = _rankable(weight, group)
    anchor_used, reason, candidates, tie = _choose_anchor(weight, anchor_req, rankable)

    objective = wins if fitted is None else fitted
    if group is None:  # a positive penalty: every system is on one finite scale
        fcts = PairwiseObjective(objective, penalty)
        fit = newton(fcts, gauge=None, tol=tol, max_iter=max_iter, initial=start)
        status = _status(weight, component, anchor_used)
        mle_exists = True
    else:
        # Pairs between strongly connected groups go to certainty in the
        # supremum of the likelihood; the finite part is each group's own fit.
        if np.any(group != group[0]):
            objective = np.where(group[:, None] == group[None, :], objective, 0.0)
        fcts = PairwiseObjective(objective, 0.0)
        fit = newton(fcts, gauge=group, tol=tol, max_iter=max_iter, initial=start)
        status = _status(weight, component, anchor_used)
        mle_exists = True
        if anchor_used is not None:
            same = (component == component[anchor_used]) & (group != group[anchor_used])
            mle_exists = not bool(np.any(same))
            if not mle_exists:
                below = _graph.reachable(wins, anchor_used)
                above = _graph.reachable(wins, anchor_used, reverse=True)
                status[same] = UNBOUNDED
                status[same & above] = UNBOUNDED_ABOVE
                status[same & below] = UNBOUNDED_BELOW

    ranked = status == RANKED
    points = np.full(n, np.nan)
    if anchor_used is not None:
        s = fit.params
        points[ranked] = base + POINTS_PER_LOGIT * (s[ranked] - s[anchor_used])
    return PointsResult(
        points=points,
        ranks=_competition_ranks(points, ranked),
        status=status,
        preliminary=votes < threshold,
        decisive_votes=votes,
        strengths=fit.params,
        component=component,
        anchor=anchor_used,
        anchor_requested=anchor_req,
        anchor_reason=reason,
        anchor_candidates=candidates,
        anchor_tie=tie,
        weight=weight,
        mle_exists=mle_exists,
        penalty=float(penalty),
        base=float(base),
        threshold=float(threshold),
        iterations=fit.iterations,
        converged=fit.converged,
        gradient_norm=fit.gradient_norm,
        tol=float(tol),
        max_iter=int(max_iter),
    )


def _fit_points_iv(
    a: ArrayLike,
    b: ArrayLike,
    y: ArrayLike,
    w: ArrayLike | None,
    n_systems: int,
    penalty: float,
    anchor: int | None,
    base: float,
    threshold: float,
    tol: float,
    max_iter: int,
) -> tuple[Comparisons, int | None]:
    comparisons = comparisons_iv(a, b, y, w, n_systems)
    solver_settings_iv(penalty, tol, max_iter)
    if anchor is not None:
        if isinstance(anchor, bool) or not isinstance(anchor, (int, np.integer)):
            raise ValueError("`anchor` must be a system index or None.")
        if not 0 <= anchor < comparisons.n_systems:
            raise ValueError("`anchor` must be in [0, n_systems).")
    if not is_real(base) or not math.isfinite(base):
        raise ValueError("`base` must be a finite number.")
    if not is_real(threshold) or not threshold >= 0:
        raise ValueError("`threshold` must be a number >= 0.")
    return comparisons, None if anchor is None else int(anchor)


def _decisive_votes(
    comparisons: Comparisons,
    default: NDArray[np.float64],
    decisive: ArrayLike | None,
    decisive_votes: ArrayLike | None,
) -> NDArray[np.float64]:
    n = comparisons.n_systems
    if decisive is not None and decisive_votes is not None:
        raise ValueError("Give `decisive` or `decisive_votes`, not both.")
    if decisive_votes is not None:
        votes = np.asarray(decisive_votes, dtype=np.float64)
        if votes.shape != (n,) or not np.all(np.isfinite(votes) & (votes >= 0)):
            raise ValueError("`decisive_votes` must hold n_systems finite counts >= 0.")
        return votes
    if decisive is None:
        return default
    mask = np.asarray(decisive)
    if mask.dtype != np.bool_ or mask.shape != comparisons.a.shape:
        raise ValueError("`decisive` must be a boolean mask with one entry per comparison.")
    return _per_system(comparisons, mask.astype(np.float64))


def _per_system(comparisons: Comparisons, values: NDArray[np.float64]) -> NDArray[np.float64]:
    # Sum of a per-comparison value over the comparisons each system is in.
    n = comparisons.n_systems
    total = np.bincount(comparisons.a, weights=values, minlength=n)
    return np.asarray(total + np.bincount(comparisons.b, weights=values, minlength=n), np.float64)


def _rankable(weight: NDArray[np.float64], group: NDArray[np.intp] | None) -> NDArray[np.bool_]:
    compared = weight > 0
    if group is None:
        return compared
    # Without a penalty a system alone in its group is infinitely above or below every
    # other, so a board anchored on it ranks nobody else.
    return compared & (np.bincount(group)[group] > 1)


# Weights summed in another order differ in the last bits; closer than this they tie.
_TIE_TOLERANCE = 1e-9


def _choose_anchor(
    weight: NDArray[np.float64], requested: int | None, rankable: NDArray[np.bool_]
) -> tuple[int | None, str, int, NDArray[np.intp]]:
    none = np.zeros(0, dtype=np.intp)
    compared = weight > 0
    if requested is not None and (
        rankable[requested] or (compared[requested] and not rankable.any())
    ):
        return requested, "requested", 0, none
    if not compared.any():
        return None, "no_comparisons", 0, none
    # Where nobody is rankable (penalty 0, every system alone in its group of the win
    # graph), any compared system anchors a board of itself alone.
    pool = rankable if rankable.any() else compared
    best = float(weight[pool].max())
    tied = np.flatnonzero(pool & (weight >= best - _TIE_TOLERANCE * best))
    if requested is None:
        reason = "none_requested"
    elif compared[requested]:
        reason = "requested_unrankable"
    else:
        reason = "requested_has_no_comparisons"
    return int(tied[0]), reason, int(pool.sum()), tied if tied.size > 1 else none


def _status(
    weight: NDArray[np.float64], component: NDArray[np.intp], anchor: int | None
) -> NDArray[np.str_]:
    status = np.full(weight.shape[0], UNRANKED, dtype="<U16")
    if anchor is not None:
        status[component == component[anchor]] = RANKED
    status[weight <= 0] = NO_COMPARISONS
    return status


def _competition_ranks(points: NDArray[np.float64], ranked: NDArray[np.bool_]) -> NDArray[np.int64]:
    ranks = np.zeros(points.shape[0], dtype=np.int64)
    shown = np.rint(points[ranked])
    # Rank = 1 + number of systems with strictly more displayed points.
    ordered = np.sort(shown)
    ranks[ranked] = 1 + shown.size - np.searchsorted(ordered, shown, side="right")
    return ranks
