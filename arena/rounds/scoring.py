"""Comparisons in, point scores out.

It turns a family's comparisons (``arena.rounds.comparison_table.Comparisons``,
column by column) into the index arrays ``arena.fit`` takes, applies the round's weighting
policy, and turns the results back into plain values.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena import fit
from arena.errors import BadInput
from arena.intake.battles import read_battles
from arena.records import VOTED_KINDS, SystemId
from arena.rounds.comparison_table import Comparisons
from arena.rounds.comparisons import JUDGE_ACTOR
from arena.rounds.model import RoundSettings
from arena.rounds.round_records import Anchor, AnchorFallback, Settled


def fitted_weights(comparisons: Comparisons, settings: RoundSettings) -> np.ndarray:
    """The weight each comparison enters the fit with (0 when it is not fitted).

    ``ledger`` weighting scales each actor's whole-family contribution down to
    the cap, before any category or component is taken out of it.
    """
    weights = np.where(comparisons.mask("status", "fitted"), comparisons["weight"], 0.0)
    if settings.weighting == "ledger":
        assert settings.cap is not None  # set by RoundSettings
        actors = comparisons["actor"]
        totals = np.bincount(actors.codes, weights=weights, minlength=len(actors.values))
        scale = np.array([min(1.0, settings.cap / t) if t > 0 else 1.0 for t in totals.tolist()])
        weights = weights * scale[actors.codes]
    return weights


@dataclass(frozen=True)
class SystemScore:
    points: float | None
    rank: int | None
    status: str
    preliminary: bool
    decisive_votes: int


@dataclass(frozen=True)
class Powered:
    """The judge's part of a prediction-powered board: its weight ``lam`` (used, and as
    tuned), the rater's votes in the fit, how many rater votes the board is worth
    (``effective_votes``, with its 95% interval) and each ranked system's 95% sandwich
    interval by id (``fitting.fit_prediction_powered``)."""

    lam: float
    lam_tuned: float
    votes: int
    effective_votes: float
    effective_votes_ci95: tuple[float, float]
    intervals: dict[SystemId, list[float]]


# How a board with model judges is fitted, and how a person's verdicts are (round records).
PREDICTION_POWERED = "prediction_powered"
POOLED = "pooled"


def predictors(kinds: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The actors whose verdicts a round fits as predictions: its *model* judges, from
    (judge, kind) pairs. A person's verdicts are pooled as a rater's votes are."""
    return frozenset(JUDGE_ACTOR + judge for judge, kind in kinds if kind == "model")


@dataclass(frozen=True)
class BoardFit:
    scores: dict[SystemId, SystemScore]
    anchor: SystemId | None
    anchor_reason: str
    mle_exists: bool
    iterations: int
    converged: bool
    # How the anchor was chosen when the reference was not (``fallback``), systems by id.
    anchor_fallback: AnchorFallback | None = None
    # A board with model judges: the judge's part (None: a board of comparisons alone).
    powered: Powered | None = None

    def anchor_record(self, labels: dict[SystemId, str]) -> Anchor:
        """The anchor as a round records it, systems by label."""
        found = self.anchor_fallback
        if found is not None:
            tied = tuple(labels.get(SystemId(s), s) for s in found.tied)
            found = dataclasses.replace(found, tied=tied)
        label = labels.get(self.anchor) if self.anchor else None
        return Anchor(self.anchor, label, self.anchor_reason, found)


def sides(comparisons: Comparisons, index: dict[SystemId, int]) -> tuple[np.ndarray, ...]:
    """Each comparison's systems as positions in the board's list (-1: not on it)."""
    return tuple(
        comparisons[side].map(lambda s: index.get(s, -1), np.intp)
        for side in ("system_a", "system_b")
    )


