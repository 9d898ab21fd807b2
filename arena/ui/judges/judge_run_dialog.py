"""Judges ▸ Run a judge…: `arena judges run` in a dialog.

The judge is one declared in a systems file (``[[judge]]``: choose the file, its judges are
listed) or one the ledger already holds (run before: the run resumes). The run
(``arena.judges.running.run_judge``) works on a thread of its own, on a connection of its
own (``Ledger.beside``), and stores each reply as it arrives, in its own transaction, as
the command does: Cancel sends nothing more, the replies in flight are stored as they
arrive, and what was stored stays (Start again asks only what is left). Meanwhile the
window's other writes wait (``LedgerOps.busy``) and the dialog is window-modal; once the
run ends the views hear of the judge's new verdicts (the Judges page works its figures out
again). A refused file, a missing key, a refused name: said in the dialog, never a
traceback.
"""

from __future__ import annotations

import sys
import threading
import traceback
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arena.errors import ArenaError
from arena.judges.replies import family_names, run_judges
from arena.ledger import Ledger
from arena.ui.operations import WRITE_ERRORS, Changes, LedgerOps, show_error

SYSTEMS_FILES = "Systems files (*.toml);;All files (*)"
POLL_MS = 100
FROM_FILE, FROM_LEDGER = "file", "ledger"


