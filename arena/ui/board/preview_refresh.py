"""Refitting the preview board while the rater votes, off the window's thread.

A vote only starts a timer (``poke``): the window's thread reads nothing for the preview
and a key goes on to the next pair at once. When the timer fires, a worker thread opens
a read connection of its own to the ledger file (WAL lets it read while the window
writes), refits (``arena.rounds.preview``) and hands the preview back through a queued
signal. A burst of votes makes one refit: pokes while the timer runs change nothing, and
pokes during a refit make one more after it. The worker touches no widget.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from arena.ledger import Ledger
from arena.rounds.preview import Preview, Previewer, fitted_heads, newer

# How long after a vote the refit starts: the votes of a burst are fitted together.
WAIT_MS = 1000


class PreviewRefresh(QObject):
    """Keeps one family's preview fresh; ``ready`` carries each new ``Preview``, ``failed``
    why a refit could not be made."""

    ready = Signal(object)
    failed = Signal(str)
    # Emitted from the worker, received on the window's thread (a queued connection):
    # (the previewer it was made for, a Preview or the error).
    _done = Signal(object, object)

    def __init__(self, parent: QObject | None = None, *, wait_ms: int = WAIT_MS) -> None:
        super().__init__(parent)
        self.path = ""
        self.previewer: Previewer | None = None
        self.latest: Preview | None = None
        self._thread: threading.Thread | None = None
        self._again = False  # poked during a refit: one more after it
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(wait_ms)
        self._timer.timeout.connect(self.now)
        self._done.connect(self._finished)

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def family(self) -> str | None:
        return self.previewer.family if self.previewer is not None else None

    def watch(self, path: str, family: str) -> None:
        """Keep ``family``'s preview of the ledger file at ``path`` fresh from now on."""
        if (path, family) != (self.path, self.family):
            self.path, self.previewer, self.latest = path, Previewer(family), None
            self._again = False
            self._timer.stop()

    def stop(self) -> None:
        """Stop refitting (the ledger closes); a refit under way is dropped when it ends."""
        self.path, self.previewer, self.latest = "", None, None
        self._again = False
        self._timer.stop()

    def poke(self) -> None:
        """A vote (or any change) of the watched family: refit after ``WAIT_MS``."""
        if self.previewer is None:
            return
        if self.running:
            self._again = True
        elif not self._timer.isActive():
            self._timer.start()

    def now(self) -> None:
        """Refit now (after a refit under way, if one is)."""
        self._timer.stop()
        if self.previewer is None:
            return
        if self.running:
            self._again = True
            return
        previewer, path, latest = self.previewer, self.path, self.latest
        self._thread = threading.Thread(
            target=self._refit, args=(previewer, path, latest), name="arena-preview", daemon=True
        )
        self._thread.start()

    def _refit(self, previewer: Previewer, path: str, latest: Preview | None) -> None:
        try:
            with Ledger.open(path, readonly=True) as ledger:
                stale = latest is None or newer(fitted_heads(ledger, previewer.family), latest)
                result: object = previewer(ledger) if stale else latest
        except Exception as exc:  # handed to the window's thread, which shows it
            result = exc
        self._done.emit(previewer, result)

    def _finished(self, previewer: Previewer, result: object) -> None:
        self._thread = None
        if previewer is not self.previewer:  # the family or the ledger changed meanwhile
            self._again = False
            if self.previewer is not None:
                self.now()
            return
        if isinstance(result, Preview):
            if result is not self.latest:
                self.latest = result
                self.ready.emit(result)
        else:
            self.failed.emit(str(result) or type(result).__name__)
        if self._again:
            self._again = False
            self._timer.start()
