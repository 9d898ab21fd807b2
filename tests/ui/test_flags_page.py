"""The Flags page: the pairs flagged while rating, and what the rater does about each."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from arena.ledger import catalog
from arena.rating import flags
from arena.ui import dialogs

SHIFT = Qt.KeyboardModifier.ShiftModifier
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def reasons(monkeypatch):
    """Scripted answers to the page's dialogs: a reason, or (side, reason) for a removal."""
    queue: list = []
    monkeypatch.setattr(dialogs, "ask_reason", lambda *a, **k: queue.pop(0))
    monkeypatch.setattr(dialogs, "ask_removal", lambda *a, **k: queue.pop(0))
    return queue


@pytest.fixture
def flagged(qtbot, open_window, ui_ledger, answers):
    """A window rating ``prose`` with two pairs flagged; the first pair is returned too."""
    window = open_window(ui_ledger, "prose")
    first = window.rating.current_pair()
    answers.append("the prompt is cut off")
    qtbot.keyClick(window, Qt.Key.Key_F)
    qtbot.keyClick(window, Qt.Key.Key_1)
    answers.append("the right answer names its maker")
    qtbot.keyClick(window, Qt.Key.Key_F)
    return window, first


def test_shift_f_opens_the_flags_of_the_family_rated_and_esc_goes_back(qtbot, flagged):
    window, first = flagged
    qtbot.keyClick(window, Qt.Key.Key_F, SHIFT)
    page = window.flags
    assert window.pages.currentWidget() is page and page.family == "prose"
    assert page.model.rowCount() == 2 and "2 open" in page.subtitle.text()
    row = page.model.find(
        next(f.event_id for f in page.model.rows if f.note == "the prompt is cut off")
    )
    names = {s.system_id: s.label for s in catalog.systems(window.ledger, "prose")}
    cells = [page.model.cell(page.model.rows[row], c) for c in range(6)]
    assert cells[1:] == [
        first.case.case_id,
        names[first.left.system_id],
        names[first.right.system_id],
        "open",
        "the prompt is cut off",
    ]
    qtbot.keyClick(page.table, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.rating  # a new session, on the same family


def test_the_flags_page_opens_from_the_family_list_and_the_board_menu(qtbot, flagged):
    window, _ = flagged
    window.escape()
    window.families.select("prose")
    qtbot.keyClick(window.families.table, Qt.Key.Key_F, SHIFT)
    assert window.pages.currentWidget() is window.flags
    window.escape()
    assert window.pages.currentWidget() is window.families
    window.round_actions.actions["flags"].trigger()
    assert window.pages.currentWidget() is window.flags


def _select(page, note: str) -> None:
    page.table.selectRow(
        page.model.find(next(f.event_id for f in page.model.rows if f.note == note))
    )


def test_retire_remove_resolve_and_undo_from_a_flag_are_events(qtbot, flagged, reasons):
    window, first = flagged
    window.show_flags()
    page = window.flags
    _select(page, "the prompt is cut off")
    reasons.append("the prompt is broken")
    qtbot.keyClick(page.table, Qt.Key.Key_R)
    retired = [e for e in flags.family_flags(window.ledger, "prose") if e.status == "case retired"]
    assert [f.case_id for f in retired] == [first.case.case_id]
    assert page.selected().status == "case retired"
    reasons.append("undo the retirement")
    page.undo_selected()
    assert page.selected().status == "open"

    _select(page, "the right answer names its maker")
    reasons.append((1, "it names its maker"))
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    flag = page.selected()
    assert flag.status == "right output removed"
    assert flag.answers[0].output_id == flag.right.output_id
    reasons.append("undo")
    qtbot.keyClick(page.table, Qt.Key.Key_Z, CTRL)  # the last thing done here
    assert page.selected().status == "open"

    reasons.append("looked at: fine")
    qtbot.keyClick(page.table, Qt.Key.Key_X)
    assert page.selected().status == "resolved"
    assert "resolved" in page.message.text()
    kinds = [r["kind"] for r in window.ledger.db["events"].rows_where(order_by="seq")]
    assert kinds == [
        "flag",
        "flag",
        "retire_case",
        "retract",
        "remove_output",
        "retract",
        "retract",
    ]
    reasons.append("reopen")
    qtbot.keyClick(page.table, Qt.Key.Key_U)  # reopens: the same flag raised again
    assert sum(f.is_open for f in page.model.rows) == 2 and page.model.rowCount() == 3


def test_a_cancelled_or_refused_action_writes_nothing(qtbot, flagged, reasons):
    window, _ = flagged
    window.show_flags()
    page = window.flags
    before = window.ledger.db["events"].count
    reasons.append(None)  # cancelled
    qtbot.keyClick(page.table, Qt.Key.Key_R)
    reasons.append("")  # a blank reason is refused by the core
    qtbot.keyClick(page.table, Qt.Key.Key_R)
    assert "say why" in window.ops.last_error
    qtbot.keyClick(page.table, Qt.Key.Key_U)  # an open flag: nothing to undo
    assert "nothing was done" in page.message.text()
    assert window.ledger.db["events"].count == before


def test_a_family_without_flags_says_how_to_raise_one(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger)
    window.families.select("code")
    assert window.show_flags()
    assert window.flags.model.rowCount() == 0
    assert "F flags the pair" in window.flags.subtitle.text()
