"""The Judges page's Import verdicts…: what `arena judges import` asks, in a dialog, and the
import itself (one transaction, off the window's thread through ``LedgerOps.run_long``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from arena.errors import BadInput
from arena.judges.importing import FORMATS, KINDS, JudgeImportReport, check_options, import_judge
from arena.judges.verdict_files import BASELINE, Options
from arena.ledger import Ledger
from arena.ui.dialogs import ok_cancel

BUNDLE = "bundle"  # a colleague's Arena bundle, checked against its signer first


@dataclass(frozen=True)
class JudgeImport:
    path: Path
    judge: str
    kind: str
    fmt: str
    options: Options
    signer: str | None  # a bundle's signer's fingerprint


class JudgeImportDialog(QDialog):
    def __init__(self, parent: QWidget, family: str) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import a judge's verdicts into {family}")
        self.setObjectName("judge-import")
        self.setMinimumWidth(520)
        self.path = QLineEdit()
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose)
        file_row = QHBoxLayout()
        file_row.addWidget(self.path, 1)
        file_row.addWidget(choose)
        self.judge = QLineEdit()
        self.judge.setPlaceholderText("a name, not 'rater': gpt-4, alice…")
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        self.fmt = QComboBox()
        self.fmt.addItems([*FORMATS, BUNDLE])
        self.column = QLineEdit()
        self.column.setPlaceholderText("pandalm: annotator1, annotator2…")
        self.baseline = QLineEdit(BASELINE)
        self.first_turn = QCheckBox("The first turn's judgments only")
        self.signer = QLineEdit()
        self.signer.setPlaceholderText("the colleague's key, as their `arena key` prints it")
        form = QFormLayout()
        form.addRow("&File:", file_row)
        form.addRow("&Judge:", self.judge)
        form.addRow("&Kind:", self.kind)
        form.addRow("F&ormat:", self.fmt)
        form.addRow("&Column:", self.column)
        form.addRow("&Baseline:", self.baseline)
        form.addRow("", self.first_turn)
        form.addRow("&Signer:", self.signer)
        buttons = ok_cancel(self)
        note = QLabel("As `arena judges import` (docs/judges.md): all the file or nothing.")
        note.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.fmt.currentTextChanged.connect(self._format_chosen)
        self._format_chosen(self.fmt.currentText())

    def _choose(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "A judge's verdicts", self.path.text())
        if name:
            self.path.setText(name)

    def _format_chosen(self, fmt: str) -> None:
        """Only the fields the format reads can be filled in."""
        self.column.setEnabled(fmt == "pandalm")
        self.baseline.setEnabled(fmt == "arena-hard")
        self.first_turn.setEnabled(fmt in ("fastchat-pair", "fastchat-single"))
        self.signer.setEnabled(fmt == BUNDLE)

    def choice(self) -> JudgeImport:
        fmt = self.fmt.currentText()
        options = Options(
            self.column.text().strip() or None if self.column.isEnabled() else None,
            self.baseline.text().strip() or BASELINE if self.baseline.isEnabled() else BASELINE,
            self.first_turn.isEnabled() and self.first_turn.isChecked(),
        )
        return JudgeImport(
            Path(self.path.text().strip()),
            self.judge.text().strip(),
            self.kind.currentText(),
            fmt,
            options,
            self.signer.text().strip() if fmt == BUNDLE else None,
        )


def ask_judge_import(parent: QWidget, family: str) -> JudgeImport | None:
    """What to import, or None when cancelled. Tests replace this function."""
    dialog = JudgeImportDialog(parent, family)
    return dialog.choice() if dialog.exec() else None


def import_verdicts(ledger: Ledger, family: str, chosen: JudgeImport) -> JudgeImportReport:
    """Store ``chosen``'s verdicts, all or none, as `arena judges import` does."""
    who = {"family": family, "judge": chosen.judge, "kind": chosen.kind}
    if chosen.fmt == BUNDLE:
        if not chosen.signer:
            raise BadInput("a colleague's bundle is imported only against its signer's key")
        from arena.bundle.colleague import import_bundle

        return import_bundle(ledger, chosen.path, signer=chosen.signer or "", **who)
    check_options(chosen.fmt, chosen.options)
    return import_judge(ledger, chosen.path, fmt=chosen.fmt, options=chosen.options, **who)
