"""Importing outputs from the window: choose a file, say which family it goes to (an existing
one, or a new one with its kind, language and bounds) and see what the import will do
(``import_dialog``), then import it through the window's one write path, off the window's
thread (``LedgerOps.run_long``: a progress dialog counts the records read; Cancel stores
nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMainWindow

from arena.ledger import Ledger
from arena.ui import import_dialog
from arena.ui.operations import Changes, LedgerOps, show_error

if TYPE_CHECKING:
    from arena.intake.outputs import ImportReport

IMPORT_FILES = "Outputs (*.jsonl *.json *.csv);;All files (*)"


def ask_import_path(window: QMainWindow) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(window, "Choose outputs to import", "", IMPORT_FILES)
    return Path(path) if path else None


def import_outputs(window: QMainWindow, ops: LedgerOps, ledger: Ledger | None, path: Path) -> bool:
    """Ask where ``path`` goes, then import it through ``ops`` (one transaction, on a
    thread of its own)."""
    if ledger is None:
        show_error(window, "Open a ledger before importing outputs into it.")
        return False
    choice = import_dialog.ask_import(window, path, ledger)
    if choice is None:
        return False
    # Loaded on first import: the readers and the gates are not needed to open the window.
    from arena.intake.outputs import import_file
    from arena.intake.readers import ReadOptions
    from arena.redact import DEFAULT_SECRET_ENVS, Redactor

    def imported(report: ImportReport) -> None:
        created = " (new family)" if report.family_created else ""
        window.statusBar().showMessage(
            f"Imported {report.outputs_added} new outputs ({report.records} records) "
            f"into {report.family}{created}.",
            10_000,
        )
        warnings = [note for note in report.notes if note.startswith("warning:")]
        if warnings:
            show_error(window, "\n\n".join(warnings), title="Imported, with a warning")
        families = getattr(window, "families", None)
        if families is not None:  # once the list has been read again
            QTimer.singleShot(0, lambda: families.select(report.family))

    def read_and_import(own: Ledger, progress: Callable[[int], None]) -> ImportReport:
        # The family's settings gate the new outputs and its outputs are matched: both
        # must still be as sealed (``require_sound``).
        return import_file(
            own,
            path,
            family=choice.family,
            fmt=choice.fmt,
            settings=choice.settings,
            options=ReadOptions(
                redactor=Redactor.from_environment(DEFAULT_SECRET_ENVS),
                questions=choice.questions,
            ),
            create=choice.create,
            require_sound=True,
            progress=progress,
        )

    return ops.run_long(
        ledger,
        f"Importing {path.name} into {choice.family}: {{count}} records read…",
        Changes(family=choice.family, outputs=True, families=choice.create),
        read_and_import,
        imported,
    )
