"""Settings that survive restarts, a damaged settings file, remapped keys, importing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from arena.ledger import Ledger, voting
from arena.ui.keys import default_key_map, problems
from arena.ui.operations import Changes
from tests.conftest import native_line


def test_view_settings_and_recent_ledgers_survive_a_restart(
    qtbot, open_window, ui_ledger, big_ledger, make_settings
):
    window = open_window(ui_ledger, "prose")
    window.toggle_sync()
    window.toggle_diff_layout()
    window.change_font(3)
    window.resize(900, 640)
    window.open_ledger(big_ledger)
    window.close()
    settings = make_settings()
    assert settings.scroll_sync and settings.diff_split
    assert settings.font_size == 14.0
    assert settings.recent_ledgers == [str(big_ledger.resolve()), str(ui_ledger.resolve())]
    again = open_window(ui_ledger)
    # restoreGeometry may adjust for the platform's frame; the size is kept, near enough.
    assert abs(again.width() - 900) <= 40 and abs(again.height() - 640) <= 40
    assert again.rating.pair_view.sync and again.rating.pair_view.split


def test_a_corrupt_settings_file_falls_back_to_defaults_with_a_message(
    qtbot, open_window, ui_ledger, settings_file, make_settings
):
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_bytes(b"[view\ntheme==\x00\xff\x01 garbage")
    window = open_window(ui_ledger)
    assert "could not be read" in window.settings.problem
    assert window.settings.theme == "light" and window.settings.font_size == 11.0
    qtbot.waitUntil(
        lambda: any(
            b.isVisible() and "default settings" in b.text()
            for b in window.findChildren(QMessageBox)
        )
    )


def test_values_of_the_wrong_kind_fall_back_to_their_defaults(make_settings):
    settings = make_settings()
    settings.store.setValue("view/font_size", "huge")
    settings.store.setValue("view/theme", "purple")
    settings.store.setValue("keys/left", ["2"])  # clashes with "right is better"
    assert settings.font_size == 11.0 and settings.theme == "light"
    assert settings.key_map == default_key_map()


def test_the_key_map_refuses_platform_shortcuts_and_keys_bound_twice(qtbot):
    key_map = default_key_map()
    assert problems(key_map) == []
    key_map["tie"] = ["Ctrl+C"]
    key_map["flag"] = ["1"]
    found = " ".join(problems(key_map))
    assert "Ctrl+C" in found and "Copy" in found
    assert "1 is bound to both" in found
    key_map = default_key_map()
    key_map["skip"] = ["Space"]
    assert "scrolling" in " ".join(problems(key_map))


def test_a_remapped_key_votes_and_the_old_one_no_longer_does(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    key_map = default_key_map()
    key_map["left"] = ["H"]
    window.settings.key_map = key_map
    window.apply_key_map(window.settings.key_map)
    qtbot.keyClick(window, Qt.Key.Key_1)
    assert voting.votes_in_force(window.ledger, "prose") == []
    qtbot.keyClick(window, Qt.Key.Key_H)
    assert [v.choice for v in voting.votes_in_force(window.ledger, "prose")] == ["left"]
    assert "[H]" in window.rating.buttons["left"].text()
    assert "H" in window.overlay.label.text()


def _drop(window, path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_a_dropped_file_is_imported_into_the_family_the_rater_names(
    qtbot, open_window, ui_ledger, answers, tmp_path
):
    window = open_window(ui_ledger)
    changes = []
    window.ops.changed.connect(changes.append)
    path = tmp_path / "new.jsonl"
    path.write_text(
        "\n".join(
            native_line("q1", s, f"{s} answers the question well enough.")
            for s in ("alpha", "beta")
        )
        + "\n",
        encoding="utf-8",
    )
    answers.append("fresh")
    _drop(window, path)
    assert changes == [Changes(family="fresh", outputs=True, families=True)]
    assert "fresh" in [r["name"] for r in window.families.model.rows]
    assert "Imported 2 new outputs" in window.statusBar().currentMessage()


def test_a_bad_import_is_reported_and_changes_nothing(
    qtbot, open_window, ui_ledger, answers, tmp_path
):
    window = open_window(ui_ledger)
    path = tmp_path / "bad.jsonl"
    path.write_text('{"not": "a record"}\n', encoding="utf-8")
    answers.append("broken")
    _drop(window, path)
    assert "bad.jsonl:1" in window.ops.last_error
    assert "broken" not in [r["name"] for r in window.families.model.rows]


def test_a_ledger_open_in_another_process_is_reported_and_only_read(
    qtbot, open_window, ui_ledger, big_ledger
):
    window = open_window(ui_ledger)
    with Ledger.open(big_ledger):
        assert window.open_ledger(big_ledger)
        assert "another Arena process" in window.ops.read_only
        assert window.ledger is not None and window.ledger.readonly
        changes = Changes(family="big", outputs=True)
        assert not window.ops.run(changes, lambda: None)  # no write is even tried
    assert "only reads it" in window.ops.last_error


@pytest.mark.parametrize("family", ["nope"])
def test_an_unknown_family_is_reported_and_the_list_stays(qtbot, open_window, ui_ledger, family):
    window = open_window(ui_ledger)
    assert not window.open_family(family)
    assert "no family named" in window.ops.last_error
    assert window.pages.currentWidget() is window.families


def test_the_application_names_itself_arena_with_its_icon(qapp):
    from arena.ui.app import DESKTOP_ID, application

    app = application([])
    assert (app.applicationName(), app.organizationName()) == ("Arena", "Arena")
    assert app.desktopFileName() == DESKTOP_ID
    assert not app.windowIcon().isNull()
    desktop = Path(__file__).resolve().parents[2] / "packaging" / f"{DESKTOP_ID}.desktop"
    assert desktop.exists()
