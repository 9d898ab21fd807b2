"""Every write the window makes to the ledger goes through ``LedgerOps``.

One place decides what a failure looks like (``show_error``) and one signal says what
the ledger's change was (a ``Changes`` record, Anki's OpChanges), so each view reads the
fields it shows and decides for itself whether to redraw. A failed write returns
``False`` and changes nothing on screen: the caller stays on the same pair.

``run`` writes on the window's thread (a vote, a correction: milliseconds). ``run_long``
runs what can take seconds (an import, closing a round, a judge's verdicts) on a thread
of its own, on a connection of its own, while a progress dialog offers Cancel.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arena.errors import ArenaError, HeadFileNotUpdated, LedgerLocked
from arena.ledger import Ledger, StorageError

# A write can fail for Arena's own reasons, or because SQLite or the disk refused it
# (full disk, a removed drive); the rater needs to see all of these the same way.
WRITE_ERRORS = (ArenaError, StorageError, OSError)
# The progress dialog shows only when the work takes longer than a blink (ms).
SHOW_AFTER_MS = 400
POLL_MS = 50
# Where a progress label says how many steps are done (for work of no known total).
COUNT = "{count}"
# What the rater cannot do to the window while a long operation runs: the progress
# dialog, once shown, keeps them away too (it is window-modal).
INPUT_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease,
        QEvent.Type.ShortcutOverride,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.Wheel,
    }
)
Result = TypeVar("Result")


@dataclass(frozen=True)
class Changes:
    """What a window operation changed in the ledger (as Anki's OpChanges): each view reads
    the fields it shows and redraws for those alone."""

    family: str | None = None  # the family written to
    session: bool = False  # the rating session's own rows: a sitting, a pair shown, a vote…
    outputs: bool = False  # outputs added: imported, or collected answers
    families: bool = False  # a family made (by an import)
    corrections: bool = False  # a correction made or undone: what is in force changed
    gates: bool = False  # gate verdicts brought up to date (a round closed, a case's language)
    rounds: bool = False  # a round closed
    judges: bool = False  # a judge's verdicts imported

    @property
    def written(self) -> bool:
        """Whether the operation writes at all (opening a ledger does not)."""
        return any(getattr(self, f.name) for f in fields(self) if f.name != "family")

    @property
    def pairs(self) -> bool:
        """Whether a family's pairs may have changed beside the rating session's own
        writes (new outputs, a correction, verdicts gated again)."""
        return self.outputs or self.corrections or self.gates


class Cancelled(Exception):
    """The rater pressed Cancel: the long operation stops and its transaction rolls back."""


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


class Task:
    """A long operation's state, shared by its thread and the window's."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.count = 0  # the work's steps done, as ``advance`` heard of them
        self.outcome: tuple[bool, Any] | None = None  # (ok, result or error), once ended

    def advance(self, n: int) -> None:
        """The core's ``progress(n)``: counts, and ends the work once Cancel is pressed."""
        if self.stop.is_set():
            raise Cancelled
        self.count += n

    def run(self, ledger: Ledger, work: Callable[[Ledger, Callable[[int], None]], Any]) -> None:
        """The operation's own thread: ``work`` in one transaction on a connection of
        this thread; Cancel pressed before it commits rolls it all back."""
        try:
            with ledger.beside() as own, own.atomic():
                result = work(own, self.advance)
                if self.stop.is_set():  # pressed after the last step
                    raise Cancelled
            self.outcome = (True, result)
        except BaseException as exc:  # handed to the window's thread
            self.outcome = (False, exc)


class ProgressDialog(QDialog):
    """How far a long operation is, and its Cancel (Esc and closing the dialog cancel too)."""

    def __init__(self, parent: QWidget, label: str, total: int, task: Task) -> None:
        super().__init__(parent)
        self.setObjectName("arena-progress")
        self.setWindowTitle("Arena")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.task, self.text = task, label
        self.label = QLabel(label.replace(COUNT, "0"))
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, max(total, 0))  # 0..0: a busy bar
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button, 0, Qt.AlignmentFlag.AlignRight)
        self.setMinimumWidth(420)

    def cancel(self) -> None:
        self.task.stop.set()
        self.cancel_button.setEnabled(False)
        self.label.setText("Cancelling: nothing will be changed…")

    def reject(self) -> None:  # Esc
        self.cancel()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        self.cancel()
        event.ignore()  # it closes when the work has stopped

    def show_count(self) -> None:
        if self.bar.maximum():
            self.bar.setValue(min(self.task.count, self.bar.maximum()))
        if COUNT in self.text and not self.task.stop.is_set():
            self.label.setText(self.text.replace(COUNT, f"{self.task.count:,}"))


