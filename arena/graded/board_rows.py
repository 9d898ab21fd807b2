"""A graded board's rows: each run's scores, its rank by intervals, and the sentences
that explain both (the CLI and the window say the same).

Ranks follow the intervals, as LMArena's do: a run's rank is 1 + the number of
runs whose 95% interval lies entirely above its own. Runs whose intervals
overlap are not told apart, so they share a rank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from arena.fit import macro_interval
from arena.graded.graders import Grade
from arena.graded.suite_scores import score_suite
from arena.graded.suites import Suite

CiMethod = Literal["percentile", "smoothed_t"]
# How rounds closed now compute ``ci95``; rounds closed before ``ci_method`` was
# recorded used the plain percentile interval (and none when task weights differ).
CI_METHOD: CiMethod = "smoothed_t"
FAILURES = ("parse_failure", "refusal", "timeout", "missing")
RANK_RULE = (
    "rank = 1 + the number of runs whose 95% interval lies entirely above this run's; "
    "runs whose intervals overlap share a rank"
)


def score_row(
    suite: Suite, items: list[dict[str, Any]], *, seed: int, ci_method: str = CI_METHOD
) -> dict[str, Any]:
    """The graded columns of one run from its receipts (also what `verify` recomputes).

    ``ci_method`` ``"percentile"`` gives the row as rounds closed before it was
    recorded had it, so their bundles still verify.
    """
    grades = {
        i["task_id"]: Grade(i["status"], i["credit"], i["passed"], i["parsed_answer"])
        for i in items
    }
    score = score_suite(suite, grades)
    weights = [t.weight for t in suite.tasks]
    equal = len(set(weights)) == 1
    row: dict[str, Any] = {
        "headline": score.headline,
        "passed": score.passed,
        "tasks": score.tasks,
        "coverage": score.coverage,
        "categories": {c.category: c.score for c in score.categories},
    }
    if ci_method == "percentile":
        # As before: the plain bootstrap weighed tasks equally, so none with unequal weights.
        ci = (
            macro_interval(score.credits, score.category_labels, seed=seed, method="percentile")
            if equal
            else None
        )
        return {**row, "ci95": list(ci) if ci else None}
    if ci_method != CI_METHOD:
        raise ValueError(f"unknown interval method {ci_method!r}")
    # The smoothed interval needs two tasks in a category to see how they vary.
    ci = (
        macro_interval(
            score.credits,
            score.category_labels,
            seed=seed,
            weights=None if equal else weights,
            method=CI_METHOD,
        )
        if min(c.tasks for c in score.categories) >= 2
        else None
    )
    reasons = Counter(
        i.get("attempt_status") or "not_attempted" for i in items if i["status"] == "missing"
    )
    unreceipted = score.status_counts.get("missing", 0) - sum(reasons.values())
    if unreceipted > 0:
        reasons["not_attempted"] += unreceipted
    return {
        **row,
        "ci95": list(ci) if ci else None,
        "ci_method": CI_METHOD,
        "status_counts": dict(score.status_counts),
        "missing_reasons": dict(sorted(reasons.items())),
    }


def _bounds(row: Mapping[str, Any]) -> tuple[float, float]:
    # A run without an interval cannot be told apart from any other.
    ci = row.get("ci95")
    return (ci[0], ci[1]) if ci else (0.0, 1.0)


def interval_ranks(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Each row's rank: 1 + the number of rows whose interval lies entirely above its own."""
    bounds = [_bounds(r) for r in rows]
    return [1 + sum(low > high for low, _ in bounds) for _, high in bounds]


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with their interval ranks, best first (a shared rank by headline, then label)."""
    for row, rank in zip(rows, interval_ranks(rows), strict=True):
        row["rank"] = rank
    return sorted(rows, key=lambda r: (r["rank"], -r["headline"], r["label"]))


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def interval_text(ci: Sequence[float] | None) -> str:
    return f"{_pct(ci[0])} – {_pct(ci[1])}" if ci else "no interval"


def _names(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def shared_rank_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One sentence for each rank that two or more runs share, saying why."""
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for row in rows:
        if row.get("rank") is not None:
            groups.setdefault(row["rank"], []).append(row)
    lines = []
    for rank, members in sorted(groups.items()):
        if len(members) < 2:
            continue
        names = _names([f"{r['label']} ({interval_text(r.get('ci95'))})" for r in members])
        lines.append(
            f"Rank {rank} is shared by {names}: their 95% intervals overlap, so the "
            "scores do not tell them apart."
        )
    return lines


def failure_count(row: Mapping[str, Any]) -> int | None:
    """Tasks that earned nothing for a reason other than a wrong answer (None: not recorded)."""
    counts = row.get("status_counts")
    return None if counts is None else sum(counts.get(s, 0) for s in FAILURES)


def failure_text(row: Mapping[str, Any]) -> str | None:
    """Failures by status, e.g. ``parse_failure 2, missing 1 (http_error 1)``; ``none``."""
    counts = row.get("status_counts")
    if counts is None:
        return None
    parts = []
    for status in FAILURES:
        n = counts.get(status, 0)
        if not n:
            continue
        part = f"{status} {n}"
        reasons = row.get("missing_reasons") or {}
        if status == "missing" and reasons:
            part += " (" + ", ".join(f"{k} {v}" for k, v in reasons.items()) + ")"
        parts.append(part)
    return ", ".join(parts) or "none"
