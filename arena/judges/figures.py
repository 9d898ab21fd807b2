"""How `judges_report` figures read: a value with its 95% interval, which fields of a
judge's row a table shows (a report may hold more figures: a table lists whatever it has),
and the boards side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def is_figure(value: Any) -> bool:
    return isinstance(value, dict) and {"value", "low", "high"} <= value.keys()


def shown(figure: dict[str, Any] | None, places: int = 3) -> str:
    """``0.913 [0.895, 0.929]`` (``places`` decimals); the value alone without an interval, a
    dash without a value."""
    if figure is None or figure["value"] is None:
        return "—"
    value, low, high = figure["value"], figure["low"], figure["high"]
    if low is None:
        return f"{value:.{places}f}"
    return f"{value:.{places}f} [{low:.{places}f}, {high:.{places}f}]"


def columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The fields of ``rows`` that are a figure, a number or a word in each row (or null),
    in the first row's order: a table's columns."""

    def cell(value: Any) -> bool:
        return value is None or is_figure(value) or isinstance(value, (str, int, float))

    return [key for key in rows[0] if all(cell(row.get(key)) for row in rows)] if rows else []


def boards(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The rater's board and each judge's side by side, as headers and rows: points [95%
    interval] by system, in the rater's order (a system the rater never saw last)."""
    boards = [report["rater_board"], *(j["board"] for j in report["judges"])]
    rows = {row["system"]: row for board in reversed(boards) for row in board}
    by_system = [{row["system"]: row["points"] for row in board} for board in boards]
    return ["system", "rater", *(j["judge"] for j in report["judges"])], [
        [rows[s]["label"], *(shown(board.get(s), 0) for board in by_system)]
        for s in dict.fromkeys(r["system"] for board in boards for r in board)
    ]
