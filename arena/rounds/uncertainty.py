"""How sure a voted board is: a case bootstrap of its points, shown only where it was calibrated.

A board's interval is worked out only when the board's own regime (ranked systems, human
votes, votes on the least-voted system, cases, settled share, penalty, weights) lies inside
the region where the interval's coverage was checked in simulation
(``benchmarks/interval_calibration.py``; the table is in benchmarks/README.md). Elsewhere the
board says "uncertainty unavailable" and why. Either way the board records the check.

The bootstrap resamples what the rater judged: the cases, each bringing its votes and the
comparisons the settling rules gave it (and, in a round pooled with people as judges, their
verdicts on it), with the round's seed. A board with model judges is prediction-powered:
its intervals are the sandwich ones its fit gives (``scoring.powered_board``).
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections.abc import Callable, Sequence

import numpy as np

from arena import fit
from arena.records import SystemId
from arena.rounds.comparison_table import Comparisons
from arena.rounds.model import RoundSettings
from arena.rounds.round_records import Regime, Region, Uncertainty
from arena.rounds.scoring import BoardFit, live_games, sides

# A board's uncertainty record and each ranked system's interval (none outside the region).
Found = tuple[Uncertainty, dict[SystemId, list[float]]]
METHOD = "case bootstrap, student_t"
# A board with model judges: PPI++'s CLT intervals (fitting.fit_prediction_powered).
POWERED_METHOD = "sandwich, prediction-powered"
RESAMPLES = 200
CONFIDENCE = 0.95


CALIBRATED = Region()


def outside(regime: Regime, region: Region = CALIBRATED) -> str | None:
    """Why ``regime`` lies outside ``region`` (a sentence), or None when it lies inside."""
    if regime.judges > region.max_judges:
        return (
            f"pooled with {regime.judges} judges; intervals were checked with up to "
            f"{region.max_judges}"
        )
    if not region.min_systems <= regime.systems <= region.max_systems:
        return (
            f"{regime.systems} ranked systems; intervals were checked for "
            f"{region.min_systems}–{region.max_systems}"
        )
    if regime.votes > region.max_votes:
        return f"{regime.votes:,} votes; intervals were checked up to {region.max_votes:,}"
    if regime.votes_per_system < region.min_votes_per_system:
        return (
            f"not enough votes to tell: a system has {regime.votes_per_system} votes, "
            f"intervals need {region.min_votes_per_system} on every system"
        )
    if regime.cases < region.min_cases:
        return (
            f"not enough votes to tell: the fit rests on {regime.cases} cases, "
            f"intervals need {region.min_cases}"
        )
    if regime.settled_share > region.max_settled_share:
        return (
            f"{100 * regime.settled_share:.0f}% of the fit's weight is settled without a vote; "
            f"intervals were checked up to {100 * region.max_settled_share:.0f}%"
        )
    if not math.isclose(regime.penalty, region.penalty, rel_tol=1e-9):
        return f"penalty {regime.penalty:g}; intervals were checked at {region.penalty:g}"
    if not regime.unit_weights:
        return "the ledger weighting scales some comparisons; intervals were checked without"
    return None


def regime_of(
    comparisons: Comparisons, weights: np.ndarray, systems: Sequence[SystemId], board: BoardFit
) -> Regime:
    """The regime of a board fitted with ``weights`` (0: not in this board's fit)."""
    index = {s: i for i, s in enumerate(systems)}
    live = weights > 0
    human = live & comparisons.votes
    a, b = sides(comparisons, index)
    counts = np.bincount(a[human] + 1, minlength=len(systems) + 1)[1:]
    counts = counts + np.bincount(b[human] + 1, minlength=len(systems) + 1)[1:]
    ranked = [index[s] for s, score in board.scores.items() if score.points is not None]
    total = float(np.sum(weights[live]))
    settled = float(np.sum(weights[live & comparisons.mask("source", "settled")]))
    judged = live & comparisons.mask("source", "judge")
    return Regime(
        systems=len(ranked),
        votes=int(np.count_nonzero(human)),
        votes_per_system=int(counts[ranked].min()) if ranked else 0,
        cases=int(np.unique(comparisons["case_id"].codes[live]).size),
        settled_share=settled / total if total > 0 else 0.0,
        penalty=0.0,  # set by the caller from the round's settings
        unit_weights=bool(np.allclose(weights[live], comparisons["weight"][live], rtol=0, atol=0)),
        judges=int(np.unique(comparisons["actor"].codes[judged]).size),
    )


def stream(category: str | None) -> int:
    """The random stream of a board under the round's seed: 0 for the family's board, a
    fixed number per category (so a category's interval does not depend on the others)."""
    return 0 if category is None else 1 + zlib.crc32(category.encode("utf-8"))


def case_clusters(comparisons: Comparisons) -> np.ndarray:
    """Each comparison's case as a cluster number, numbered by case id, not by import
    order: a bundle resamples the same draws."""
    cases = comparisons["case_id"]
    rank = np.empty(len(cases.values), dtype=np.int64)
    rank[np.argsort(np.array([str(v) for v in cases.values], dtype=object))] = np.arange(
        len(cases.values)
    )
    return rank[cases.codes]


def intervals(
    comparisons: Comparisons,
    weights: np.ndarray,
    systems: Sequence[SystemId],
    board: BoardFit,
    *,
    settings: RoundSettings,
    reference: SystemId | None,
    category: str | None = None,
    bootstrap: bool = True,
) -> Found:
    """The board's uncertainty record and, inside the calibrated region, each ranked
    system's 95% interval of points (``[low, high]``; the anchor's is ``[base, base]``);
    without ``bootstrap``, the record alone (a preview leaves intervals to the close)."""
    regime = dataclasses.replace(
        regime_of(comparisons, weights, systems, board), penalty=settings.penalty
    )
    reason = outside(regime)
    powered = board.powered
    record = Uncertainty(
        available=reason is None,
        reason=reason,
        method=METHOD if powered is None else POWERED_METHOD,
        confidence_level=CONFIDENCE,
        resamples=RESAMPLES,
        seed=settings.seed,
        stream=stream(category),
        regime=regime,
        region=CALIBRATED,
    )
    if reason is not None or not bootstrap:
        return record, {}
    if powered is not None:  # the sandwich intervals came with the fit
        return record, dict(powered.intervals)
    index, live, games = live_games(comparisons, weights, systems)
    result = fit.bootstrap_points(
        *games,
        cluster=case_clusters(comparisons)[live],
        n_systems=len(systems),
        rng=np.random.default_rng([settings.seed, stream(category)]),
        penalty=settings.penalty,
        anchor=index.get(reference) if reference is not None else None,
        base=settings.base,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
    )
    found = {
        s: [float(result.low[i]), float(result.high[i])]
        for s, i in index.items()
        if math.isfinite(result.low[i])
    }
    return record, found


def for_family(
    comparisons: Comparisons,
    systems: Sequence[SystemId],
    settings: RoundSettings,
    reference: SystemId | None,
    kind: str | None,
    *,
    bootstrap: bool = True,
) -> Callable[[BoardFit, np.ndarray, str | None], Found | None]:
    """``intervals`` of each board of a family's round (the family's, or a category's with
    its name); None in a tests family, which asks for no votes."""

    def board(fitted: BoardFit, weights: np.ndarray, category: str | None = None) -> Found | None:
        if kind == "tests":
            return None
        return intervals(
            comparisons,
            weights,
            systems,
            fitted,
            settings=settings,
            reference=reference,
            category=category,
            bootstrap=bootstrap,
        )

    return board
