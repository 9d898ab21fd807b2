"""Work that waits until a widget has painted: the pair on screen first, then what
follows from it (the progress count, whether the order has settled, the next pair's
rendering), which may take longer the first time (the numerics load)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

# A widget that is not on screen (hidden, minimised, in a test) gets no paint: the work
# runs this long after it was asked for instead.
FALLBACK_MS = 250


class AfterPaint(QObject):
    """Runs ``work`` once after each ``request``, when ``widget`` has next painted."""

    def __init__(self, widget: QWidget, work: Callable[[], None]) -> None:
        super().__init__(widget)
        self._work = work
        self._due = False
        self._fallback = QTimer(self)
        self._fallback.setSingleShot(True)
        self._fallback.timeout.connect(self._run)
        widget.installEventFilter(self)

    def request(self) -> None:
        self._due = True
        self._fallback.start(FALLBACK_MS)

    def pending(self) -> bool:
        """Whether the work asked for has not run yet."""
        return self._due

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if self._due and event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self._run)  # once this paint is done
        return False

    def _run(self) -> None:
        if self._due:
            self._due = False
            self._fallback.stop()
            self._work()
