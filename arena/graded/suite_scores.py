"""A run's scores over a suite: category means, the headline, and counts by status."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.graded.graders import STATUSES, Grade
from arena.graded.suites import Suite, Task


@dataclass(frozen=True)
class CategoryScore:
    category: str
    score: float
    tasks: int
    passed: int
    attempted: int


@dataclass(frozen=True)
class SuiteScore:
    """Scores of one run over a suite.

    ``credits`` and ``category_labels`` follow the suite's task order and are
    the arrays to pass to ``fitting.bootstrap_macro_score(credit, category, weight=...,
    rng=...)`` (through ``arena.fit.macro_interval``), with the tasks' weights.
    ``status_counts`` counts every status of ``graders.STATUSES``.
    """

    headline: float
    categories: tuple[CategoryScore, ...]
    tasks: int
    passed: int
    attempted: int
    coverage: float
    credits: tuple[float, ...]
    category_labels: tuple[str, ...]
    status_counts: Mapping[str, int] = field(default_factory=dict)


def score_suite(suite: Suite | Iterable[Task], grades: Mapping[str, Grade]) -> SuiteScore:
    """Category score = weighted mean task credit; headline = mean of the category scores.

    A task without a grade counts as ``missing`` with credit 0: nothing leaves
    the denominator. ``attempted`` counts tasks whose status is not ``missing``.
    """
    tasks = tuple(suite.tasks if isinstance(suite, Suite) else suite)
    if not tasks:
        raise ValueError("suite: no tasks to score")
    known = {t.task_id for t in tasks}
    stray = sorted(set(grades) - known)
    if stray:
        raise ValueError(f"grades: task id {stray[0]!r} is not in the suite")
    missing = Grade("missing", 0.0, False, None, "no output")
    verdicts = [grades.get(t.task_id, missing) for t in tasks]
    order = tuple(dict.fromkeys(t.category for t in tasks))
    categories = []
    for category in order:
        members = [(t, g) for t, g in zip(tasks, verdicts, strict=True) if t.category == category]
        weight = sum(t.weight for t, _ in members)
        categories.append(
            CategoryScore(
                category=category,
                score=sum(t.weight * g.credit for t, g in members) / weight,
                tasks=len(members),
                passed=sum(g.passed for _, g in members),
                attempted=sum(g.status != "missing" for _, g in members),
            )
        )
    attempted = sum(g.status != "missing" for g in verdicts)
    counts = {status: sum(g.status == status for g in verdicts) for status in STATUSES}
    return SuiteScore(
        headline=sum(c.score for c in categories) / len(categories),
        categories=tuple(categories),
        tasks=len(tasks),
        passed=sum(g.passed for g in verdicts),
        attempted=attempted,
        coverage=attempted / len(tasks),
        credits=tuple(g.credit for g in verdicts),
        category_labels=tuple(t.category for t in tasks),
        status_counts=counts,
    )
