"""How `judges_report` figures read: a value with its 95% interval, and which fields of a
judge's row a table shows (a report may hold more figures: a table lists whatever it has)."""

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
