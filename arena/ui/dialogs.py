"""The small questions the window asks. Tests replace these functions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QWidget


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
