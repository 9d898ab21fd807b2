"""A board's vocabulary: its columns (header, tooltip, format) and the marks of a row, in
the words `arena round show` prints and the window shows.

Voted and tested boards have fixed columns by family kind; a graded board has one column
per category of its suite besides its fixed ones (``graded_columns``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.rounds.model import BoardRow
from arena.rounds.settings_record import AXIS_SPAN
from arena.rounds.system_columns import cost_text

FAR_BEHIND = f"more than {AXIS_SPAN:.0f} points below the top score"
# A category view marks its family-wide columns (the same in every category: not refitted).
WIDE_MARK = "(all)"


def preliminary_rule(threshold: float) -> str:
    """What makes a system preliminary on a board closed with ``threshold``."""
    return f"fewer than {threshold:g} decisive votes (left or right)"


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def _points(value: float) -> str:
    return f"{value:.0f}"


def _latency(value: float) -> str:
    return f"{value:,.0f} ms"


def _duration(value: float) -> str:
    """A run's time in the unit that keeps it short: an agent's run takes minutes."""
    if value < 1000:
        return f"{value:.0f} ms"
    if value < 60_000:
        return f"{value / 1000:.1f} s"
    if value < 3_600_000:
        return f"{value / 60_000:.1f} min"
    return f"{value / 3_600_000:.1f} h"


def points_interval(value: list[float]) -> str:
    return f"{value[0]:.0f}–{value[1]:.0f}"


def _score(value: float) -> str:
    return f"{100 * value:.1f}%"


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    tooltip: str
    fmt: Callable[[Any], str] = str
    numeric: bool = True
    # Computed over the whole family even in a category view (SPEC: Category view).
    family_wide: bool = False
    # A graded board's category score column: the category it shows.
    category: str | None = None
    # The cell of a column that shows more than its key's value (None: the formatted value).
    text: Callable[[BoardRow], str | None] | None = None


RANK = Column("rank", "Rank", "Rank by points as displayed: equal points share a rank.")
SYSTEM = Column("label", "System", "The system's label.", numeric=False)
POINTS = Column("points", "Points", "", _points)
# A voted board's 95% intervals of points: the window draws them as whiskers on the bars.
POINTS_CI95 = Column(
    "ci95",
    "95% interval",
    "A bootstrap of the cases, where the board's regime was checked in simulation.",
    points_interval,
)
MARKS = Column("marks", "Marks", "Preliminary and far-behind marks.", numeric=False)
VOTES = Column(
    "votes",
    "Votes",
    "Human votes in the fit on this system's pairs (settled pairs and repeats excluded).",
    family_wide=True,
)
BOTH_BAD = Column(
    "both_bad_share",
    "Both bad",
    "Share of its votes that were “both bad”.",
    _percent,
    family_wide=True,
)
# A category view's own vote columns, shown before the family-wide Votes.
CATEGORY_VOTES = Column(
    "category_votes",
    "Votes",
    "Human votes of this category in its refit: the evidence its points and marks rest on.",
)
CATEGORY_BOTH_BAD = Column(
    "category_both_bad_share",
    "Both bad",
    "Share of its votes in this category that were “both bad”.",
    _percent,
)
GATE_FAILURES = Column(
    "gate_failure_share",
    "Gate failures",
    "Share of its outputs failing at least one gate.",
    _percent,
    family_wide=True,
)
PASS_RATE = Column(
    "pass_rate",
    "Pass rate",
    "Passed trials over tasks × samples: a task not answered, an output without a result, "
    "an errored, timed-out or resource-limited trial count as failed.",
    _percent,
    family_wide=True,
)
FAILED_TESTS = Column(
    "failed_tests_share",
    "Failed tests",
    "Share of its trials (tasks × samples) that did not pass.",
    _percent,
    family_wide=True,
)
RUN = Column(
    "run",
    "Run",
    "The agent or harness that produced its patches, and its turn budget.",
    numeric=False,
    family_wide=True,
)
TRIALS = Column(
    "trials",
    "Passed",
    "Passed trials of the trials expected (tasks × samples).",
    family_wide=True,
    text=lambda r: None if r.trials is None else f"{r.trials_passed}/{r.trials}",
)
NO_OUTPUT = Column(
    "no_output",
    "No output",
    "Tasks it did not answer: each counts as a failed trial.",
    family_wide=True,
)
TRIAL_TIME = Column(
    "p50_trial_ms",
    "Test run p50",
    "Median duration of the hidden-test command on its solutions (its trials in force "
    "that report one): Arena's run of the tests, not the agent's time (Agent p50).",
    _duration,
    family_wide=True,
)
AGENT_TIME = Column(
    "p50_latency_ms",
    "Agent p50",
    "Median time of the agent's whole run on a task: the latency_ms imported with each "
    "solution, over those that report one. Not the test run (Test run p50).",
    _duration,
    family_wide=True,
)
COST = Column(
    "cost_per_output",
    "Cost / output",
    "Mean list-price cost of its outputs that report one, in the currency of the imported prices.",
    cost_text,
    family_wide=True,
)
COST_SOLUTION = Column(
    "cost_per_output",
    "Cost / solution",
    "Mean list-price cost of its solutions (each the agent's run on a task answered) that "
    "report one, in the currency of the imported prices; tasks not answered are not counted.",
    cost_text,
    family_wide=True,
)
LATENCY = Column(
    "p50_latency_ms",
    "p50 latency",
    "Median latency of its outputs that report one.",
    _latency,
    family_wide=True,
)


def _interval_text(ci: Sequence[float] | None) -> str:
    # The graded side (its suites and graders) is loaded by a graded board's cells only:
    # a votes round's close and `arena status` go without.
    from arena.graded.board_rows import interval_text

    return interval_text(ci)


HEADLINE = Column(
    "headline",
    "Score",
    "Macro-average of the category scores (category score = weighted mean task credit).",
    _score,
)
CI95 = Column(
    "ci95",
    "95% interval",
    "Seeded stratified bootstrap interval of the score: tasks resampled within their "
    "categories, each with its weight, smoothed, rescaled and t-calibrated for suites "
    "of a few tasks (docs/graded.md).",
    _interval_text,
)
GRADED_RANK = Column(
    "rank",
    "Rank",
    "1 + the number of runs whose 95% interval lies entirely above this run's: runs "
    "whose intervals overlap share a rank.",
)
PASSED = Column(
    "passed",
    "Passed",
    "Tasks with full credit, of the suite's tasks (unattempted ones count, with credit 0).",
    text=lambda r: None if r.passed is None else f"{r.passed}/{r.tasks}",
)
COVERAGE = Column(
    "coverage", "Coverage", "Share of the suite's tasks that were attempted.", _percent
)


def _failures(row: BoardRow) -> str | None:
    from arena.graded.board_rows import failure_count

    count = failure_count(row.to_json())
    return None if count is None else str(count)


FAILURES = Column(
    "failures",
    "Failures",
    "Tasks that scored 0 without a wrong answer: parse failures, refusals, timeouts and "
    "missing outputs. Hover a cell for the count of each.",
    text=_failures,
)
TIER = Column("tier", "Tier", "reference or community.", numeric=False)


def category_column(name: str) -> Column:
    """A graded board's column of one category's score."""

    def score(row: BoardRow) -> str | None:
        value = (row.categories or {}).get(name)
        return None if value is None else _score(value)

    return Column(
        f"category:{name}",
        name,
        f"Category {name}: the weighted mean credit of its tasks.",
        _score,
        category=name,
        text=score,
    )


def graded_columns(categories: list[str], *, costs: bool = True) -> tuple[Column, ...]:
    """A graded board's columns, with one column per category (in suite order); without
    the cost column when no run reports a cost (``costs``), to leave room for them."""
    return (
        GRADED_RANK,
        SYSTEM,
        HEADLINE,
        CI95,
        PASSED,
        COVERAGE,
        *(category_column(c) for c in categories),
        FAILURES,
        TIER,
        *((COST,) if costs else ()),
        LATENCY,
    )


# Both tested kinds lead with the run and its pass rate.
_TESTED_LEAD = (RANK, SYSTEM, RUN, POINTS, MARKS, PASS_RATE)
KIND_COLUMNS: dict[str, tuple[Column, ...]] = {
    "votes": (RANK, SYSTEM, POINTS, MARKS, VOTES, BOTH_BAD, GATE_FAILURES, COST, LATENCY),
    "tests": (
        *_TESTED_LEAD,
        TRIALS,
        NO_OUTPUT,
        COST_SOLUTION,
        AGENT_TIME,
        TRIAL_TIME,
        GATE_FAILURES,
    ),
    "tests_then_votes": (
        *_TESTED_LEAD,
        FAILED_TESTS,
        VOTES,
        BOTH_BAD,
        GATE_FAILURES,
        COST_SOLUTION,
        AGENT_TIME,
        TRIAL_TIME,
    ),
    "graded": graded_columns([]),
}


def columns_for(kind: str, *, category: bool = False) -> tuple[Column, ...]:
    """The columns of a board of ``kind``; in a category view (``category``) the
    category's own votes and both-bad share come before the family-wide votes, and a
    tested board leaves out the Run and Test run p50 columns."""
    columns = KIND_COLUMNS.get(kind, KIND_COLUMNS["votes"])
    if category:  # the run and its tests' time are the family's: room for the category's votes
        columns = tuple(c for c in columns if c not in (RUN, TRIAL_TIME))
    keys = [c.key for c in columns]
    if not category or VOTES.key not in keys:
        return columns
    at = keys.index(VOTES.key)
    return (
        *columns[:at],
        CATEGORY_VOTES,
        columns[at],
        CATEGORY_BOTH_BAD,
        *(c for c in columns[at + 1 :] if c.key != BOTH_BAD.key),
    )


def board_columns(
    kind: str, rows: Sequence[BoardRow], *, category: bool = False
) -> tuple[Column, ...]:
    """The columns of a board of ``kind`` showing ``rows``: a graded board has a column for
    each category its runs have, and a cost column only when one of them reports a cost."""
    if kind != "graded":
        return columns_for(kind, category=category)
    names = dict.fromkeys(c for r in rows for c in r.categories or {})
    return graded_columns(list(names), costs=any(r.cost_per_output is not None for r in rows))


def marks(row: BoardRow, kind: str) -> list[str]:
    """A row's marks: preliminary (never on a tests board: it asks for no votes) and far
    behind (below the points axis)."""
    shown = ["preliminary"] if row.preliminary and kind != "tests" else []
    return shown + (["far behind"] if row.far_behind else [])


def cell(row: BoardRow, column: Column, kind: str) -> str | None:
    """The cell as a board shows it, None where the value is missing."""
    if column is MARKS:
        return ", ".join(marks(row, kind))
    if column.text is not None:
        return column.text(row)
    raw = getattr(row, column.key)
    return None if raw is None else column.fmt(raw)


def solutions(row: BoardRow) -> int:
    """A tested row's solutions (its tasks answered, × samples): what its agent p50 and
    cost per solution are of, where each reports them."""
    return (row.trials or 0) - (row.no_output or 0)


def solutions_tip(row: BoardRow, timed: bool) -> str:
    """How many solutions a tested row's agent p50 (``timed``) or cost per solution is of."""
    told = row.solutions_timed if timed else row.solutions_costed
    what = "median of" if timed else "mean of"
    reported = "the agent's time" if timed else "a cost"
    return f"The {what} {told} of its {solutions(row)} solutions: those that report {reported}" + (
        f"; tasks not answered: {row.no_output}." if row.no_output else "."
    )
