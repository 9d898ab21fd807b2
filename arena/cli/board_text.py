"""A board's table as `arena round show` prints it: the columns of the window
(arena.rounds.board_vocabulary), headers in lower case as the rest of the command line.

A voted board's 95% intervals of points, which the window draws as whiskers, are a
column after the points here.
"""

from __future__ import annotations

from typing import Any

from arena.rounds.board_vocabulary import (
    POINTS,
    POINTS_CI95,
    WIDE_MARK,
    Column,
    board_columns,
    cell,
)
from arena.rounds.model import BoardRow, RoundSummary
from arena.rounds.round_records import Uncertainty


def fmt(value: Any, digits: int = 0, percent: bool = False) -> Any:
    """A summary figure as printed (None stays None)."""
    if value is None:
        return None
    if percent:
        return f"{100 * value:.0f}%"
    return round(value) if digits == 0 else f"{value:.{digits}f}"


def board_table(
    kind: str, rows: list[BoardRow], *, category: bool
) -> tuple[list[str], list[list[Any]], list[bool]]:
    """Headers, cells and right-aligned columns of a board's ranked rows (``kind``: the
    family's kind; ``category``: a category view, its family-wide columns marked)."""
    columns = list(board_columns(kind, rows, category=category))
    if POINTS in columns and any(r.ci95 for r in rows):
        columns.insert(columns.index(POINTS) + 1, POINTS_CI95)
    headers = [_header(c) + (" " + WIDE_MARK) * (category and c.family_wide) for c in columns]
    cells = [[cell(r, c, kind) for c in columns] for r in rows]
    return headers, cells, [c.numeric for c in columns]


def _header(column: Column) -> str:
    # A category's name is printed as its suite spells it.
    return column.header if column.category is not None else column.header.lower()


NOT_TOLD = "not enough votes to tell"


def told(summary: RoundSummary, figure: str, text: str) -> str:
    """A summary figure as printed, or why the votes cannot tell it (``unavailable``)."""
    reason = (summary.unavailable or {}).get(figure)
    return f"{NOT_TOLD} ({reason})" if reason else text


def uncertainty_line(record: Uncertainty | None) -> str | None:
    """One line on a voted board's intervals: how they were made, or why there are none."""
    if record is None:
        return None
    if not record.available:
        return f"uncertainty unavailable: {record.reason}"
    return (
        f"95% intervals: {record.method} of the cases, {record.resamples} resamples, "
        f"seed {record.seed}; the board's regime lies where coverage was checked"
    )
