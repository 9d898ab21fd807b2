"""The rater's smaller complaints: each fixed, each kept fixed here.

A second window on a locked ledger, the keys dialog and Esc/Return, scroll positions
across theme and text size, feedback after undo, the end of a family, the flag banner.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog

from arena.intake.outputs import import_file
from arena.ledger import Ledger, voting
from arena.rounds.model import RoundSettings
from arena.ui import app
from arena.ui.board import close_round_dialog
from arena.ui.keys import default_key_map
from arena.ui.operations import Changes
from arena.ui.settings_dialog import SettingsDialog
from tests.conftest import native_line

CTRL = Qt.KeyboardModifier.ControlModifier


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(window, key, modifier)


def shown(window):
    pair = window.rating.current_pair()
    return pair.presentation.presentation_id if pair is not None else None


# -- a second window on a locked ledger ------------------------------------------------


def test_a_second_window_on_a_locked_ledger_reads_its_board_and_exits_3(
    qtbot, ui_ledger, monkeypatch, capsys
):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # run() sets its own
    opened = []

    def close_soon() -> None:
        window = next(w for w in QApplication.topLevelWidgets() if hasattr(w, "ops"))
        opened.append(
            (
                window.ledger.readonly,
                window.pages.currentWidget() is window.made_board,
                window.board.family,
                window.windowTitle(),
                window.ops.read_only,
            )
        )
        for box in QApplication.topLevelWidgets():
            if box is not window and box.isVisible():
                box.close()
        # Nothing can be written here: a vote, a round or an import is refused.
        assert not window.ops.run(Changes(family="prose", session=True), lambda: 1 / 0)
        window.close()

    with Ledger.open(ui_ledger):  # the first window holds it for writing
        QTimer.singleShot(200, close_soon)
        code = app.run(["arena"], ledger_path=ui_ledger, family="prose")
    assert code == 3
    readonly, on_board, family, title, why = opened[0]
    assert readonly and on_board and family == "prose"
    assert "read-only" in title and "another Arena process" in why
    assert "only reads" in capsys.readouterr().err


def test_opening_a_locked_ledger_from_the_menu_reads_it(qtbot, open_window, ui_ledger, big_ledger):
    window = open_window(ui_ledger)
    with Ledger.open(big_ledger):
        assert window.open_ledger(big_ledger)
        assert window.ledger.readonly and "another Arena process" in window.ops.read_only
        assert window.open_family("big") and window.pages.currentWidget() is window.board
        assert window.rating.session is None
        assert window.show_gates("big") and window.show_flags("big")  # both only read
    assert window.open_ledger(ui_ledger) and not window.ledger.readonly
    assert window.ops.read_only == ""


# -- the keys dialog ----------------------------------------------------------------------


@pytest.fixture
def keys_dialog(qtbot):
    dialog = SettingsDialog(default_key_map(), 50)
    qtbot.addWidget(dialog)
    with qtbot.waitActive(dialog):
        dialog.show()
        dialog.activateWindow()
    return dialog


def test_esc_in_the_keys_dialog_closes_it_and_is_never_a_binding(keys_dialog):
    edit = keys_dialog.editors["tie"][1]
    edit.setFocus()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert edit.keySequence().isEmpty()
    assert not keys_dialog.isVisible() and keys_dialog.result() == QDialog.DialogCode.Rejected


def test_return_in_the_keys_dialog_presses_ok_and_is_never_a_binding(keys_dialog):
    edit = keys_dialog.editors["tie"][1]
    edit.setFocus()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Q)  # a key is recorded…
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)  # …Return is not
    assert keys_dialog.result() == QDialog.DialogCode.Accepted
    assert keys_dialog.key_map()["tie"] == ["3", "Q"]


# -- scroll positions ------------------------------------------------------------------


@pytest.fixture
def long_ledger(tmp_path: Path) -> Path:
    """One case with a long prompt and two long answers: every pane scrolls."""
    body = "\n\n".join(f"Paragraph {i}: a sentence that fills one line." for i in range(150))
    prompt = "\n\n".join(f"Part {i} of a long question." for i in range(60))
    lines = [
        native_line("c1", label, f"{label} says:\n\n{body}", prompt=prompt)
        for label in ("alpha", "beta")
    ]
    source = tmp_path / "long.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "long.sqlite"
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family="long", fmt="native")
    return path


def _bars(window):
    view = window.rating.pair_view
    return [
        view.left.browser.verticalScrollBar(),
        view.right.browser.verticalScrollBar(),
        view.prompt.verticalScrollBar(),
    ]


def _shares(window) -> list[float]:
    return [bar.value() / bar.maximum() for bar in _bars(window)]


def test_scroll_positions_survive_a_theme_and_a_text_size_change(qtbot, open_window, long_ledger):
    window = open_window(long_ledger, "long")
    window.resize(1100, 700)
    qtbot.wait(20)
    for bar, share in zip(_bars(window), (0.5, 0.25, 0.75), strict=True):
        assert bar.maximum() > 100
        bar.setValue(round(share * bar.maximum()))
    window.toggle_theme()
    qtbot.wait(20)
    assert _shares(window) == pytest.approx([0.5, 0.25, 0.75], abs=0.02)
    window.change_font(3)
    qtbot.wait(20)
    assert _shares(window) == pytest.approx([0.5, 0.25, 0.75], abs=0.02)
    window.toggle_theme()  # leave the application palette light for the next tests


# -- undo, the end of a family, the flag banner ------------------------------------------


def test_undo_says_which_vote_it_undid(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    first = window.rating.current_pair()
    press(qtbot, window, Qt.Key.Key_1)
    press(qtbot, window, Qt.Key.Key_Z, CTRL)
    notice = window.rating.notice
    assert notice.isVisible()
    assert notice.text() == (
        f"Undid your vote “Left is better” on case {first.case.case_id}; the pair is shown again."
    )
    assert shown(window) == first.presentation.presentation_id
    press(qtbot, window, Qt.Key.Key_3)  # voted again: the note was about that pair
    assert not notice.isVisible()


def test_the_end_of_a_family_offers_what_next_and_no_live_vote_buttons(
    qtbot, open_window, ui_ledger, monkeypatch
):
    monkeypatch.setattr(close_round_dialog, "ask_round_settings", lambda *_: RoundSettings())
    window = open_window(ui_ledger, "prose")
    page = window.rating
    assert not any(b.isVisible() for b in page.next_steps.values())
    for _ in range(100):
        if page.current_pair() is None:
            break
        press(qtbot, window, Qt.Key.Key_1)
    assert page.current_pair() is None
    assert all(b.isVisible() for b in page.next_steps.values())
    live = {name for name, b in page.buttons.items() if b.isEnabled()}
    assert live == {"undo"}
    assert "nothing is left to rate" in page.pair_view.done.text()
    votes = len(voting.votes_in_force(window.ledger, "prose"))
    press(qtbot, window, Qt.Key.Key_2)  # a vote key votes on nothing
    assert len(voting.votes_in_force(window.ledger, "prose")) == votes
    press(qtbot, window, Qt.Key.Key_B)  # the board, from the end screen
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.made_board)
    assert window.board.family == "prose"
    window.open_family("prose")
    page.next_steps["close_round"].click()
    assert window.pages.currentWidget() is window.board and window.board.found is not None
    # A close that took long enough to show its progress dialog hands the keys back.
    qtbot.waitUntil(window.isActiveWindow)
    window.open_family("prose")
    page.next_steps["families"].click()
    assert window.pages.currentWidget() is window.families
    window.open_family("prose")
    press(qtbot, window, Qt.Key.Key_Z, CTRL)  # undo brings a pair and the buttons back
    assert page.current_pair() is not None
    assert not any(b.isVisible() for b in page.next_steps.values())
    assert all(b.isEnabled() for b in page.buttons.values())


def test_the_flag_banner_belongs_to_the_pair_it_was_raised_on(
    qtbot, open_window, ui_ledger, answers
):
    window = open_window(ui_ledger, "prose")
    notice = window.rating.notice
    flagged = shown(window)
    answers.append("the prompt is cut off")
    press(qtbot, window, Qt.Key.Key_F)
    assert notice.isVisible() and "Pair flagged" in notice.text()
    press(qtbot, window, Qt.Key.Key_1)
    assert shown(window) != flagged
    assert not notice.isVisible()  # the next pair is not flagged
    press(qtbot, window, Qt.Key.Key_Z, CTRL)  # the flagged pair again: its note again
    assert shown(window) == flagged
    assert notice.isVisible() and "the prompt is cut off" in notice.text()


def test_the_gates_page_keeps_its_scroll_position_across_a_theme_change(
    qtbot, open_window, tmp_path
):
    lines = [
        native_line(f"c{i:02d}", label, "" if label == "beta" else f"An answer to {i}.")
        for i in range(40)
        for label in ("alpha", "beta")
    ]
    source = tmp_path / "blank.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "blank.sqlite"
    with Ledger.open(path) as ledger:
        import_file(ledger, source, family="blank", fmt="native")
    window = open_window(path)
    window.families.select("blank")
    assert window.show_gates()
    qtbot.wait(20)
    bar = window.gates.tree.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)
    kept = bar.value()
    window.toggle_theme()
    qtbot.wait(20)
    assert bar.value() == kept
    window.toggle_theme()
