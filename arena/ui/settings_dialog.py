"""Settings ▸ Keys and preferences: remap the keys, set the break reminder."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QKeySequenceEdit,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arena.ui.dialogs import ok_cancel
from arena.ui.keys import ACTIONS, PORTABLE, KeyMap, default_key_map, problems

KEYS_PER_ACTION = 2
# Keys a key editor leaves to the dialog: Esc closes it, Return and Enter press OK.
DIALOG_KEYS = (Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter)


class KeyEdit(QKeySequenceEdit):
    """One binding. Esc, Return and Enter alone are never recorded (none may be a rater's
    key): they go to the dialog, as in any other dialog."""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        plain = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() in DIALOG_KEYS and plain == Qt.KeyboardModifier.NoModifier:
            event.ignore()  # on to the dialog
            return
        super().keyPressEvent(event)


class SettingsDialog(QDialog):
    def __init__(self, key_map: KeyMap, break_minutes: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keys and preferences")
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Action</b>"), 0, 0)
        grid.addWidget(QLabel("<b>Key</b>"), 0, 1)
        grid.addWidget(QLabel("<b>Other key</b>"), 0, 2)
        self.editors: dict[str, list[KeyEdit]] = {}
        for row, action in enumerate(ACTIONS, start=1):
            grid.addWidget(QLabel(action.label), row, 0)
            edits = []
            for column in range(KEYS_PER_ACTION):
                edit = KeyEdit()
                edit.setMaximumSequenceLength(1)
                edit.setClearButtonEnabled(True)
                grid.addWidget(edit, row, column + 1)
                edits.append(edit)
            self.editors[action.name] = edits
        self._fill(key_map)

        self.break_minutes = QSpinBox()
        self.break_minutes.setRange(1, 600)
        self.break_minutes.setSuffix(" minutes")
        self.break_minutes.setValue(break_minutes)
        breaks = QGridLayout()
        breaks.addWidget(QLabel("Remind me to take a break after"), 0, 0)
        breaks.addWidget(self.break_minutes, 0, 1)

        self.message = QLabel()
        self.message.setWordWrap(True)
        defaults = QPushButton("Restore default keys")
        defaults.clicked.connect(lambda: self._fill(default_key_map()))
        buttons = ok_cancel(self)
        buttons.addButton(defaults, QDialogButtonBox.ButtonRole.ResetRole)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addLayout(breaks)
        layout.addWidget(self.message)
        layout.addWidget(buttons)

    def _fill(self, key_map: KeyMap) -> None:
        for name, edits in self.editors.items():
            keys = key_map.get(name, [])
            for i, edit in enumerate(edits):
                edit.setKeySequence(QKeySequence(keys[i]) if i < len(keys) else QKeySequence())

    def key_map(self) -> KeyMap:
        return {
            name: [k for k in (e.keySequence().toString(PORTABLE) for e in edits) if k]
            for name, edits in self.editors.items()
        }

    def accept(self) -> None:
        found = problems(self.key_map())
        if found:
            self.message.setText("Not saved:\n" + "\n".join(found))
            return
        super().accept()
