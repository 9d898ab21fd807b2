"""The question who is voting, answered from the keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt

from arena.ui.rater_dialog import RaterDialog


def _dialog(qtbot, known=("dana", "lee"), current=None) -> RaterDialog:
    dialog = RaterDialog(list(known), current, None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_a_new_name_typed_and_enter(qtbot):
    dialog = _dialog(qtbot)
    assert dialog.focusWidget() is dialog.name
    qtbot.keyClicks(dialog.name, "  kim ")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.result() and dialog.chosen == "kim"


def test_arrows_pick_a_known_rater(qtbot):
    dialog = _dialog(qtbot)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Down)
    assert dialog.name.text() == "dana"
    qtbot.keyClick(dialog.name, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Down)  # stays on the last
    assert dialog.name.text() == "lee"
    qtbot.keyClick(dialog.name, Qt.Key.Key_Up)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.chosen == "dana"


def test_a_bad_name_is_said_and_the_dialog_stays(qtbot):
    dialog = _dialog(qtbot)
    for bad, said in (("", "cannot be empty"), ("settler", "Arena's own actor")):
        dialog.name.setText(bad)
        qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
        assert dialog.isVisible() and dialog.chosen is None
        assert said in dialog.problem.text()


def test_escape_cancels(qtbot):
    dialog = _dialog(qtbot, current="lee")
    assert dialog.name.text() == "lee"
    qtbot.keyClick(dialog.name, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and not dialog.result() and dialog.chosen is None
