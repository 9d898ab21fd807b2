"""Every write the window makes to the ledger goes through ``LedgerOps.run``.

One place decides what a failure looks like (``show_error``) and one signal says
the ledger changed, so each view decides for itself whether to redraw (Anki's
CollectionOp and op_executed). A failed write returns ``False`` and changes
nothing on screen: the caller stays on the same pair.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from arena.errors import ArenaError, HeadFileNotUpdated, LedgerLocked
from arena.ledger import Ledger, StorageError

# A write can fail for Arena's own reasons, or because SQLite or the disk refused it
# (full disk, a removed drive); the rater needs to see all of these the same way.
WRITE_ERRORS = (ArenaError, StorageError, OSError)
# What a window may run on a ledger it only reads (``LedgerOps.run`` kinds).
READS = frozenset({"open"})


def show_error(parent: QWidget | None, message: str, *, title: str = "Arena") -> QMessageBox:
    """The one way the window reports a problem: a window-modal box that keeps keys away
    from the pair until it is dismissed, and a line on stderr for the record."""
    print(f"arena: {message}", file=sys.stderr)
    box = QMessageBox(
        QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent
    )
    box.setObjectName("arena-error")
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


class LedgerOps(QObject):
    """Runs ledger writes for one window."""

    # The kind of write that just committed ("vote", "undo", "import"…).
    changed = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._window = parent
        self.last_error = ""
        # Why this window only reads its ledger ("" when it may write it).
        self.read_only = ""

    def open_ledger(self, path: Path) -> Ledger:
        """The ledger at ``path`` for writing, or only for reading while another Arena
        process writes it (``read_only`` then says so, and every write is refused)."""
        self.read_only = ""
        try:
            return Ledger.open(path)
        except LedgerLocked as locked:
            ledger = Ledger.open(path, readonly=True)
            self.read_only = (
                f"{locked}. This window only reads it: boards, gates and flags can be "
                "looked at; voting, importing and closing a round wait until the other "
                "window is closed."
            )
            return ledger

    def run(
        self,
        kind: str,
        op: Callable[[], Any],
        done: Callable[[Any], object] | None = None,
        *,
        announce: bool = True,
    ) -> bool:
        """Run ``op``; on success call ``done`` with its result and announce ``kind`` (a
        caller making many small writes may announce them together itself instead)."""
        if self.read_only and kind not in READS:
            self.last_error = self.read_only
            show_error(self._window, f"Nothing was recorded: {self.read_only}")
            return False
        try:
            result = op()
        except HeadFileNotUpdated as exc:
            # Committed: saying "nothing was recorded" would invite a second vote.
            self.last_error = str(exc)
            show_error(self._window, f"This change was {self.last_error}")
            self.changed.emit(kind)
            return False
        except WRITE_ERRORS as exc:
            self.last_error = str(exc) or type(exc).__name__
            show_error(self._window, f"Nothing was recorded: {self.last_error}")
            return False
        self.last_error = ""
        if done is not None:
            done(result)
        if announce:
            self.changed.emit(kind)
        return True


@contextmanager
def progress(parent: QWidget, label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A window-modal progress dialog for a long operation; yields the core's
    ``progress(n)`` callback, which advances it by ``n``.

    There is no Cancel button: the core stores nothing until the very end, but it
    cannot stop half-way through re-running the gates. A ``total`` of 0 shows a
    busy bar. The dialog appears only when the work takes longer than a blink.
    """
    dialog = QProgressDialog(label, "", 0, max(total, 0), parent)
    dialog.setObjectName("arena-progress")
    dialog.setCancelButton(None)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(400)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        dialog.setValue(min(done, total))

    try:
        yield advance
    finally:
        dialog.reset()
        dialog.deleteLater()
