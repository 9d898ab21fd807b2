"""The small questions the window asks. Tests replace these functions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)


def ask_text(parent: QWidget, title: str, label: str, *, required: bool = False) -> str | None:
    """A line of text, or None when cancelled (or left empty when ``required``)."""
    text, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Normal, "")
    if not ok or (required and not text.strip()):
        return None
    return text.strip()


def ask_save_path(parent: QWidget, title: str, suggestion: Path, filters: str) -> Path | None:
    """Where to write a file, or None when cancelled; the chosen filter's suffix is
    added when the name has none."""
    name, chosen = QFileDialog.getSaveFileName(parent, title, str(suggestion), filters)
    if not name:
        return None
    path = Path(name)
    if not path.suffix and "*." in chosen:
        path = path.with_suffix("." + chosen.split("*.", 1)[1].split(")", 1)[0].split()[0])
    return path


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    """OK and Cancel buttons that accept and reject ``dialog``."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


class CorrectionDialog(QDialog):
    """Why a correction is made (and, for a case's language, which language): the reason
    is stored with the event, so it says in a line what the rater saw."""

    def __init__(
        self,
        parent: QWidget,
        title: str,
        what: str,
        *,
        reason: str = "",
        placeholder: str = "",
        language: str | None = None,
        choices: list[str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setObjectName("correction-dialog")
        self.setMinimumWidth(460)
        label = QLabel(what)
        label.setWordWrap(True)
        self.language = QLineEdit(language or "")
        self.language.setPlaceholderText("a language tag: fr, de, zh-Hans, pt-BR…")
        self.reason = QLineEdit(reason)
        self.reason.setPlaceholderText(placeholder)
        self.choice = QComboBox()
        self.choice.addItems(choices or [])
        form = QFormLayout()
        if choices:
            form.addRow("&Which:", self.choice)
        if language is not None:
            form.addRow("&Language:", self.language)
        form.addRow("&Reason:", self.reason)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addLayout(form)
        layout.addWidget(ok_cancel(self))
        first: QWidget = self.language if language is not None else self.reason
        if choices:
            first = self.choice
        first.setFocus()
        if isinstance(first, QLineEdit):
            first.selectAll()


def ask_reason(
    parent: QWidget, title: str, what: str, *, default: str = "", placeholder: str = ""
) -> str | None:
    """The reason for a correction, or None when cancelled. An empty reason is returned
    as it is: the core says whether one is needed."""
    dialog = CorrectionDialog(parent, title, what, reason=default, placeholder=placeholder)
    return dialog.reason.text().strip() if dialog.exec() else None


def ask_removal(
    parent: QWidget, title: str, what: str, choices: list[str]
) -> tuple[int, str] | None:
    """Which of ``choices`` to remove and why, or None when cancelled."""
    dialog = CorrectionDialog(parent, title, what, choices=choices)
    if not dialog.exec():
        return None
    return dialog.choice.currentIndex(), dialog.reason.text().strip()


def ask_language(parent: QWidget, title: str, what: str, suggestion: str) -> tuple[str, str] | None:
    """The language a case expects and why, or None when cancelled."""
    dialog = CorrectionDialog(
        parent, title, what, language=suggestion, placeholder="default: the case expects LANGUAGE"
    )
    if not dialog.exec():
        return None
    return dialog.language.text().strip(), dialog.reason.text().strip()


def confirm(parent: QWidget, title: str, text: str, action: str) -> bool:
    """Whether the user chose ``action`` (the default button is Cancel)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
    chosen = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
    box.exec()
    return box.clickedButton() is chosen
