"""The `?` overlay: every key of the window over a dimmed pair; `?`, Esc or a click hides it."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from arena.ui.keys import (
    ACTIONS,
    BOARD_PAGE_KEYS,
    FIXED_KEYS,
    FLAGS_ACTIONS,
    GATES_ACTIONS,
    JUDGES_ACTIONS,
    PAGE_KEYS,
    KeyMap,
    default_keys,
    display,
)


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(
        f"<tr><td align='right'><b>{html.escape(k)}</b></td>"
        f"<td>&nbsp;&nbsp;{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return "<table cellspacing='4'>" + body + "</table>"


class HelpOverlay(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAutoFillBackground(True)
        self.label.setMargin(18)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label, 0, Qt.AlignmentFlag.AlignCenter)
        parent.installEventFilter(self)
        self.hide()

    def set_keys(self, key_map: KeyMap) -> None:
        rating = [(display(key_map[a.name]), a.label) for a in ACTIONS] + list(FIXED_KEYS)
        gates = [(display(default_keys(a)), a.label) for a in GATES_ACTIONS]
        gates += [
            ("↑ ↓ ← →", "Move in the list, open or close a group"),
            ("Esc", "Back to the page you came from"),
        ]
        flags = [(display(default_keys(a)), a.label) for a in FLAGS_ACTIONS]
        judges = [(display(default_keys(a)), a.label) for a in JUDGES_ACTIONS]
        judges += [
            ("Tab", "The judges, then the selected judge's disagreements"),
            ("Enter", "Open the disagreement side by side (read-only)"),
            ("Esc", "Back to the list, then to the page you came from"),
        ]
        # Two columns, so the list fits a laptop screen.
        self.label.setText(
            "<table><tr><td valign='top'><h3>Rating</h3>"
            + _table(rating)
            + "<p>Change them in Settings ▸ Keys and preferences…</p></td>"
            "<td width='32'></td><td valign='top'><h3>Pages</h3>"
            + _table(list(PAGE_KEYS))
            + "<h3>Board page</h3>"
            + _table(list(BOARD_PAGE_KEYS))
            + "<h3>Gates page</h3>"
            + _table(gates)
            + "<h3>Flags page</h3>"
            + _table(flags)
            + "<h3>Judges page</h3>"
            + _table(judges)
            + "</td></tr></table>"
        )

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
            return
        parent = self.parentWidget()
        assert parent is not None  # built over a page (__init__ requires a parent)
        self.setGeometry(parent.rect())
        self.raise_()
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        parent = self.parentWidget()
        if parent is not None and watched is parent and event.type() == QEvent.Type.Resize:
            self.setGeometry(parent.rect())
        return False

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.hide()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(0, 0, 0, 120))
        painter.end()
