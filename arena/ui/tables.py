"""What the window's read-only tables share: a model of cached rows the rater selects but
never edits, and a view that picks one whole row at a time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView

Index = QModelIndex | QPersistentModelIndex


class RowsModel(QAbstractTableModel):
    """A flat table over ``rows``; a subclass says how many columns there are and what
    each column's header shows (``header_data``), and gives ``data`` and ``flags``."""

    rows: Sequence[Any]

    def column_count(self) -> int:
        raise NotImplementedError

    def header_data(self, section: int, role: int) -> Any:
        """The horizontal header of column ``section`` for ``role`` (None: nothing)."""
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else self.column_count()

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        return self.header_data(section, role)


def pick_rows(table: QAbstractItemView) -> None:
    """``table`` selects one whole row at a time and never edits a cell."""
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
