"""Who is voting: the small question the window asks once per ledger (``arena.rating.raters``).

Keyboard first: the name field has the focus; ↑ and ↓ walk the ledger's raters into it,
typing gives a new name, Enter takes the name, Esc cancels. A name Arena refuses (empty,
control characters, the settler's) is said under the field and the dialog stays.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListWidget, QVBoxLayout, QWidget

from arena.errors import BadInput
from arena.rating import raters
from arena.ui.dialogs import ok_cancel


class RaterDialog(QDialog):
    def __init__(self, known: list[str], current: str | None, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Who is voting?")
        self.setObjectName("rater-dialog")
        self.setMinimumWidth(420)
        intro = QLabel(
            "Several people have voted in this ledger. Your votes carry your name: only they "
            "come back as repeats, and “your votes” counts only them. Arena remembers the "
            "name for this ledger on this computer."
        )
        intro.setWordWrap(True)
        self.names = QListWidget()
        self.names.addItems(known)
        # As tall as its names (up to eight), not a page of white under one or two.
        rows = max(1, min(len(known), 8))
        self.names.setFixedHeight(self.names.sizeHintForRow(0) * rows + 2 * self.names.frameWidth())
        self.names.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.names.currentTextChanged.connect(self._picked)
        self.names.itemActivated.connect(lambda _item: self.accept())
        self.name = QLineEdit(current or "")
        self.name.setPlaceholderText("your name: type a new one, or ↑ ↓ to pick one above")
        self.name.installEventFilter(self)
        self.problem = QLabel()
        self.problem.setObjectName("problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.names)
        layout.addWidget(self.name)
        layout.addWidget(self.problem)
        layout.addWidget(ok_cancel(self))
        self.name.setFocus()
        self.chosen: str | None = None

    def _picked(self, text: str) -> None:
        if text:
            self.name.setText(text)
            self.name.selectAll()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        """↑ and ↓ in the name field move through the known raters."""
        if watched is self.name and isinstance(event, QKeyEvent):
            step = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(Qt.Key(event.key()))
            if step is not None and event.type() == QEvent.Type.KeyPress and self.names.count():
                row = self.names.currentRow()
                start = -1 if step > 0 else self.names.count()
                at = min(max((start if row < 0 else row) + step, 0), self.names.count() - 1)
                self.names.setCurrentRow(at)
                return True
        return False

    def accept(self) -> None:
        try:
            self.chosen = raters.checked(self.name.text(), field="name")
        except BadInput as refused:
            self.problem.setText(str(refused))
            self.problem.show()
            return
        super().accept()


def ask_rater(parent: QWidget | None, known: list[str], current: str | None = None) -> str | None:
    """The name of the one at the keyboard, or None when cancelled. Tests replace this."""
    dialog = RaterDialog(known, current, parent)
    return dialog.chosen if dialog.exec() else None
