"""The Flags page's list: one row a flag, newest first, with the pair as the rater saw it.

A Qt table model over the ``Flag`` records the core worked out (``arena.rating.flags``):
it holds them and formats them, and asks nothing of the ledger.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont

from arena.rating.flags import Flag
from arena.ui.tables import Index, RowsModel

HEADERS = ("When", "Case", "Left", "Right", "Status", "Note")


def when(at: str) -> str:
    """``2026-11-01T10:00:00.000+00:00`` as ``2026-11-01 10:00``."""
    return at[:16].replace("T", " ")


def one_line(text: str, size: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= size else line[: size - 1] + "…"


class FlagTable(RowsModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Flag] = []
        # Settled flags (resolved or answered by a correction) are drawn in this colour.
        self.muted = QColor("gray")

    def load(self, found: list[Flag]) -> None:
        self.beginResetModel()
        # Open flags first, each group newest first.
        self.rows = sorted(found, key=lambda f: f.at, reverse=True)
        self.rows.sort(key=lambda f: not f.is_open)
        self.endResetModel()

    def find(self, flag_id: str | None) -> int | None:
        return next((i for i, f in enumerate(self.rows) if f.event_id == flag_id), None)

    def cell(self, flag: Flag, column: int) -> str:
        left = flag.left.system if flag.left else "—"
        right = flag.right.system if flag.right else "—"
        values = (when(flag.at), flag.case_id or "—", left, right, flag.status, one_line(flag.note))
        return values[column]

    def column_count(self) -> int:
        return len(HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        flag = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(flag, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == len(HEADERS) - 1:
            return flag.note
        if role == Qt.ItemDataRole.ForegroundRole and not flag.is_open:
            return self.muted
        if role == Qt.ItemDataRole.FontRole and flag.is_open and index.column() == 4:
            bold = QFont()
            bold.setBold(True)
            return bold
        return None

    def header_data(self, section: int, role: int) -> Any:
        return HEADERS[section] if role == Qt.ItemDataRole.DisplayRole else None
