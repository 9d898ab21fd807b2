"""File ▸ Collect outputs…: ask a family's systems for the answers it lacks, while the
rater goes on voting.

The run (``arena.collecting.asking``) works on a thread of its own and hands each answer
over a queue; the window's thread stores them (the ledger is its), each through
``LedgerOps`` in its own transaction, and tells the other views at most once a second, so
the rating page re-reads the family and the new pairs come up. Cancel sends nothing
more; what was in flight is stored as it arrives. Start again asks only for what is
still missing.
"""

from __future__ import annotations

import queue
import threading
from functools import partial
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from arena.collecting import asking
from arena.collecting.asking import RunOptions, RunSummary
from arena.collecting.fill import Plan, plan
from arena.collecting.work import Answer, Job, chosen_systems
from arena.endpoint.worker_pool import Progress
from arena.errors import ArenaError, BadInput
from arena.ledger import Ledger
from arena.ui.operations import Changes, LedgerOps, show_error

# How often answers are stored, and how often the other views hear of them (ms).
_DRAIN_MS = 100
_ANNOUNCE_MS = 1000


class CollectDialog(QDialog):
    def __init__(self, parent: QWidget, ops: LedgerOps, ledger: Ledger, family: str) -> None:
        super().__init__(parent)
        self.setObjectName("arena-collect")
        self.setWindowTitle(f"Collect outputs: {family}")
        self.ops, self.ledger, self.family = ops, ledger, family
        self.plan: Plan | None = None
        self.stop = threading.Event()
        self.runner: threading.Thread | None = None
        self.answers: queue.Queue[tuple[Job, Answer]] = queue.Queue()
        self.latest: Progress | None = None
        self.outcome: RunSummary | BaseException | None = None
        self.stored = 0
        self.unannounced = False
        self.changes = Changes(family=family, outputs=True)
        layout = QVBoxLayout(self)
        try:
            systems = chosen_systems(ledger, family)
        except BadInput:  # none to collect from: said below
            systems = []
        if not systems:
            layout.addWidget(
                QLabel(
                    f"{family} has no systems to collect from. Add them with\n"
                    f"arena systems add FILE --family {family}"
                )
            )
        form = QFormLayout()
        self.boxes: dict[str, QCheckBox] = {}
        self.bars: dict[str, QProgressBar] = {}
        for system in systems:
            box = QCheckBox(system.label)
            box.setChecked(True)
            bar = QProgressBar()
            bar.setFormat("%v of %m")
            row = QHBoxLayout()
            row.addWidget(box)
            row.addWidget(bar, 1)
            form.addRow(row)
            self.boxes[system.label], self.bars[system.label] = box, bar
        self.workers = QSpinBox()
        self.workers.setRange(1, 64)
        self.workers.setValue(4)
        form.addRow("Requests in flight", self.workers)
        self.max_cost = QDoubleSpinBox()
        self.max_cost.setRange(0, 1e6)
        self.max_cost.setDecimals(4)
        self.max_cost.setSpecialValueText("no limit")
        form.addRow("Stop before this cost", self.max_cost)
        layout.addLayout(form)
        self.status = QLabel("")
        self.status.setObjectName("arena-collect-status")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.start_button = QPushButton("&Start")
        self.start_button.setEnabled(bool(systems))
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button = QPushButton("C&lose")
        self.close_button.clicked.connect(self.close)
        for button in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)
        layout.addLayout(buttons)
        self.drain_timer = QTimer(self)
        self.drain_timer.timeout.connect(self._drain)
        self.announce_timer = QTimer(self)
        self.announce_timer.timeout.connect(self._announce)

    @property
    def running(self) -> bool:
        return self.runner is not None

    def start(self) -> bool:
        """Read the jobs left (on this thread: the ledger is its) and start the run."""
        labels = [label for label, box in self.boxes.items() if box.isChecked()]
        if not labels or self.running:
            return False
        try:
            self.plan = plan(self.ledger, self.family, labels)
        except ArenaError as exc:
            show_error(self, str(exc))
            return False
        options = RunOptions(workers=self.workers.value(), max_cost=self.max_cost.value() or None)
        for label, bar in self.bars.items():
            bar.setRange(0, max(sum(job.system.label == label for job in self.plan.jobs), 1))
            bar.setValue(0)
        self.stop = threading.Event()
        self.outcome, self.latest, self.stored = None, None, 0
        self.runner = threading.Thread(
            target=self._run, args=(self.plan, options), name="arena-collect-run", daemon=True
        )
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(
            f"Asking for {len(self.plan.jobs)} answers ({self.plan.already_done} already there)…"
        )
        self.runner.start()
        self.drain_timer.start(_DRAIN_MS)
        self.announce_timer.start(_ANNOUNCE_MS)
        return True

    def _run(self, work: Plan, options: RunOptions) -> None:
        """The run's own thread: no ledger, no widget; answers go on the queue."""
        try:
            self.outcome = asking.run(
                work.jobs,
                options,
                on_answer=lambda job, answer: self.answers.put((job, answer)),
                on_progress=self._progressed,
                stop=self.stop,
            )
        except BaseException as exc:  # shown by the window's thread
            self.outcome = exc

    def _progressed(self, progress: Progress) -> None:
        self.latest = progress

    def cancel(self) -> None:
        """Send nothing more; the answers in flight are still stored as they come."""
        self.stop.set()
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelling: storing the answers in flight…")

    def _drain(self) -> None:
        """Store what arrived (this thread holds the ledger), then show the progress."""
        assert self.plan is not None
        work = self.plan
        if self.ops.busy:  # a long operation writes: the answers wait in the queue
            return
        while True:
            try:
                job, answer = self.answers.get_nowait()
            except queue.Empty:
                break
            if self.ops.run(self.changes, partial(work.store, job, answer), announce=False):
                self.stored += 1
                self.unannounced = True
            else:  # the ledger refused (the error is on screen): ask for nothing more
                self.stop.set()
                break
        self._show_progress()
        if self.runner is not None and not self.runner.is_alive() and self.answers.empty():
            self._finish()

    def _show_progress(self) -> None:
        progress = self.latest
        if progress is None:
            return
        for label, (answered, failed, _) in progress.by_system.items():
            self.bars[label].setValue(answered + failed)
        if not self.stop.is_set():
            self.status.setText(
                f"{self.stored} answers stored · {progress.rate:.1f} answers/s · "
                f"{progress.failed} failed · cost {progress.cost:.4f}"
            )

    def _announce(self) -> None:
        if self.unannounced:
            self.unannounced = False
            self.ops.announce(self.changes)

    def _finish(self) -> None:
        self.drain_timer.stop()
        self.announce_timer.stop()
        self._announce()
        self.runner = None
        self.start_button.setEnabled(True)
        self.start_button.setText("&Start again")
        self.cancel_button.setEnabled(False)
        result = self.outcome
        if isinstance(result, BaseException):
            self.status.setText(f"Stopped: {result}")
            if isinstance(result, ArenaError):
                show_error(self, str(result))
            return
        self.status.setText(_summary(result, self.stored))

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        # A run keeps going only while its dialog is open; what arrived is stored first.
        if self.running:
            self.stop.set()
            self._drain()
        super().closeEvent(event)


def _summary(summary: RunSummary | None, stored: int) -> str:
    if summary is None:
        return ""
    text = f"{stored} answers stored, {len(summary.failures)} failed, cost {summary.cost:.4f}."
    if summary.failures:
        first = summary.failures[0]
        text += f" First failure: {first.label} on {first.case_id}: {first.error}."
    if summary.not_sent:
        why = "the cost limit" if summary.stopped_by_budget else "cancelled"
        text += f" {summary.not_sent} not asked ({why}): Start again to go on."
    return text


def open_collect(
    parent: QWidget, ops: LedgerOps, ledger: Ledger | None, family: str | None
) -> CollectDialog | None:
    """File ▸ Collect outputs… on the family the rater is on."""
    if ledger is None or family is None:
        show_error(parent, "Open a ledger and choose a family to collect outputs for.")
        return None
    if ops.read_only:
        show_error(parent, f"Nothing can be collected: {ops.read_only}")
        return None
    dialog = CollectDialog(parent, ops, ledger, family)
    dialog.show()
    return dialog
