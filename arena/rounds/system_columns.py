"""A board's columns beside the points: each system's outputs, trials and votes."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.family_state import FamilyState
from arena.records import Family, Output, OutputId, System, SystemId
from arena.rounds.comparison_table import Comparisons
from arena.rounds.scoring import sides


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def output_columns(
    family: Family, outputs: Sequence[Output], failing: frozenset[OutputId]
) -> dict[str, Any]:
    """Columns that describe a system's outputs, the same for every category view."""
    costs = [o.cost for o in outputs if o.cost is not None]
    latencies = [o.latency_ms for o in outputs if o.latency_ms is not None]
    return {
        "gate_failure_share": _share(sum(o.output_id in failing for o in outputs), len(outputs)),
        "cost_per_output": statistics.fmean(costs) if costs else None,
        "p50_latency_ms": statistics.median(latencies) if latencies else None,
    }


def tested_columns(state: FamilyState, system: System, outputs: Sequence[Output]) -> dict[str, Any]:
    """A tested family's columns: every system is judged on every task (case in force) and
    each sample it was asked for; an unanswered task or an output without any result
    counts as a failed trial. The agent's time and cost are its outputs' (``output_columns``:
    each output is a solution, the agent's whole run on a task); the test run's time is
    its trials' (``p50_trial_ms``)."""
    tasks = len(state.cases_in_force)
    samples = max(Counter(o.case_id for o in outputs).values(), default=1)
    expected = tasks * samples
    passed = sum(o.test_result == "passed" for o in outputs)
    times = [
        t.duration_ms
        for o in outputs
        if (t := state.trials.get(o.output_id)) and t.duration_ms is not None
    ]
    budget = system.descriptor.turn_budget
    run = system.descriptor.harness or system.descriptor.model
    return {
        "run": run + (f", {budget} turns" if budget else ""),
        "trials": expected,
        "trials_passed": passed,
        "no_output": expected - len(outputs),
        "untried": sum(o.test_result is None for o in outputs),
        "p50_trial_ms": statistics.median(times) if times else None,
        "solutions_timed": sum(o.latency_ms is not None for o in outputs),
        "solutions_costed": sum(o.cost is not None for o in outputs),
        "pass_rate": _share(passed, expected),
        "failed_tests_share": (
            _share(expected - passed, expected) if state.family.kind == "tests_then_votes" else None
        ),
    }


def vote_columns(
    systems: Sequence[System], comparisons: Comparisons, weights: np.ndarray
) -> dict[SystemId, dict[str, Any]]:
    """Each system's fitted human votes, and the share of them on which both were bad."""
    a, b = sides(comparisons, {s.system_id: i for i, s in enumerate(systems)})
    live = comparisons.votes & (weights > 0)

    def per_system(rows: np.ndarray) -> list[int]:
        # A comparison counts once for each of its systems (-1: not on the board).
        counts = np.bincount(a[rows] + 1, minlength=len(systems) + 1) + np.bincount(
            b[rows & (a != b)] + 1, minlength=len(systems) + 1
        )
        return counts[1:].tolist()

    votes = per_system(live)
    both_bad = per_system(live & comparisons.mask("choice", "both_bad"))
    return {
        s.system_id: {"votes": votes[i], "both_bad_share": _share(both_bad[i], votes[i])}
        for i, s in enumerate(systems)
    }


def cost_text(value: float) -> str:
    """A cost as every board prints it: three significant figures at most, never as an
    exponent (a rater reads 0.0000403, not 4.03e-05, beside 0.00059)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
