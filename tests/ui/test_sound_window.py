"""The window writes only from a sound ledger: a family whose guards were dropped is not
opened for rating, and an import into a family whose rows were edited is refused, each
with the lines `arena check` gives; with the check switched off both go on."""

from __future__ import annotations

import sqlite3

from PySide6.QtWidgets import QMessageBox

from arena.ledger import Ledger, catalog
from arena.ui import import_dialog
from arena.ui.import_dialog import ImportDialog
from tests.conftest import native_line
from tests.reliability.test_sound_ledger import switch_off, tamper


def _shown_error(window) -> str:
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1
    text = boxes[0].text()
    boxes[0].accept()
    return text


def test_a_family_with_a_guard_dropped_is_not_opened_for_rating(
    qtbot, open_window, ui_ledger, monkeypatch
):
    with sqlite3.connect(ui_ledger) as conn:
        conn.execute("DROP TRIGGER votes_no_update")
    window = open_window(ui_ledger)
    assert not window.open_family("prose")
    assert window.rating.session is None
    text = _shown_error(window)
    assert "votes: the append-only guard votes_no_update is missing" in text
    switch_off(monkeypatch)
    assert window.open_family("prose"), window.ops.last_error


def test_an_import_into_an_edited_family_is_refused(
    qtbot, open_window, ui_ledger, tmp_path, monkeypatch
):
    tamper(
        ui_ledger,
        "outputs",
        "UPDATE outputs SET finish_reason = 'stop' WHERE rowid = "
        "(SELECT MIN(rowid) FROM outputs WHERE family = 'prose')",
    )
    more = tmp_path / "more.jsonl"
    more.write_text(
        native_line(
            "c00",
            "zeta",
            "Zeta explains case zero in plain English for the reader.",
            prompt="Task 0: explain **this** in Markdown.",
        )
        + "\n",
        encoding="utf-8",
    )

    def ask(parent, path, ledger):
        dialog = ImportDialog(parent, path, ledger)
        dialog.family.setEditText("prose")
        return dialog.choice()

    monkeypatch.setattr(import_dialog, "ask_import", ask)
    window = open_window(ui_ledger)
    assert not window.import_path(more)
    assert "outputs: rows" in _shown_error(window)
    with Ledger.open(ui_ledger, readonly=True) as ledger:
        assert "zeta" not in {s.label for s in catalog.systems(ledger, "prose")}
    switch_off(monkeypatch)
    assert window.import_path(more), window.ops.last_error
