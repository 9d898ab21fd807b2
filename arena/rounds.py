"""Closing a round: re-gate, gather the comparisons, fit, summarise, store for good."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from arena.round_record import Anchor, Board, BoardRow, Round, RoundSettings, RoundSummary
from arena.scoring import BoardFit, fit_board, fitted_weights, summary

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


def _board(fit: BoardFit, systems: Sequence[System], extra: dict[SystemId, dict[str, Any]],
           labels: dict[SystemId, str]) -> Board:
    points = [s.points for s in fit.scores.values() if s.points is not None]
    top = max(points) if points else None
    rows = []
    for system in systems:
        score = fit.scores[system.system_id]
        rows.append(BoardRow(
            system=system.system_id, label=system.label, points=score.points, rank=score.rank,
            status=score.status, preliminary=score.preliminary, unranked=score.points is None,
            far_behind=(score.points is not None and top is not None
                        and score.points < top - AXIS_SPAN),
            decisive_votes=score.decisive_votes, **extra[system.system_id]))
    rows.sort(key=lambda r: (r.rank is None, r.rank or 0, r.label))
    anchor = Anchor(fit.anchor, labels.get(fit.anchor) if fit.anchor else None,
                    fit.anchor_reason)
    return Board(anchor, tuple(rows))


@dataclass(frozen=True)
class _Result:
    """What a kind of family adds to a round, and what is stored apart from it."""

    board: Board
    categories: dict[str, Board]
    summary: RoundSummary
    fit: dict[str, Any] | None
    comparisons: list[dict[str, Any]]
    receipts: list[dict[str, Any]]


def close_round(ledger: Ledger, family_name: str, settings: RoundSettings,
                progress: Callable[[int], None] | None = None) -> Round:
    """Close a round of ``family_name``, store it for good and return it.

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
    closed = Round(
        round_id=new_id(), family=family.name, kind=family.kind, closed_at=now_iso(),
        settings=settings, software=__version__, events=tuple(state.decisions.record()),
        board=result.board, categories=result.categories, summary=result.summary,
        fit=result.fit,
        # Where each chain of the family stood at closing, and how far outputs and gate
        # results stood: the export shows the family as it was then.
        chain_heads={t: chain.head(ledger.db, t, family.name) for t in APPEND_ONLY},
        marks=catalog.marks(ledger))
    with ledger.atomic():
        stored_rounds.add_round(ledger, closed.to_json(), result.comparisons, result.receipts)
    return closed


def find_round(ledger: Ledger, round_id: str | None = None,
               family: str | None = None) -> Round | None:
    """A round by id (or unambiguous prefix), else the newest of ``family`` (or of any)."""
    found = stored_rounds.find_round(ledger, round_id, family)
    return Round.from_json(found) if found is not None else None


def _graded_result(ledger: Ledger, family: Family, settings: RoundSettings) -> _Result:
    """A graded family's round: each run's scores and the receipts behind them."""
    from arena import graded  # only graded rounds need the graders

    rows = tuple(BoardRow.from_json({**row, "rank": rank, "status": "graded"})
                 for rank, row in enumerate(graded.board(ledger, family.name,
                                                         seed=settings.seed), start=1))
    return _Result(Board(None, rows), {}, RoundSummary(), None, [],
                   graded.receipts(ledger, family.name))


def _voted_result(ledger: Ledger, state: FamilyState, settings: RoundSettings) -> _Result:
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
        categories[category] = _board(part, systems, extra, labels)
    diff_family = any(o.is_diff for o in outputs)
    return _Result(
        board=_board(fit, systems, extra, labels),
        categories=categories,
        summary=summary(comparisons, weights, ids, reference=family.reference,
                        settings=settings, diff_family=diff_family),
        fit={"iterations": fit.iterations, "converged": fit.converged,
             "mle_exists": fit.mle_exists},
        comparisons=[{**dataclasses.asdict(c), "fitted_weight": float(w)}
                     for c, w in zip(comparisons, weights, strict=True)],
        receipts=[])
