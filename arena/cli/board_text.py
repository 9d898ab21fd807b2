"""The columns of a board as `arena round show` prints it, by family kind.

A tests family is ranked by its tests alone: no vote columns, and what a tested board shows
of its agents (the run and its turn budget, pass rate, cost per solution and the agent's
time) beside the time of the hidden tests' run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.rounds.system_columns import cost_text

Row = dict[str, Any]


def fmt(value: Any, digits: int = 0, percent: bool = False, significant: bool = False) -> Any:
    if value is None:
        return None
    if percent:
        return f"{100 * value:.0f}%"
    if significant:
        return cost_text(value)
    return round(value) if digits == 0 else f"{value:.{digits}f}"


def _label(r: Row) -> str:
    return (
        r["label"]
        + (" *" if r["preliminary"] else "")
        + (" (far behind)" if r["far_behind"] else "")
    )


def _trials(r: Row) -> str:
    return f"{r['trials_passed']}/{r['trials']}"


_RANK: list[tuple[str, Callable[[Row], Any]]] = [
    ("rank", lambda r: r["rank"]),
    ("system", _label),
]
_VOTES: list[tuple[str, Callable[[Row], Any]]] = [
    ("votes", lambda r: r["votes"]),
    ("both bad", lambda r: fmt(r["both_bad_share"], percent=True)),
]
_TESTS: list[tuple[str, Callable[[Row], Any]]] = [
    ("run", lambda r: r.get("run")),
    ("points", lambda r: fmt(r["points"])),
    ("pass rate", lambda r: fmt(r["pass_rate"], percent=True)),
    ("passed", _trials),
    ("no output", lambda r: r.get("no_output")),
]
# The agent's whole run on a task (each solution's imported cost and latency_ms), then
# Arena's run of the hidden tests: two times, named apart.
_AGENT: list[tuple[str, Callable[[Row], Any]]] = [
    ("cost/solution", lambda r: fmt(r["cost_per_output"], significant=True)),
    ("agent p50 ms", lambda r: fmt(r["p50_latency_ms"])),
    ("test run p50 ms", lambda r: fmt(r.get("p50_trial_ms"))),
]
_COSTS: list[tuple[str, Callable[[Row], Any]]] = [
    ("gate fail", lambda r: fmt(r["gate_failure_share"], percent=True)),
]
COLUMNS: dict[str, list[tuple[str, Callable[[Row], Any]]]] = {
    "votes": [
        *_RANK,
        ("points", lambda r: fmt(r["points"])),
        *_VOTES,
        *_COSTS,
        ("cost/output", lambda r: fmt(r["cost_per_output"], significant=True)),
        ("p50 ms", lambda r: fmt(r["p50_latency_ms"])),
        ("pass rate", lambda r: fmt(r["pass_rate"], percent=True)),
    ],
    "tests": [*_RANK, *_TESTS, *_AGENT, *_COSTS],
    "tests_then_votes": [
        *_RANK,
        *_TESTS,
        ("failed tests", lambda r: fmt(r["failed_tests_share"], percent=True)),
        *_VOTES,
        *_AGENT,
        *_COSTS,
    ],
}
# A category view's vote columns: the category's own votes beside the family-wide ones.
_CATEGORY_VOTES: list[tuple[str, Callable[[Row], Any]]] = [
    ("votes", lambda r: r.get("category_votes")),
    ("votes", lambda r: r["votes"]),
    ("both bad", lambda r: fmt(r.get("category_both_bad_share"), percent=True)),
]
# Columns of a category view that are the category's own; the others keep their
# family-wide value and are marked "(all)".
_OWN = {"rank", "system", "points"}


def board_table(kind: str, rows: list[Row], *, category: bool) -> tuple[list[str], list[list[Any]]]:
    """Headers and cells of a board's ranked rows for a family of ``kind``.

    In a category view (``category``) the votes are the category's own, then the
    family's: a category's points rest on its own votes, however many the family has.
    """
    columns = list(COLUMNS.get(kind, COLUMNS["votes"]))
    if not category:
        return [name for name, _ in columns], [[cell(r) for _, cell in columns] for r in rows]
    if _VOTES[0] in columns:
        at = columns.index(_VOTES[0])
        columns[at : at + len(_VOTES)] = _CATEGORY_VOTES
    own = [name in _OWN for name, _ in columns]
    if _CATEGORY_VOTES[0] in columns:
        own[columns.index(_CATEGORY_VOTES[0])] = True
        own[columns.index(_CATEGORY_VOTES[2])] = True
    headers = [
        name if mine else name + " (all)" for (name, _), mine in zip(columns, own, strict=True)
    ]
    return headers, [[cell(r) for _, cell in columns] for r in rows]


NOT_TOLD = "not enough votes to tell"


def told(summary: Row, key: str, text: str) -> str:
    """A summary figure as printed, or why the votes cannot tell it (``unavailable``)."""
    reason = (summary.get("unavailable") or {}).get(key)
    return f"{NOT_TOLD} ({reason})" if reason else text


def interval(ci: list[float] | None) -> str | None:
    return None if ci is None else f"{ci[0]:.0f}–{ci[1]:.0f}"


def with_intervals(headers: list[str], cells: list[list[Any]], rows: list[Row]) -> None:
    """Add a voted board's 95% intervals of points after its points column, where it has
    them (in place)."""
    if "points" not in headers or not any(r.get("ci95") for r in rows):
        return
    at = headers.index("points") + 1
    headers.insert(at, "95% interval")
    for line, row in zip(cells, rows, strict=True):
        line.insert(at, interval(row.get("ci95")))


def uncertainty_line(record: Row | None) -> str | None:
    """One line on a voted board's intervals: how they were made, or why there are none."""
    if record is None:
        return None
    if not record["available"]:
        return f"uncertainty unavailable: {record['reason']}"
    return (
        f"95% intervals: {record['method']} of the cases, {record['resamples']} resamples, "
        f"seed {record['seed']}; the board's regime lies where coverage was checked"
    )