class JudgeRunDialog(QDialog):
    def __init__(self, parent: QWidget, ops: LedgerOps, ledger: Ledger, family: str | None) -> None:
        super().__init__(parent)
        self.setObjectName("judge-run")
        self.setWindowTitle("Run a judge")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(560)
        self.ops, self.ledger = ops, ledger
        self.declared: list[Any] = []  # the systems file's judges (DeclaredJudge)
        self.stop = threading.Event()
        self.runner: threading.Thread | None = None
        self.outcome: Any = None  # the JudgeRunReport, or the error that ended the run
        self.latest: Any = None  # the run's last Progress
        self.stored = self.unparsed = 0  # replies this run stored, and those unparsed
        self.running_family = ""

        self.family = QComboBox()
        self.family.addItems(family_names(ledger))
        if family is not None:
            self.family.setCurrentText(family)
        self.file = QLineEdit()
        self.file.setPlaceholderText("a systems file with [[judge]] tables (docs/judges.md)")
        self.browse = QPushButton("Bro&wse…")
        self.browse.setAutoDefault(False)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file, 1)
        file_row.addWidget(self.browse)
        self.judge = QComboBox()
        self.both = QRadioButton("&Both orders (position consistency is measured)")
        self.one = QRadioButton("&One order (half the items each way)")
        self.both.setChecked(True)
        self.orders = QButtonGroup(self)
        self.orders.addButton(self.both)
        self.orders.addButton(self.one)
        orders = QVBoxLayout()
        orders.setContentsMargins(0, 0, 0, 0)
        orders.addWidget(self.both)
        orders.addWidget(self.one)
        self.sample = QSpinBox()
        self.sample.setRange(0, 10_000_000)
        self.sample.setSpecialValueText("every item")
        self.max_cost = QDoubleSpinBox()
        self.max_cost.setRange(0, 1e6)
        self.max_cost.setDecimals(4)
        self.max_cost.setSpecialValueText("no limit")
        self.workers = QSpinBox()
        self.workers.setRange(1, 64)
        self.workers.setValue(4)
        form = QFormLayout()
        labels = (
            ("F&amily:", self.family),
            ("Systems &file:", file_row),
            ("&Judge:", self.judge),
            ("Orders:", orders),
            ("Sample (&N items):", self.sample),
            ("&Max cost (USD):", self.max_cost),
            ("Re&quests in flight:", self.workers),
        )
        for text, field in labels:
            label = QLabel(text)
            buddy = field if isinstance(field, QWidget) else self.file
            label.setBuddy(buddy)
            form.addRow(label, field)
        self.bar = QProgressBar()
        self.bar.setFormat("%v of %m")
        self.bar.setValue(0)
        self.status = QLabel("")
        self.status.setObjectName("judge-run-status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # paths and errors, as written
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.start_button = QPushButton("&Start")
        self.start_button.setDefault(True)  # Enter starts
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.setEnabled(False)
        self.close_button = QPushButton("C&lose")
        self.close_button.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)
        note = QLabel(
            "As `arena judges run`: each reply is stored as it arrives; Esc cancels a run "
            "(what is stored stays), then closes."
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addWidget(note)
        layout.addLayout(buttons)

        self.browse.clicked.connect(self.choose_file)
        self.file.editingFinished.connect(self.read_file)
        self.family.currentTextChanged.connect(lambda _text: self.fill_judges())
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._poll)
        parent.installEventFilter(self)  # the window stays open while a run writes
        self.fill_judges()
        self.family.setFocus()

    # -- the judge ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.runner is not None

    def choose_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "A systems file with [[judge]] tables", self.file.text(), SYSTEMS_FILES
        )
        if name:
            self.file.setText(name)
            self.read_file()

    def read_file(self) -> bool:
        """List the systems file's judges (its problems shown here); False when refused."""
        from arena.judges.declared import read_judges

        text = self.file.text().strip()
        self.declared = []
        ok = True
        if text:
            try:
                self.declared = read_judges(Path(text).expanduser())
                self.say(f"{Path(text).name}: {_names(j.name for j in self.declared)}.")
            except (ArenaError, OSError) as exc:
                self.say(str(exc), error=True)
                ok = False
        self.fill_judges()
        return ok

    def fill_judges(self) -> None:
        """The file's judges, then those the family's ledger holds (a run resumes)."""
        keep = self.judge.currentData()
        self.judge.clear()
        family = self.family.currentText()
        held = run_judges(self.ledger, family) if family else []
        for judge in self.declared:
            again = " (run before: resumes)" if judge.name in held else ""
            where = Path(self.file.text()).name
            self.judge.addItem(f"{judge.name} — {where}{again}", (FROM_FILE, judge.name))
        named = {j.name for j in self.declared}
        for name in held:
            if name not in named:
                self.judge.addItem(f"{name} — run before (resumes)", (FROM_LEDGER, name))
        at = self.judge.findData(keep)
        self.judge.setCurrentIndex(at if at >= 0 else 0)

    def say(self, text: str, *, error: bool = False) -> None:
        self.status.setObjectName("judge-run-error" if error else "judge-run-status")
        self.status.setStyleSheet("color: #c62828;" if error else "")
        self.status.setText(text)

    # -- the run --------------------------------------------------------------------

    def start(self) -> bool:
        """Check what is asked (on this thread) and start the run; False, said why, when
        it cannot start."""
        from arena.judges.declared import declared_judge
        from arena.judges.running import RunOptions

        if self.running:
            return False
        family, chosen = self.family.currentText(), self.judge.currentData()
        why = self.ops.read_only or (self.ops.busy and f"wait until this is done: {self.ops.busy}")
        if why:
            self.say(f"Nothing can be run: {why}", error=True)
            return False
        if not family:
            self.say("Choose a family.", error=True)
            return False
        if chosen is None:
            self.say(
                f"Choose a systems file with a [[judge]] table: {family} has no judge run "
                "before to resume.",
                error=True,
            )
            return False
        source, name = chosen
        declared = None
        if source == FROM_FILE:
            try:  # read again: the file may have changed since it was listed
                declared = declared_judge(Path(self.file.text().strip()).expanduser(), name)
            except (ArenaError, OSError) as exc:
                self.say(str(exc), error=True)
                return False
        options = RunOptions(
            workers=self.workers.value(),
            max_cost=self.max_cost.value() or None,
            one_order=self.one.isChecked(),
            sample=self.sample.value() or None,
        )
        self.stop = threading.Event()
        self.outcome, self.latest, self.stored, self.unparsed = None, None, 0, 0
        self.running_family = family
        self.ops.busy = f"judge {name} is running on {family}"
        self.runner = threading.Thread(
            target=self._run,
            args=(family, name, declared, options),
            name="arena-judge-run",
            daemon=True,
        )
        self._set_running(True)
        self.bar.setRange(0, 0)  # busy until the items are read
        self.say(f"Reading {family}'s items for {name}…")
        self.runner.start()
        self.timer.start(POLL_MS)
        return True

    def _run(self, family: str, name: str, declared: Any, options: Any) -> None:
        """The run's own thread: its own connection, no widget."""
        from arena.judges.running import run_judge

        try:
            with self.ledger.beside() as own:
                self.outcome = run_judge(
                    own,
                    family,
                    name,
                    declared=declared,
                    options=options,
                    on_progress=self._progressed,
                    stop=self.stop,
                    on_stored=self._stored,
                )
        except BaseException as exc:  # shown by the window's thread
            self.outcome = exc

    def _progressed(self, progress: Any) -> None:
        self.latest = progress

    def _stored(self, verdict: str) -> None:
        self.stored += 1
        self.unparsed += verdict == "unparsed"

    def cancel(self) -> None:
        """Send nothing more; the replies in flight are stored as they arrive."""
        if not self.running:
            return
        self.stop.set()
        self.cancel_button.setEnabled(False)
        self.say("Cancelling: storing the replies in flight; what is stored stays…")

    def _set_running(self, running: bool) -> None:
        fields: tuple[QWidget, ...] = (self.family, self.file, self.browse, self.judge)
        fields += (self.both, self.one, self.sample, self.max_cost, self.workers)
        for widget in (*fields, self.start_button):
            widget.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        (self.cancel_button if running else self.start_button).setFocus()

    def _poll(self) -> None:
        progress = self.latest
        if progress is not None:
            self.bar.setRange(0, max(progress.total, 1))
            self.bar.setValue(progress.answered + progress.failed)
            if not self.stop.is_set():
                self.say(
                    f"{self.stored} of {progress.total} judged · {self.unparsed} unparsed · "
                    f"{progress.failed} failed · cost {progress.cost:.4f}"
                )
        if self.runner is not None and not self.runner.is_alive():
            self._finish()

    def _finish(self) -> None:
        self.timer.stop()
        self.runner = None
        self.ops.busy = ""
        self._set_running(False)
        self.start_button.setText("&Start again")
        result = self.outcome
        if isinstance(result, BaseException):
            if self.bar.maximum() == 0:
                self.bar.setRange(0, 1)
            if not isinstance(result, WRITE_ERRORS):  # a fault of Arena's own: recorded
                traceback.print_exception(result, file=sys.stderr)
            stored = f" ({self.stored} replies stored before it stay)" if self.stored else ""
            self.say(f"Not run{stored}: {result}", error=True)
            if self.stored:
                self.ops.announce(Changes(family=self.running_family, judges=True))
            return
        self.bar.setRange(0, max(result.total, 1))
        self.bar.setValue(result.judged + len(result.failures))
        self.say(_summary(result))
        self.fill_judges()  # a new judge is now one to resume
        self.ops.announce(Changes(family=self.running_family, judges=True))

    # -- keys and closing -------------------------------------------------------------

    def reject(self) -> None:  # Esc: cancels a run, else closes
        if self.running:
            self.cancel()
            return
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if self.running:  # closes once the replies in flight are stored
            self.cancel()
            event.ignore()
            return
        super().closeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Close and self.running and watched is self.parent():
            self.cancel()
            event.ignore()  # the ledger stays open until the run has stopped
            return True
        return False