def live_games(
    comparisons: Comparisons, weights: np.ndarray, systems: Sequence[SystemId]
) -> tuple[dict[SystemId, int], np.ndarray, tuple[np.ndarray, ...]]:
    """What a fit of the board takes: the systems' positions, which comparisons count
    (weight > 0), and those as the fit's games (positions a and b, outcomes, weights)."""
    index = {s: i for i, s in enumerate(systems)}
    live = weights > 0
    a, b = (side[live] for side in sides(comparisons, index))
    return index, live, (a, b, comparisons["y"][live], weights[live])


def fit_board(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    *,
    reference: SystemId | None,
    settings: RoundSettings,
    predictors: Collection[str] = (),
    design: np.ndarray | None = None,
) -> BoardFit:
    """Points, ranks and marks of every system from the weighted comparisons; with
    ``predictors`` (actors: ``predictors``), the prediction-powered board whose rater's
    votes correct those actors' verdicts (``powered_board``), each vote weighed within its
    system pair by ``design`` (``design_weights``; None: every vote chosen uniformly)."""
    if predictors:
        return powered_board(
            comparisons,
            weights,
            systems,
            reference=reference,
            settings=settings,
            predictors=predictors,
            design=design,
        )
    index, live, games = live_games(comparisons, weights, systems)
    result = fit.fit_points(
        *games,
        n_systems=len(systems),
        penalty=settings.penalty,
        anchor=index.get(reference) if reference is not None else None,
        base=settings.base,
        decisive=comparisons.decisive[live],
        threshold=settings.threshold,
    )
    return _board_fit(result, systems)


def _board_fit(
    result: fit.PointsResult, systems: Sequence[SystemId], powered: Powered | None = None
) -> BoardFit:
    index = {s: i for i, s in enumerate(systems)}
    scores = {}
    for s, i in index.items():
        ranked = bool(result.ranked[i])
        scores[s] = SystemScore(
            points=float(result.points[i]) if ranked else None,
            rank=int(result.ranks[i]) if ranked else None,
            status=str(result.status[i]),
            preliminary=bool(result.preliminary[i]),
            decisive_votes=int(result.decisive_votes[i]),
        )
    anchor = systems[result.anchor] if result.anchor is not None else None
    return BoardFit(
        scores,
        anchor,
        result.anchor_reason,
        result.mle_exists,
        result.iterations,
        result.converged,
        fallback(result, systems, "label"),
        powered,
    )


