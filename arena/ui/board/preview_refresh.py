"""Refitting the preview board while the rater votes, off the window's thread.

A vote only starts a timer (``poke``): the window's thread reads nothing for the preview
and a key goes on to the next pair at once. When the timer fires, a worker thread hands
the refit (``arena.rounds.preview.refit``) to a worker process, which reads the ledger
file on a read connection of its own (WAL lets it read while the window writes), and
waits for it; the preview comes back through a queued signal. The fit runs in a process,
at the lowest priority, not on the thread itself, because a fit is mostly Python: on a
thread it would take the interpreter lock from the window's key handling (p95 of key →
next pair 53 → 124 ms at 100,000 votes). Where no process can be started, the thread
refits itself.

A burst of votes makes one refit: pokes while the timer runs change nothing, and pokes
during a refit make one more after it. Neither the thread nor the process touches a widget.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from PySide6.QtCore import QObject, QTimer, Signal

from arena.rounds.preview import Preview, refit

# How long after a vote the refit starts: the votes of a burst are fitted together.
WAIT_MS = 1000
# Safe from a process running other threads (the window), and the same on every platform.
START_METHOD = "spawn"
# Whether refits run in a worker process (tests hold a refit on the thread instead).
IN_PROCESS = True


def _yield_cpu() -> None:
    """The worker process runs only on what the window leaves of the CPU: on a busy
    machine a refit waits, a key does not."""
    if hasattr(os, "nice"):  # POSIX
        os.nice(19)


class PreviewRefresh(QObject):
    """Keeps one family's preview fresh; ``ready`` carries each new ``Preview``, ``failed``
    why a refit could not be made."""

    ready = Signal(object)
    failed = Signal(str)
    # Emitted from the worker thread, received on the window's (a queued connection):
    # (the path and family it was made for, a Preview, None for no change, or the error).
    _done = Signal(object, object)

    def __init__(self, parent: QObject | None = None, *, wait_ms: int = WAIT_MS) -> None:
        super().__init__(parent)
        self.path = ""
        self.family: str | None = None
        self.latest: Preview | None = None
        self.processes = IN_PROCESS
        self._pool: ProcessPoolExecutor | None = None
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

    def watch(self, path: str, family: str) -> None:
        """Keep ``family``'s preview of the ledger file at ``path`` fresh from now on."""
        if (path, family) != (self.path, self.family):
            self.path, self.family, self.latest = path, family, None
            self._again = False
            self._timer.stop()

    def stop(self) -> None:
        """Stop refitting; a refit under way is dropped when it ends."""
        self.path, self.family, self.latest = "", None, None
        self._again = False
        self._timer.stop()

    def close(self) -> None:
        """Stop refitting and let the worker process go (the ledger closes)."""
        self.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def poke(self) -> None:
        """A vote (or any change) of the watched family: refit after ``WAIT_MS``."""
        if self.family is None:
            return
        if self.running:
            self._again = True
        elif not self._timer.isActive():
            self._timer.start()

    def now(self) -> None:
        """Refit now (after a refit under way, if one is)."""
        self._timer.stop()
        if self.family is None:
            return
        if self.running:
            self._again = True
            return
        pool = self._executor()
        self._thread = threading.Thread(
            target=self._refit,
            args=(pool, self.path, self.family, self.latest),
            name="arena-preview",
            daemon=True,
        )
        self._thread.start()

    def _executor(self) -> ProcessPoolExecutor | None:
        if self._pool is None and self.processes:
            try:
                context = multiprocessing.get_context(START_METHOD)
                self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_yield_cpu)
            except (OSError, ImportError, NotImplementedError):
                self.processes = False  # none here (a sandbox, no /dev/shm): refit on the thread
        return self._pool

    def _refit(
        self, pool: ProcessPoolExecutor | None, path: str, family: str, latest: Preview | None
    ) -> None:
        result: object
        try:
            try:
                if pool is None:
                    raise BrokenProcessPool
                result = pool.submit(refit, path, family, latest).result()
            except (BrokenProcessPool, RuntimeError):  # no process (or shut down): here
                result = refit(path, family, latest)
        except Exception as exc:  # handed to the window's thread, which shows it
            result = exc
        try:
            self._done.emit((path, family), result)
        except RuntimeError:  # the window closed meanwhile: no one to tell
            pass

    def _finished(self, made_for: tuple[str, str], result: object) -> None:
        self._thread = None
        if made_for != (self.path, self.family):  # the family or the ledger changed meanwhile
            self._again = False
            if self.family is not None:
                self.now()
            return
        if isinstance(result, Preview):
            self.latest = result
            self.ready.emit(result)
        elif result is not None:
            self.failed.emit(str(result) or type(result).__name__)
        if self._again:
            self._again = False
            self._timer.start()
