"""Importing outputs from the window: choose a file, name its family, import in the background."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMainWindow

from arena.ledger import Ledger
from arena.ui import dialogs
from arena.ui.operations import LedgerOps, show_error

if TYPE_CHECKING:
    from arena.intake.outputs import ImportReport

IMPORT_FILES = "Outputs (*.jsonl *.json *.csv);;All files (*)"


def ask_import_path(window: QMainWindow) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(window, "Import outputs", "", IMPORT_FILES)
    return Path(path) if path else None


def import_outputs(
    window: QMainWindow, ops: LedgerOps, ledger: Ledger | None, path: Path, families: list[str]
) -> bool:
    """Ask which family ``path`` goes to, then import it through ``ops`` (one transaction)."""
    if ledger is None:
        show_error(window, "Open a ledger before importing outputs into it.")
        return False
    family = dialogs.ask_family(window, path.name, families, path.stem)
    if family is None:
        return False
    # Loaded on first import: the readers and the gates are not needed to open the window.
    from arena.intake.outputs import import_file
    from arena.intake.readers import guess_format

    def imported(report: ImportReport) -> None:
        window.statusBar().showMessage(
            f"Imported {report.outputs_added} new outputs ({report.records} records) "
            f"into {report.family}.",
            10_000,
        )

    return ops.run(
        "import",
        lambda: import_file(ledger, path, family=family, fmt=guess_format(path)),
        imported,
    )
