"""The families of the open ledger with their progress; Enter or double-click starts rating."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from arena.intake.families import listed
from arena.ledger import Ledger
from arena.rating.status import family_status
from arena.ui.tables import Index, RowsModel, pick_rows

COLUMNS = (
    ("aspect", "Aspect"),
    ("name", "Family"),
    ("kind", "Kind"),
    ("language", "Language"),
    ("systems", "Systems"),
    ("cases", "Cases"),
    ("votes", "Votes"),
    ("pending_pairs", "Pairs left"),
    ("settled_pairs", "Settled"),
    ("gate_failures", "Gate failures"),
)


class FamilyModel(RowsModel):
    """Rows of ``family_status``, cached until the ledger changes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []

    def reload(self, ledger: Ledger | None, *, counts: bool = True, archived: bool = False) -> None:
        """The families of ``ledger``, grouped by aspect (the archived ones only with
        ``archived``); without ``counts``, only their names, kinds and languages (the
        counts read every family: seconds on a large ledger)."""
        self.beginResetModel()
        if ledger is None:
            self.rows = []
        elif counts:
            self.rows = family_status(ledger, archived=archived)
        else:
            self.rows = listed(ledger, archived=archived)
        self.endResetModel()

    def _shown(self, row: int, key: str) -> str:
        values = self.rows[row]
        if key == "aspect":  # once per group: the rows below it belong to it
            first = row == 0 or self.rows[row - 1].get("aspect") != values.get("aspect")
            grouped = any(r.get("aspect") for r in self.rows)
            return (values.get("aspect") or "(no aspect)") if first and grouped else ""
        if key == "name":
            label = values.get("label", values["name"])
            shown = label + (f" ({values['name']})" if label != values["name"] else "")
            return shown + (" — archived" if values.get("archived") else "")
        return str(values[key]) if key in values else "…"  # counted in a moment

    def column_count(self) -> int:
        return len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.rows[index.row()]
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._shown(index.row(), key)
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(row.get(key), int):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and row["kind"] == "graded":
            return "Graded families are scored by graders, not by votes."
        return None

    def header_data(self, section: int, role: int) -> Any:
        return COLUMNS[section][1] if role == Qt.ItemDataRole.DisplayRole else None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class FamilyTable(QTableView):
    chosen = Signal(str)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        # Enter means "start rating" on every platform (macOS would otherwise edit).
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.activated.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


class FamilyList(QWidget):
    """Emits ``chosen(name)`` when the rater picks a family to rate."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = FamilyModel()
        self.table = FamilyTable()
        self.table.setModel(self.model)
        pick_rows(self.table)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.activated.connect(self._activated)
        self.table.doubleClicked.connect(self._activated)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.show_archived = QCheckBox("Show archived families")
        self.show_archived.setToolTip("arena family archive hides a family; this shows it again")
        self.show_archived.toggled.connect(lambda _on: self.reload(self._ledger))
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.show_archived)
        self.setFocusProxy(self.table)
        # The ledger whose families are listed without their counts yet.
        self._uncounted: Ledger | None = None
        self._ledger: Ledger | None = None

    def reload(self, ledger: Ledger | None, *, counts: bool = True) -> None:
        """List the families of ``ledger``; without ``counts`` they are counted once the
        list is on screen (a window opened on a family never needs them)."""
        chosen = self.selected_name()
        self._ledger = ledger
        self.model.reload(ledger, counts=counts, archived=self.show_archived.isChecked())
        self._uncounted = None if counts else ledger
        if self._uncounted is not None and self.isVisible():
            QTimer.singleShot(0, self._count)
        if ledger is None:
            self.hint.setText("No ledger is open: File ▸ Open ledger…")
        elif not self.model.rows:
            self.hint.setText(
                "This ledger has no families yet. Drop a file of outputs "
                "(JSON Lines, CSV, AlpacaEval JSON) on the window to import it."
            )
        else:
            self.hint.setText(
                f"{ledger.path} — choose a family and press Enter "
                "(or double-click) to start rating, B for its board, or G for "
                "its gate failures. Drop a file of outputs on the window to "
                "import it."
            )
        if chosen is not None:
            self.select(chosen)
        if self.model.rows and not self.table.currentIndex().isValid():
            self.table.selectRow(0)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._uncounted is not None:
            QTimer.singleShot(0, self._count)  # after the names are painted

    def _count(self) -> None:
        ledger, self._uncounted = self._uncounted, None
        if ledger is not None and self.isVisible():
            self.reload(ledger)
        else:
            self._uncounted = ledger

    def select(self, name: str) -> None:
        for row, values in enumerate(self.model.rows):
            if values["name"] == name:
                self.table.selectRow(row)

    def selected_name(self) -> str | None:
        index = self.table.currentIndex()
        return self.model.rows[index.row()]["name"] if index.isValid() else None

    def _activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.chosen.emit(self.model.rows[index.row()]["name"])
