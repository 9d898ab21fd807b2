"""The small questions the window asks. Tests replace these functions."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget


def ask_text(parent: QWidget, title: str, label: str, *, required: bool = False) -> str | None:
    """A line of text, or None when cancelled (or left empty when ``required``)."""
    text, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Normal, "")
    if not ok or (required and not text.strip()):
        return None
    return text.strip()


def ask_family(parent: QWidget, file_name: str, families: list[str],
               suggestion: str) -> str | None:
    """The family to import ``file_name`` into: an existing one or a new name."""
    names = [suggestion] + [f for f in families if f != suggestion]
    name, ok = QInputDialog.getItem(parent, "Import outputs",
                                    f"Import {file_name} into which family?\n"
                                    "Pick one or type a new name.", names, 0, True)
    return name.strip() if ok and name.strip() else None
