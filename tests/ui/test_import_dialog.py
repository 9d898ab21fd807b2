"""File ▸ Import's dialog: the family (existing, or new with kind, language, bounds), the
language proposed from the prompts, and what the import will do, shown before it is done."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from arena import family_state
from arena.gates.screening import failures
from arena.intake.families import archive_family, set_family
from arena.intake.family_settings import FamilySettings
from arena.ledger import Ledger, catalog
from arena.ui import family_list, import_dialog
from arena.ui.import_dialog import ImportDialog
from tests.conftest import native_line
from tests.japanese_answers import ENGLISH_ANSWERS, write_japanese_bench


@pytest.fixture
def bench(tmp_path) -> Path:
    return write_japanese_bench(tmp_path / "jmt-mini")


@pytest.fixture
def ledger(ui_ledger):
    with Ledger.open(ui_ledger, readonly=True) as opened:
        yield opened


def _dialog(qtbot, path: Path, ledger: Ledger) -> ImportDialog:
    dialog = ImportDialog(None, path, ledger)
    qtbot.addWidget(dialog)
    return dialog


def test_a_japanese_bench_is_proposed_as_a_new_japanese_fastchat_family(qtbot, bench, ledger):
    dialog = _dialog(qtbot, bench, ledger)
    assert dialog.format.currentText() == "fastchat"
    assert dialog.chosen_name() == "jmt-mini"
    assert dialog.language.text() == "ja"
    assert "6 of 6 prompts read as ja" in dialog.language_note.text()
    assert dialog.plan.text().startswith(
        "12 records (2 systems, 6 cases, fastchat) into new family jmt-mini "
        "(votes, ja, 1–20000 characters)"
    )
    assert dialog.import_button.isEnabled()
    choice = dialog.choice()
    assert (choice.family, choice.fmt, choice.create) == ("jmt-mini", "fastchat", True)
    assert choice.settings.language == "ja" and choice.questions == bench.parent.parent / (
        "question.jsonl"
    )


def test_an_existing_family_keeps_its_settings_and_the_plan_says_so(qtbot, bench, ledger, tmp_path):
    path = tmp_path / "more.jsonl"
    path.write_text(native_line("c00", "zeta", "zeta answers case zero well.") + "\n", "utf-8")
    dialog = _dialog(qtbot, path, ledger)
    dialog.family.setEditText("prose")
    assert not dialog.kind.isEnabled() and not dialog.language.isEnabled()
    assert dialog.plan.text().startswith(
        "1 record (1 system, 1 case, native) into family prose (votes, en"
    )
    assert dialog.choice().create is False and dialog.choice().settings is None


def test_a_file_that_cannot_be_read_says_why_and_cannot_be_imported(qtbot, ledger, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"not": "a record"}\n', "utf-8")
    dialog = _dialog(qtbot, path, ledger)
    assert dialog.plan.text().startswith("Cannot import this file:")
    assert "bad.jsonl:1" in dialog.plan.text()
    assert not dialog.import_button.isEnabled()


def test_fastchat_answers_away_from_their_questions_ask_for_them(qtbot, bench, ledger, tmp_path):
    moved = tmp_path / "answers.jsonl"
    moved.write_bytes(bench.read_bytes())
    dialog = _dialog(qtbot, moved, ledger)
    assert dialog.format.currentText() == "fastchat"  # from the content, not the name
    assert "need their questions" in dialog.plan.text()
    assert not dialog.import_button.isEnabled()
    dialog.questions.setText(str(bench.parent.parent / "question.jsonl"))
    dialog.questions.editingFinished.emit()
    assert dialog.import_button.isEnabled() and dialog.language.text() == "ja"


def test_a_language_typed_by_the_rater_is_kept(qtbot, bench, ledger):
    dialog = _dialog(qtbot, bench, ledger)
    dialog.language.clear()
    qtbot.keyClicks(dialog.language, "ja-JP")
    dialog.format.setCurrentText("fastchat")  # read again: the proposal does not overwrite
    assert dialog.language.text() == "ja-JP"
    assert "(votes, ja-JP," in dialog.plan.text()


def test_a_tests_family_without_results_is_warned_about_before_import(qtbot, bench, ledger):
    dialog = _dialog(qtbot, bench, ledger)
    dialog.kind.setCurrentText("tests")
    assert "None of them has a test result" in dialog.plan.text()
    assert "every one counts as failed" in dialog.plan.text()


def test_bounds_that_make_no_sense_cannot_be_imported(qtbot, bench, ledger):
    dialog = _dialog(qtbot, bench, ledger)
    dialog.min_chars.setValue(500)
    dialog.max_chars.setValue(100)
    assert dialog.plan.text().startswith("Cannot create the family:")
    assert not dialog.import_button.isEnabled()
    dialog.family.setEditText("")
    assert dialog.plan.text() == "Name the family to import into."


def test_keys_alone_fill_the_dialog_and_import(qtbot, bench, ledger):
    dialog = _dialog(qtbot, bench, ledger)
    with qtbot.waitActive(dialog):
        dialog.open()
        dialog.activateWindow()
    line = dialog.family.lineEdit()
    assert line.hasFocus()
    qtbot.keyClicks(line, "jmt-ja")  # the proposed name was selected: typing replaces it
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert dialog.kind.hasFocus()
    with qtbot.waitSignal(dialog.accepted):
        qtbot.keyClick(dialog, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
    assert dialog.choice().family == "jmt-ja"


def _real_dialog(monkeypatch, name: str | None, **values):
    """``ask_import`` answered by the real dialog, edited as the rater would."""

    def ask(parent, path, ledger):
        dialog = ImportDialog(parent, path, ledger)
        if name is None:
            return None
        dialog.family.setEditText(name)
        for widget, value in values.items():
            getattr(dialog, widget).setText(value)
        assert dialog.import_button.isEnabled(), dialog.plan.text()
        return dialog.choice()

    monkeypatch.setattr(import_dialog, "ask_import", ask)


def test_the_window_creates_the_family_the_dialog_describes(
    qtbot, open_window, ui_ledger, bench, monkeypatch
):
    window = open_window(ui_ledger)
    _real_dialog(monkeypatch, "jmt-ja", aspect="japanese chat")
    assert window.import_path(bench), window.ops.last_error
    assert "into jmt-ja (new family)" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.families.selected_name() == "jmt-ja")
    with Ledger.open(ui_ledger, readonly=True) as ledger:
        family = catalog.get_family(ledger, "jmt-ja")
        assert (family.kind, family.language, family.aspect) == ("votes", "ja", "japanese chat")
        found = failures(ledger, family_state.load(ledger, "jmt-ja"), gate="language")
    assert {(f.case_id, f.system) for f in found} == ENGLISH_ANSWERS


def test_a_cancelled_dialog_imports_nothing(qtbot, open_window, ui_ledger, bench, monkeypatch):
    window = open_window(ui_ledger)
    _real_dialog(monkeypatch, None)
    assert not window.import_path(bench)
    assert [r["name"] for r in window.families.model.rows] == ["code", "prose"]


def test_a_tests_import_without_results_warns_in_the_window(
    qtbot, open_window, ui_ledger, tmp_path, monkeypatch
):
    path = tmp_path / "diffs.jsonl"
    path.write_text(
        "\n".join(native_line("t1", s, f"--- a/x\n+++ b/x\n+{s}\n") for s in ("a", "b")) + "\n",
        "utf-8",
    )
    window = open_window(ui_ledger)
    shown = []
    monkeypatch.setattr(
        "arena.ui.import_flow.show_error", lambda _w, text, **_k: shown.append(text)
    )

    def ask(parent, path, ledger):
        return import_dialog.ImportChoice("fixes", "native", True, FamilySettings(kind="tests"))

    monkeypatch.setattr(import_dialog, "ask_import", ask)
    assert window.import_path(path)
    assert len(shown) == 1 and "none of the 2 new outputs has a test result" in shown[0]


def test_the_family_list_groups_by_aspect_and_shows_archived_ones_on_request(
    qtbot, open_window, ui_ledger
):
    with Ledger.open(ui_ledger) as ledger:
        set_family(ledger, "code", FamilySettings(aspect="coding"))
        set_family(ledger, "prose", FamilySettings(aspect="writing"))
        archive_family(ledger, "prose", reason="done with it")
    window = open_window(ui_ledger)
    model = window.families.model
    aspect = [key for key, _ in family_list.COLUMNS].index("aspect")
    name = [key for key, _ in family_list.COLUMNS].index("name")
    assert [r["name"] for r in model.rows] == ["code"]
    assert model.data(model.index(0, aspect)) == "coding"
    window.families.show_archived.setChecked(True)
    assert [r["name"] for r in model.rows] == ["code", "prose"]
    assert model.data(model.index(1, aspect)) == "writing"
    assert model.data(model.index(1, name)) == "prose — archived"


@pytest.mark.parametrize("field", ["family", "language"])
def test_enter_imports_from_the_family_or_the_language(qtbot, bench, ledger, field):
    dialog = _dialog(qtbot, bench, ledger)
    with qtbot.waitActive(dialog):
        dialog.open()
        dialog.activateWindow()
    widget = dialog.family.lineEdit() if field == "family" else dialog.language
    widget.setFocus()
    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        qtbot.keyClick(widget, Qt.Key.Key_Return)