def powered_board(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    *,
    reference: SystemId | None,
    settings: RoundSettings,
    predictors: Collection[str],
    design: np.ndarray | None = None,
) -> BoardFit:
    """The prediction-powered board: the rater's fitted votes are the labeled set, each
    with the judges' prediction on its item (case and pair of outputs): the mean of every
    verdict of the ``predictors`` on it, oriented to the vote's sides (a judge run in both
    orders, or several judges, give their mean); the items they judged that no vote is on
    are the unlabeled set; every other fitted comparison (settled pairs, a person's
    verdicts) is fitted as it is. Strata are system pairs, clusters cases."""
    index = {s: i for i, s in enumerate(systems)}
    a, b = sides(comparisons, index)
    live = (weights > 0) & (a >= 0) & (b >= 0)
    actor = comparisons["actor"]
    judged = live & actor.isin(*predictors)
    voted = live & comparisons.mask("source", "vote")
    fixed = live & ~judged & ~voted
    # Outputs by one numbering for both sides (a bundle's table codes each side apart).
    side_a, side_b = comparisons["output_a"], comparisons["output_b"]
    shared = {v: i for i, v in enumerate(dict.fromkeys([*side_a.values, *side_b.values]))}
    out_a = np.array([shared[v] for v in side_a.values], dtype=np.int64)[side_a.codes]
    out_b = np.array([shared[v] for v in side_b.values], dtype=np.int64)[side_b.codes]
    lo, hi = np.minimum(out_a, out_b), np.maximum(out_a, out_b)
    # Cases numbered as their ids sort, not as the column codes them (a bundle's table
    # codes in its own order): the bootstrap's clusters are then the same wherever it runs.
    names = comparisons["case_id"].values
    rank = np.empty(len(names), dtype=np.int64)
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    case = rank[comparisons["case_id"].codes]
    item = (case * (hi.max(initial=0) + 1) + lo) * (hi.max(initial=0) + 1) + hi
    y = comparisons["y"]
    # Each judged item's mean prediction that its lower-coded output wins.
    forward = out_a == lo
    toward_lo = np.where(forward, y, 1.0 - y)
    items, where = np.unique(item[judged], return_inverse=True)
    mean = np.bincount(where, weights=toward_lo[judged]) / np.bincount(where)
    vote_hat = np.full(int(np.count_nonzero(voted)), np.nan)
    if items.size:
        found = np.minimum(np.searchsorted(items, item[voted]), items.size - 1)
        known = items[found] == item[voted]
        hat_lo = mean[found[known]]
        vote_hat[known] = np.where(forward[voted][known], hat_lo, 1.0 - hat_lo)
    # The judged items no vote is on, once each, oriented to their lower-coded output.
    first = np.flatnonzero(judged)[np.unique(where, return_index=True)[1]]
    alone = ~np.isin(items, item[voted])
    rows = first[alone]
    ua = np.where(forward[rows], a[rows], b[rows])
    ub = np.where(forward[rows], b[rows], a[rows])
    decisive = comparisons.decisive & live & ~judged
    counted = np.bincount(a[decisive], minlength=len(systems)) + np.bincount(
        b[decisive], minlength=len(systems)
    )
    result = fit.fit_prediction_powered(
        a[voted],
        b[voted],
        y[voted],
        vote_hat,
        weights[voted],
        unlabeled_a=ua,
        unlabeled_b=ub,
        unlabeled_y_hat=mean[alone],
        fixed_a=a[fixed],
        fixed_b=b[fixed],
        fixed_y=y[fixed],
        fixed_w=weights[fixed],
        cluster=case[voted],
        unlabeled_cluster=case[rows],
        fixed_cluster=case[fixed],
        n_systems=len(systems),
        penalty=settings.penalty,
        anchor=index.get(reference) if reference is not None else None,
        base=settings.base,
        decisive_votes=counted.astype(np.float64),
        threshold=settings.threshold,
        selection_probability=_selection(design, voted),
        rng=settings.seed,
    )
    low, high = result.effective_votes_ci
    powered = Powered(
        lam=result.lam,
        lam_tuned=result.lam_tuned,
        votes=result.votes,
        effective_votes=result.effective_votes,
        effective_votes_ci95=(low, high),
        intervals={
            s: [float(result.low[i]), float(result.high[i])]
            for s, i in index.items()
            if math.isfinite(result.low[i])
        },
    )
    return _board_fit(result.board, systems, powered)


def design_weights(
    comparisons: Comparisons, chosen: Mapping[str, tuple[float, int]]
) -> np.ndarray | None:
    """Each comparison's weight for how its pair was chosen: a vote whose case was drawn
    with probability ``pi`` among ``m`` candidates of its system pair (``chosen``, by vote
    id: ``arena.pairs.unsure``) weighs ``1 / (m * pi)``; every other comparison, and a vote
    with no draw recorded (cast before draws were, or imported), 1. None when all are 1."""
    if not chosen:
        return None
    weight = [
        1.0 / (found[0] * found[1]) if (found := chosen.get(vote_id)) is not None else 1.0
        for vote_id in comparisons["vote_id"]
    ]
    design = np.where(comparisons.votes, np.array(weight, dtype=np.float64), 1.0)
    return None if np.all(design == 1.0) else design


def _selection(design: np.ndarray | None, voted: np.ndarray) -> np.ndarray | None:
    """The votes' selection probabilities, up to one factor (the fit rescales each system
    pair to keep its weight): the inverse of their design weight over the largest."""
    if design is None or np.all(design[voted] == 1.0):
        return None
    inverse = 1.0 / design[voted]
    return inverse / inverse.max()


