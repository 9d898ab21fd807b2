"""Help ▸ About Arena names the version `arena --version` prints."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from arena import __version__


def test_help_about_shows_the_version(open_window, ui_ledger):
    window = open_window(ui_ledger)
    (help_menu,) = [m for m in window.menuBar().actions() if m.text() == "&Help"]
    (about,) = [a for a in help_menu.menu().actions() if a.text() == "&About Arena"]
    about.trigger()
    (box,) = [b for b in window.findChildren(QMessageBox) if b.objectName() == "arena-about"]
    assert box.isVisible() and box.text() == f"Arena {__version__}"
    box.accept()