def _names(names: Any) -> str:
    found = list(names)
    return f"{len(found)} judge{'s' if len(found) != 1 else ''}: {', '.join(found)}"


def _summary(report: Any) -> str:
    """What the run did, as `arena judges run` sums it up."""
    text = (
        f"{report.judged} replies stored ({report.unparsed} unparsed: named no verdict), "
        f"{len(report.failures)} failed, cost {report.cost:.4f}"
    )
    if report.already_done:
        text += f"; {report.already_done} asked by earlier runs"
    text += "."
    if report.failures:
        first = report.failures[0]
        text += f" First failure: case {first.case_id} (game {first.game}): {first.error}."
    if report.not_sent:
        why = "the cost limit" if report.stopped_by_budget else "cancelled"
        text += f" {report.not_sent} not asked ({why}): Start again to go on."
    elif not report.total:
        text += " Nothing was left to ask."
    return text


def open_run_judge(
    parent: QWidget, ops: LedgerOps, ledger: Ledger | None, family: str | None
) -> JudgeRunDialog | None:
    """Judges ▸ Run a judge… on the family the rater is on (another can be chosen)."""
    if ledger is None:
        show_error(parent, "Open a ledger to run a judge on one of its families.")
        return None
    if ops.read_only:
        show_error(parent, f"No judge can be run: {ops.read_only}")
        return None
    dialog = JudgeRunDialog(parent, ops, ledger, family)
    dialog.open()
    return dialog
