"""The Judges page's lists: each judge beside the rater, the boards side by side, and one
judge's disagreements.

Qt table models over what the core worked out (``judges_report``, ``disagreements``): they
hold it and format it, and ask nothing of the ledger. The judges' columns are whatever the
report's rows hold (``figures.columns``), so a figure the report gains shows up here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from arena.judges import figures
from arena.judges.comparison import RATER_KIND
from arena.judges.disagreements import COLUMNS, Disagreement, row
from arena.ui.tables import Index, RowsModel

# Headings that say more than the field's name; the others are the name (``heading``).
NAMED = {
    "kappa": "Cohen's κ",
    "board_tau": "τ with your board",
    "length_bias": "Length bias (points/SD)",
    "worth": "Worth (rater votes)",
    "worth_lam": "λ",
}


def heading(key: str) -> str:
    """A report field as a heading: ``agreement_with_ties`` → ``Agreement with ties``."""
    return NAMED.get(key, key.replace("_", " ").capitalize())


def column_heading(key: str) -> str:
    """``heading`` on the two lines of most even length where it is long, so that a column
    is as narrow as its figures: ``Agreement`` / ``with ties``."""
    text = heading(key)
    words = text.split(" ")
    if len(words) < 2 or len(text) <= 12:
        return text
    splits = [(" ".join(words[:k]), " ".join(words[k:])) for k in range(1, len(words))]
    first, second = min(splits, key=lambda split: max(len(split[0]), len(split[1])))
    return f"{first}\n{second}"


class JudgeTable(RowsModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.columns: list[str] = []

    def load(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows, self.columns = rows, figures.columns(rows)
        self.endResetModel()

    def cell(self, judge: dict[str, Any], column: int) -> str:
        """A figure to three significant digits above its interval (τ with the systems it
        is over), anything else as it is."""
        key = self.columns[column]
        value = judge.get(key)
        if key == "board_tau":
            return figures.tau_stacked(value)
        if key == "kind" and value == RATER_KIND:
            return "rater:\nvotes on the board"
        if value is None or figures.is_figure(value):
            return figures.stacked(value)
        return str(value)

    def column_count(self) -> int:
        return len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        judge = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(judge, index.column())
        value = judge.get(self.columns[index.column()])
        if role == Qt.ItemDataRole.ToolTipRole and value is not None and figures.is_figure(value):
            return f"{figures.shown(value)}: value [95% interval], over {value.get('count')}"
        return None

    def header_data(self, section: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return column_heading(self.columns[section])
        return heading(self.columns[section]) if role == Qt.ItemDataRole.ToolTipRole else None


class DisagreementTable(RowsModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Disagreement] = []
        self.judge = ""

    def load(self, judge: str, found: list[Disagreement]) -> None:
        self.beginResetModel()
        self.judge, self.rows = judge, found
        self.endResetModel()

    def cell(self, rank: int, column: int) -> str:
        return str(row(rank + 1, self.rows[rank])[column])

    def column_count(self) -> int:
        return len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(index.row(), index.column())
        return None

    def header_data(self, section: int, role: int) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        name = COLUMNS[section]
        return self.judge if name == "judge" else name.capitalize()


class BoardTable(RowsModel):
    """The rater's board and each judge's side by side (``figures.boards``)."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.rows: list[list[str]] = []

    def load(self, report: dict[str, Any] | None) -> None:
        self.beginResetModel()
        self.headers, self.rows = figures.boards(report) if report else ([], [])
        self.endResetModel()

    def column_count(self) -> int:
        return len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        return None

    def header_data(self, section: int, role: int) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        name = self.headers[section]
        return name.capitalize() if section < 2 else name  # system, rater; then the judges