class _InputGuard(QObject):
    """Keeps keys and clicks away from every widget but the progress dialog's while the
    work runs, shortcuts included (before the dialog shows, the window is still active),
    and the window from closing."""

    def __init__(self, dialog: QDialog) -> None:
        super().__init__(dialog)
        self.dialog = dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Close and watched is self.dialog.parent():
            event.ignore()  # the window stays open, and its ledger, until the work ends
            return True
        if event.type() not in INPUT_EVENTS or not isinstance(watched, QWidget):
            return False
        if watched is self.dialog or self.dialog.isAncestorOf(watched):
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # taken by the widget: no shortcut fires, and the key is dropped
        return True


class LedgerOps(QObject):
    """Runs ledger writes for one window."""

    # What a write that committed changed (a ``Changes``).
    changed = Signal(object)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._window = parent
        self.last_error = ""
        # Why this window only reads its ledger ("" when it may write it).
        self.read_only = ""
        # What the long operation under way does ("" when none runs).
        self.busy = ""

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

    def _refused(self, changes: Changes) -> bool:
        why = ""
        if changes.written and self.read_only:
            why = self.read_only
        elif changes.written and self.busy:
            why = f"wait until this is done: {self.busy}"
        if why:
            self.last_error = why
            show_error(self._window, f"Nothing was recorded: {why}")
        return bool(why)

    def run(
        self,
        changes: Changes,
        op: Callable[[], Any],
        done: Callable[[Any], object] | None = None,
        *,
        announce: bool = True,
    ) -> bool:
        """Run ``op``; on success call ``done`` with its result and announce ``changes`` (a
        caller making many small writes may announce them together itself instead)."""
        if self._refused(changes):
            return False
        try:
            result = op()
        except WRITE_ERRORS as exc:
            return self._failed(exc, changes)
        self.last_error = ""
        if done is not None:
            done(result)
        if announce:
            self.announce(changes)
        return True

    def announce(self, changes: Changes) -> None:
        if changes.written:
            self.changed.emit(changes)

    def _failed(self, exc: BaseException, changes: Changes) -> bool:
        if isinstance(exc, HeadFileNotUpdated):
            # Committed: saying "nothing was recorded" would invite a second vote.
            self.last_error = str(exc)
            show_error(self._window, f"This change was {self.last_error}")
            self.announce(changes)
            return False
        self.last_error = str(exc) or type(exc).__name__
        show_error(self._window, f"Nothing was recorded: {self.last_error}")
        return False

    def run_long(
        self,
        ledger: Ledger,
        label: str,
        changes: Changes,
        work: Callable[[Ledger, Callable[[int], None]], Result],
        done: Callable[[Result], object] | None = None,
        *,
        total: int = 0,
    ) -> bool:
        """Run ``work(ledger, progress)`` on a thread of its own and return once it ends,
        as ``run`` does; the window's thread goes on handling events meanwhile (painting,
        timers), and a progress dialog shows ``label`` and how many of ``total`` steps
        the work has told ``progress`` of (a busy bar for a ``total`` of 0; ``{count}``
        in ``label`` says the number).

        ``work`` writes in one transaction on a connection of its own to ``ledger``.
        Cancel (or any error) rolls that transaction back: a cancelled operation changes
        nothing in the ledger. Only a Cancel pressed while the transaction commits comes
        too late; the operation then counts as done. The window's other writes are
        refused until it ends, and no key or click reaches the window meanwhile, nor
        does closing it.
        """
        if self._refused(changes):
            return False
        task = Task()
        dialog = ProgressDialog(self._window, label, total, task)
        guard = _InputGuard(dialog)
        app = QApplication.instance()
        assert app is not None  # a window runs inside an application
        app.installEventFilter(guard)
        self.busy = label
        loop = QEventLoop()
        timer, show = QTimer(), QTimer(dialog)
        started = threading.Thread(
            target=task.run, args=(ledger, work), name="arena-operation", daemon=True
        )

        def poll() -> None:
            dialog.show_count()
            if task.outcome is not None:
                loop.quit()

        timer.timeout.connect(poll)
        show.setSingleShot(True)
        show.timeout.connect(dialog.show)
        show.start(SHOW_AFTER_MS)
        timer.start(POLL_MS)
        started.start()
        try:
            loop.exec()
            started.join()
        finally:
            timer.stop()
            show.stop()
            app.removeEventFilter(guard)
            self.busy = ""
            shown = dialog.isVisible()
            dialog.hide()
            dialog.deleteLater()
            if shown:  # keys go back to the window, as they did before the dialog
                self._window.activateWindow()
        assert task.outcome is not None
        ok, value = task.outcome
        if ok:
            self.last_error = ""
            if done is not None:
                done(value)
            self.announce(changes)
            return True
        if isinstance(value, Cancelled):
            self.last_error = "cancelled"
            if isinstance(self._window, QMainWindow):
                self._window.statusBar().showMessage("Cancelled: the ledger is as it was.", 10_000)
            return False
        if not isinstance(value, WRITE_ERRORS):
            # A fault of Arena's own: the rater sees what it was, the record keeps where.
            traceback.print_exception(value, file=sys.stderr)
        return self._failed(value, changes)
