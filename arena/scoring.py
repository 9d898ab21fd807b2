"""Comparisons in, point scores and round-summary figures out.

The one module of ``arena`` that calls ``fitting``: it turns comparison
records into the index arrays the fitting library takes, applies the
round's weighting policy, and turns the results back into plain values.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import fitting
from arena.battles import read_battles
from arena.comparisons import Comparison
from arena.errors import BadInput
from arena.records import SystemId
from arena.round_record import RoundSettings, RoundSummary
from arena.settling import RULE_GROUPS


def fitted_weights(comparisons: Sequence[Comparison], settings: RoundSettings) -> np.ndarray:
    """The weight each comparison enters the fit with (0 when it is not fitted).

    ``ledger`` weighting scales each actor's whole-family contribution down to
    the cap, before any category or component is taken out of it.
    """
    weights = np.array([c.weight if c.status == "fitted" else 0.0 for c in comparisons])
    if settings.weighting == "ledger":
        assert settings.cap is not None  # set by RoundSettings
        totals: dict[str, float] = defaultdict(float)
        for c, w in zip(comparisons, weights, strict=True):
            totals[c.actor] += w
        scale = {actor: min(1.0, settings.cap / t) if t > 0 else 1.0
                 for actor, t in totals.items()}
        weights = np.array([w * scale[c.actor]
                            for c, w in zip(comparisons, weights, strict=True)])
    return weights


@dataclass(frozen=True)
class SystemScore:
    points: float | None
    rank: int | None
    status: str
    preliminary: bool
    decisive_votes: int


@dataclass(frozen=True)
class BoardFit:
    scores: dict[SystemId, SystemScore]
    anchor: SystemId | None
    anchor_reason: str
    mle_exists: bool
    iterations: int
    converged: bool


def _arrays(comparisons: Sequence[Comparison], weights: np.ndarray,
            index: dict[SystemId, int]) -> tuple[np.ndarray, ...]:
    live = [i for i, w in enumerate(weights) if w > 0]
    a = np.array([index[comparisons[i].system_a] for i in live], dtype=np.intp)
    b = np.array([index[comparisons[i].system_b] for i in live], dtype=np.intp)
    y = np.array([comparisons[i].y for i in live], dtype=float)
    w = np.array([weights[i] for i in live], dtype=float)
    decisive = np.array([comparisons[i].decisive for i in live], dtype=bool)
    return a, b, y, w, decisive


def fit_board(comparisons: Sequence[Comparison], weights: np.ndarray,
              systems: Sequence[SystemId], *, reference: SystemId | None,
              settings: RoundSettings) -> BoardFit:
    """Points, ranks and marks of every system from the weighted comparisons."""
    index = {s: i for i, s in enumerate(systems)}
    a, b, y, w, decisive = _arrays(comparisons, weights, index)
    result = fitting.fit_points(
        a, b, y, w, n_systems=len(systems), penalty=settings.penalty,
        anchor=index.get(reference) if reference is not None else None,
        base=settings.base, decisive=decisive, threshold=settings.threshold)
    scores = {}
    for s, i in index.items():
        ranked = bool(result.ranked[i])
        scores[s] = SystemScore(
            points=float(result.points[i]) if ranked else None,
            rank=int(result.ranks[i]) if ranked else None,
            status=str(result.status[i]),
            preliminary=bool(result.preliminary[i]),
            decisive_votes=int(result.decisive_votes[i]))
    anchor = systems[result.anchor] if result.anchor is not None else None
    return BoardFit(scores, anchor, result.anchor_reason, result.mle_exists, result.iterations,
                    result.converged)


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def summary(comparisons: Sequence[Comparison], weights: np.ndarray,
            systems: Sequence[SystemId], *, reference: SystemId | None,
            settings: RoundSettings, diff_family: bool) -> RoundSummary:
    """The round summary: agreement, split-half τ and length bias (None where n/a)."""
    index = {s: i for i, s in enumerate(systems)}
    by_vote = {c.vote_id: c for c in comparisons if c.source == "vote"}
    pairs = [(by_vote[c.repeat_of], c) for c in comparisons
             if c.status == "repeat" and c.repeat_of in by_vote]
    agreement = None
    if pairs:
        result = fitting.rater_agreement([str(o.choice) for o, _ in pairs],
                                         [str(r.choice) for _, r in pairs], swapped=True)
        agreement = _number(result.share)
    human = [i for i, c in enumerate(comparisons) if c.source == "vote" and weights[i] > 0]
    votes = [comparisons[i] for i in human]
    tau = None
    halves: dict[str, dict[str, float | None]] = {"odd": {}, "even": {}}
    if votes:
        split = fitting.split_half_tau(
            [index[c.system_a] for c in votes], [index[c.system_b] for c in votes],
            [c.y for c in votes], weights[human], session=[c.session or 1 for c in votes],
            n_systems=len(systems), penalty=settings.penalty,
            anchor=index.get(reference) if reference is not None else None)
        tau = _number(split.tau)
        for name, half in (("odd", split.odd), ("even", split.even)):
            halves[name] = {s: _number(half.points[i]) for s, i in index.items()}
    bias = None
    if votes:
        fit = fitting.length_bias(
            [index[c.system_a] for c in votes], [index[c.system_b] for c in votes],
            [c.y for c in votes], [c.len_a for c in votes], [c.len_b for c in votes],
            weights[human], n_systems=len(systems), penalty=settings.penalty)
        bias = _number(fit.points_per_sd)
    left_out: dict[str, int] = {}
    for c in comparisons:
        if c.status == "left_out" and c.reason:
            left_out[c.reason] = left_out.get(c.reason, 0) + 1
    return RoundSummary(
        rater_agreement=agreement,
        repeats=len(pairs),
        split_half_tau=tau,
        split_half_points=halves,
        left_out=left_out,
        length_bias_points_per_sd=None if diff_family else bias,
        diff_length_bias_points_per_sd=bias if diff_family else None,
        settled=settled_summary(comparisons, weights),
    )


def settled_summary(comparisons: Sequence[Comparison], weights: np.ndarray) -> dict[str, Any]:
    """How much of the fit was decided without a vote.

    ``by_rule`` counts the fitted settled comparisons by the kind of rule
    (gate, identical, tests; ``overruled`` when a verdict on one of its
    outputs was set aside); ``weight_share`` is their share of the fit's
    total weight (None when nothing is fitted).
    """
    by_rule = dict.fromkeys(("gate", "identical", "tests", "overruled"), 0)
    settled_weight = 0.0
    for c, w in zip(comparisons, weights, strict=True):
        if c.source == "settled" and w > 0:
            by_rule["overruled" if c.overruled else RULE_GROUPS[str(c.rule)]] += 1
            settled_weight += float(w)
    total = float(np.sum(weights))
    return {"by_rule": by_rule, "weight_share": settled_weight / total if total > 0 else None}


VOTED_KINDS = ("votes", "tests_then_votes")


def describe_settled(settled: dict[str, Any], kind: str) -> str:
    """One or two plain sentences on how much of the board was decided without a vote."""
    share = settled["weight_share"]
    counts = settled["by_rule"]
    total = sum(counts.values())
    if share is None:
        return "Nothing was fitted in this round."
    if not total:
        return "Every fitted comparison is a vote by the rater."
    parts = ", ".join(f"{n} by {rule}" for rule, n in counts.items() if n)
    text = (f"{total} fitted comparison{'s' if total != 1 else ''} settled without a vote "
            f"({parts}): {100 * share:.0f}% of the fit's weight.")
    if kind in VOTED_KINDS and share > 0.5:
        text += (" Most of this board rests on automatic decisions, not on the rater's votes: "
                 "review them with `arena gate --list` or the Gates page.")
    return text


def fit_battles(path: str, *, fmt: str = "fastchat-battles",
                penalty: float = fitting.DEFAULT_PENALTY, anchor: str | None = None,
                base: float = 1000.0) -> dict[str, Any]:
    """Fit a battles file; the JSON-ready leaderboard ``arena fit`` prints.

    Returns ``{"anchor", "anchor_reason", "penalty", "systems": [...]}`` with
    one ``{"system", "points", "rank", "unranked", "status",
    "decisive_votes"}`` per system: ranked systems by rank (then name), then
    the rest by name; ``points`` and ``rank`` are None without points.
    """
    battles = read_battles(path, fmt=fmt)
    requested = battles.names.index(anchor) if anchor in battles.names else None
    try:
        result = fitting.fit_points(
            battles.a, battles.b, battles.y, battles.w, n_systems=len(battles.names),
            penalty=penalty, anchor=requested, base=base, decisive_votes=battles.decisive)
    except ValueError as error:
        raise BadInput(str(error), path=str(path)) from error
    systems = []
    for index, name in enumerate(battles.names):
        ranked = bool(result.ranked[index])
        systems.append({
            "system": name,
            "points": float(result.points[index]) if ranked else None,
            "rank": int(result.ranks[index]) if ranked else None,
            "unranked": not ranked,
            "status": str(result.status[index]),
            "decisive_votes": int(battles.decisive[index]),
        })
    systems.sort(key=lambda s: (s["unranked"], s["rank"] or 0, s["system"]))
    reason = result.anchor_reason
    if anchor is not None and requested is None and result.anchor is not None:
        reason = "requested_has_no_comparisons"  # named, but absent from the file
    return {
        "anchor": None if result.anchor is None else battles.names[result.anchor],
        "anchor_reason": reason,
        "penalty": float(penalty),
        "systems": systems,
    }


def macro_interval(credits: Sequence[float], categories: Sequence[str], *,
                   seed: int) -> tuple[float, float]:
    """The seeded 95% percentile bootstrap interval of a graded run's headline."""
    result = fitting.bootstrap_macro_score(credits, categories, rng=seed)
    return result.confidence_interval.low, result.confidence_interval.high
