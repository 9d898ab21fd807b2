"""Work that would freeze the window, done on a thread of its own (as the collect dialog
runs its requests): the thread touches no widget and not the window's ledger connection;
the window's thread polls for its result and hands it on."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

POLL_MS = 50


class Background(QObject):
    """One piece of work at a time: starting another drops the result of the one before."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._started = 0  # the number of the newest work
        self._results: queue.Queue[tuple[int, bool, Any]] = queue.Queue()
        self._then: tuple[Callable[[Any], object], Callable[[BaseException], object]] | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._poll)

    @property
    def busy(self) -> bool:
        return self._then is not None

    def start(
        self,
        work: Callable[[], Any],
        done: Callable[[Any], object],
        failed: Callable[[BaseException], object],
    ) -> None:
        """Run ``work`` on a thread; ``done(result)`` or ``failed(error)`` on this one."""
        self._started += 1
        number = self._started
        self._then = (done, failed)

        def run() -> None:
            try:
                self._results.put((number, True, work()))
            except BaseException as exc:  # handed to the window's thread
                self._results.put((number, False, exc))

        threading.Thread(target=run, name="arena-background", daemon=True).start()
        self._timer.start(POLL_MS)

    def cancel(self) -> None:
        """Drop what the work under way will give."""
        self._started += 1
        self._then = None
        self._timer.stop()

    def _poll(self) -> None:
        while True:
            try:
                number, ok, value = self._results.get_nowait()
            except queue.Empty:
                return
            if number == self._started and self._then is not None:
                done, failed = self._then
                self._then = None
                self._timer.stop()
                if ok:
                    done(value)
                else:
                    failed(value)