def fallback(
    result: fit.PointsResult, names: Sequence[str], tie_broken_by: str
) -> AnchorFallback | None:
    """How a ``fit.fit_points`` result chose its anchor when it did not take the requested
    one: its comparison weight, among how many systems that could be ranked, the systems
    that shared that weight (``tied``, the anchor first) and what put the anchor first
    (``tie_broken_by``: the order of ``names``). None for the requested anchor."""
    if result.anchor is None or result.anchor_reason == "requested":
        return None
    tied = tuple(names[i] for i in result.anchor_tie.tolist())
    return AnchorFallback(
        float(result.weight[result.anchor]),
        int(result.anchor_candidates),
        tied,
        tie_broken_by if tied else None,
    )


def describe_settled(settled: Settled, kind: str, pooled: Sequence[str] = ()) -> str:
    """One or two plain sentences on how much of the board was decided without a vote
    (``pooled``: the judges whose verdicts the round fitted beside the rater's votes)."""
    share = settled.weight_share
    counts = settled.by_rule
    total = settled.total
    if share is None:
        return "Nothing was fitted in this round."
    if not total and pooled:
        return (
            "Every fitted comparison is a vote by the rater or a verdict of a pooled judge "
            f"({', '.join(pooled)})."
        )
    if not total:
        return "Every fitted comparison is a vote by the rater."
    parts = ", ".join(f"{n} by {rule}" for rule, n in counts.items() if n)
    text = (
        f"{total} fitted comparison{'s' if total != 1 else ''} settled without a vote "
        f"({parts}): {100 * share:.0f}% of the fit's weight."
    )
    if kind in VOTED_KINDS and share > 0.5:
        text += (
            " Most of this board rests on automatic decisions, not on the rater's votes: "
            "review them with `arena gate --list` or the Gates page."
        )
    return text


def fit_battles(
    path: str,
    *,
    fmt: str = "fastchat-battles",
    penalty: float = fit.DEFAULT_PENALTY,
    anchor: str | None = None,
    base: float = 1000.0,
) -> dict[str, Any]:
    """Fit a battles file; the JSON-ready leaderboard ``arena fit`` prints.

    Returns ``{"anchor", "anchor_reason", "anchor_fallback", "penalty", "systems": [...]}``
    (``anchor_fallback``: see ``fallback``) with
    one ``{"system", "points", "rank", "unranked", "status",
    "decisive_votes"}`` per system: ranked systems by rank (then name), then
    the rest by name; ``points`` and ``rank`` are None without points.
    """
    battles = read_battles(path, fmt=fmt)
    requested = battles.names.index(anchor) if anchor in battles.names else None
    try:
        result = fit.fit_points(
            battles.a,
            battles.b,
            battles.y,
            battles.w,
            n_systems=len(battles.names),
            penalty=penalty,
            anchor=requested,
            base=base,
            decisive_votes=battles.decisive,
        )
    except ValueError as error:
        raise BadInput(str(error), path=str(path)) from error
    systems = []
    for index, name in enumerate(battles.names):
        ranked = bool(result.ranked[index])
        systems.append(
            {
                "system": name,
                "points": float(result.points[index]) if ranked else None,
                "rank": int(result.ranks[index]) if ranked else None,
                "unranked": not ranked,
                "status": str(result.status[index]),
                "decisive_votes": int(battles.decisive[index]),
            }
        )
    systems.sort(key=lambda s: (s["unranked"], s["rank"] or 0, s["system"]))
    reason = result.anchor_reason
    if anchor is not None and requested is None and result.anchor is not None:
        reason = "requested_has_no_comparisons"  # named, but absent from the file
    chosen = fallback(result, battles.names, "file_order")
    return {
        "anchor": None if result.anchor is None else battles.names[result.anchor],
        "anchor_reason": reason,
        # In the order its fields are named (``arena fit --json``).
        "anchor_fallback": None if chosen is None else dataclasses.asdict(chosen),
        "penalty": float(penalty),
        "systems": systems,
    }
