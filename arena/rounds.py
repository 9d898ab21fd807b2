"""Closing a round: re-gate, gather the comparisons, fit, summarise, store for good."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena import __version__, family_state, gating
from arena.clock import now_iso
from arena.comparisons import Comparison, family_comparisons
from arena.family_state import FamilyState
from arena.ledger import Ledger, catalog, chain
from arena.ledger import rounds as stored_rounds
from arena.ledger.schema import APPEND_ONLY
from arena.ledger.voting import new_id
from arena.records import Family, Output, System, SystemId
from arena.scoring import BoardFit, RoundSettings, fit_board, fitted_weights, summary

# The points axis starts at most this far below the top score; below it is "far behind".
AXIS_SPAN = 600.0
TESTED = ("tests", "tests_then_votes")


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _output_columns(family: Family, outputs: Sequence[Output], failing: set) -> dict[str, Any]:
    """Columns that describe a system's outputs, the same for every category view."""
    costs = [o.cost for o in outputs if o.cost is not None]
    latencies = [o.latency_ms for o in outputs if o.latency_ms is not None]
    passed = sum(o.test_result == "passed" for o in outputs)
    tested = family.kind in TESTED
    return {
        "gate_failure_share": _share(sum(o.output_id in failing for o in outputs), len(outputs)),
        "cost_per_output": statistics.fmean(costs) if costs else None,
        "p50_latency_ms": statistics.median(latencies) if latencies else None,
        "pass_rate": _share(passed, len(outputs)) if tested else None,
        "failed_tests_share": (_share(len(outputs) - passed, len(outputs))
                               if family.kind == "tests_then_votes" else None),
    }


def _vote_columns(system: SystemId, comparisons: Sequence[Comparison],
                  weights: np.ndarray) -> dict[str, Any]:
    mine = [c for c, w in zip(comparisons, weights, strict=True)
            if c.source == "vote" and w > 0 and system in (c.system_a, c.system_b)]
    return {"votes": len(mine),
            "both_bad_share": _share(sum(c.choice == "both_bad" for c in mine), len(mine))}


def _board(fit: BoardFit, systems: Sequence[System], extra: dict[SystemId, dict[str, Any]]
           ) -> list[dict[str, Any]]:
    points = [s.points for s in fit.scores.values() if s.points is not None]
    top = max(points) if points else None
    rows = []
    for system in systems:
        score = fit.scores[system.system_id]
        rows.append({
            "system": system.system_id,
            "label": system.label,
            "points": score.points,
            "rank": score.rank,
            "status": score.status,
            "preliminary": score.preliminary,
            "unranked": score.points is None,
            "far_behind": (score.points is not None and top is not None
                           and score.points < top - AXIS_SPAN),
            "decisive_votes": score.decisive_votes,
            **extra[system.system_id],
        })
    rows.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0, r["label"]))
    return rows


def _anchor(fit: BoardFit, labels: dict[SystemId, str]) -> dict[str, Any]:
    return {"system": fit.anchor, "label": labels.get(fit.anchor) if fit.anchor else None,
            "reason": fit.anchor_reason}


def close_round(ledger: Ledger, family_name: str, settings: RoundSettings,
                progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Close a round of ``family_name`` and return it as `round show --json` prints it.

    The round records, under its settings, the rater's corrections in force.
    """
    state = family_state.load(ledger, family_name)
    if gating.rerun(ledger, state, progress=progress).changed:
        state = family_state.load(ledger, family_name)
    family = state.family
    if family.kind == "graded":
        result = _graded_result(ledger, family, settings)
    else:
        result = _voted_result(ledger, state, settings)
    round_id = new_id()
    closed_at = now_iso()
    recorded = {**settings.as_json(), "software": __version__,
                "events": state.decisions.record()}
    # Where each chain of the family stood at closing: the export stops there.
    result["chain_heads"] = {t: chain.head(ledger.db, t, family.name) for t in APPEND_ONLY}
    # And how far outputs and gate results stood: the export shows the family as it was.
    result["marks"] = catalog.marks(ledger)
    result["kind"] = family.kind
    with ledger.atomic():
        stored_rounds.add_round(ledger, round_id, family.name, closed_at, recorded, result)
    return {"round": round_id, "family": family.name, "closed_at": closed_at,
            "settings": recorded, **result}


def _graded_result(ledger: Ledger, family: Family, settings: RoundSettings) -> dict[str, Any]:
    """A graded family's round: each run's scores and the receipts behind them."""
    from arena import graded  # only graded rounds need the graders

    rows = graded.board(ledger, family.name, seed=settings.seed)
    for rank, row in enumerate(rows, start=1):
        # The keys every board row has; a graded run has scores, not points.
        row.update(rank=rank, points=None, status="graded", preliminary=False,
                   unranked=False, far_behind=False, votes=0, decisive_votes=0,
                   both_bad_share=None, gate_failure_share=None, pass_rate=None,
                   failed_tests_share=None)
    return {"anchor": None, "systems": rows, "categories": {},
            "summary": {"rater_agreement": None, "repeats": 0, "split_half_tau": None,
                        "split_half_points": {"odd": {}, "even": {}}, "left_out": {},
                        "length_bias_points_per_sd": None,
                        "diff_length_bias_points_per_sd": None},
            "fit": None, "comparisons": [], "receipts": graded.receipts(ledger, family.name)}


def _voted_result(ledger: Ledger, state: FamilyState, settings: RoundSettings
                  ) -> dict[str, Any]:
    """A voted (or tested) family's round: the fit, category refits and the summary."""
    family = state.family
    comparisons = family_comparisons(ledger, state)
    weights = fitted_weights(comparisons, settings)
    outputs = state.in_force
    failing = {o.output_id for o in outputs if state.fails_gate(o.output_id)}
    systems = catalog.systems(ledger, family.name)
    ids = [s.system_id for s in systems]
    labels = {s.system_id: s.label for s in systems}
    extra = {s.system_id: {
        **_vote_columns(s.system_id, comparisons, weights),
        **_output_columns(family, [o for o in outputs if o.system_id == s.system_id], failing),
    } for s in systems}
    fit = fit_board(comparisons, weights, ids, reference=family.reference, settings=settings)
    categories = {}
    for category in sorted({c.category for c in comparisons}):
        inside = np.array([c.category == category for c in comparisons])
        part = fit_board(comparisons, np.where(inside, weights, 0.0), ids,
                         reference=family.reference, settings=settings)
        categories[category] = {"anchor": _anchor(part, labels),
                                "systems": _board(part, systems, extra)}
    diff_family = any(o.is_diff for o in outputs)
    return {
        "anchor": _anchor(fit, labels),
        "systems": _board(fit, systems, extra),
        "summary": summary(comparisons, weights, ids, reference=family.reference,
                           settings=settings, diff_family=diff_family),
        "categories": categories,
        "fit": {"iterations": fit.iterations, "converged": fit.converged,
                "mle_exists": fit.mle_exists},
        "comparisons": [{**dataclasses.asdict(c), "fitted_weight": float(w)}
                        for c, w in zip(comparisons, weights, strict=True)],
    }
