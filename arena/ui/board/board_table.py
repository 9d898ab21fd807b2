"""The board's table: its Points column takes the room the others leave."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QTableView

from arena.rounds.board_vocabulary import POINTS, RUN, SYSTEM
from arena.ui.board.board_model import BoardModel

# The System column's widest, in average characters: longer labels are elided.
SYSTEM_CHARS = 26
# The Run column's widest (a tests family's agent and turn budget), likewise.
RUN_CHARS = 12


class BoardTable(QTableView):
    """A table whose Points column takes the room the others leave, so the bars
    grow with the window, but never less than the delegate asks for. The System
    column is as wide as its longest label when there is room, else as wide as
    there is room for (at least ``SYSTEM_CHARS`` characters), its labels elided."""

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit_points()

    def fit_points(self) -> None:
        model = self.model()
        if not isinstance(model, BoardModel) or POINTS not in model.columns:
            return
        points = model.columns.index(POINTS)
        header = self.horizontalHeader()
        wanted = self.sizeHintForColumn(points)
        if RUN in model.columns:
            run = model.columns.index(RUN)
            full = max(self.sizeHintForColumn(run), header.sectionSizeHint(run))
            header.resizeSection(run, min(full, RUN_CHARS * self.fontMetrics().averageCharWidth()))
        if SYSTEM in model.columns:
            system = model.columns.index(SYSTEM)
            sizes = [header.sectionSize(c) for c in range(model.columnCount())]
            rest = sum(size for c, size in enumerate(sizes) if c not in (points, system))
            full = max(self.sizeHintForColumn(system), header.sectionSizeHint(system))
            floor = SYSTEM_CHARS * self.fontMetrics().averageCharWidth()
            room = self.viewport().width() - rest - wanted
            header.resizeSection(system, min(full, max(floor, room)))
        others = sum(header.sectionSize(c) for c in range(model.columnCount()) if c != points)
        header.resizeSection(points, max(wanted, self.viewport().width() - others))
