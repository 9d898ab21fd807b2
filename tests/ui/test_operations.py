"""Long operations run off the window's thread: the window handles events meanwhile, a
progress dialog offers Cancel, and a cancelled operation leaves the ledger as it was."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from arena.intake import outputs
from arena.ledger import catalog
from arena.ledger.round_store import rounds as stored_rounds
from arena.rounds import closing
from arena.rounds.model import RoundSettings
from arena.ui import operations
from arena.ui.board import close_round_dialog
from arena.ui.operations import Changes, ProgressDialog
from tests.conftest import native_line


def _errors(window) -> list[str]:
    return [b.text() for b in window.findChildren(QMessageBox) if b.objectName() == "arena-error"]


def _cancel_when_shown(qtbot, window) -> list[bool]:
    """Press Cancel on the progress dialog once it shows; says when it was pressed."""
    pressed: list[bool] = []

    def press() -> None:
        shown = [d for d in window.findChildren(ProgressDialog) if d.isVisible()]
        if shown and not pressed:
            shown[0].cancel_button.click()
            pressed.append(True)
        elif not pressed:
            QTimer.singleShot(20, press)

    QTimer.singleShot(0, press)
    return pressed


def _until_cancelled(progress) -> None:
    """Work that goes on until the rater cancels it (``progress`` raises then)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        progress(0)
        time.sleep(0.01)
    raise AssertionError("never cancelled")


@pytest.fixture
def quick_dialog(monkeypatch):
    monkeypatch.setattr(operations, "SHOW_AFTER_MS", 0)


def test_the_window_handles_events_while_an_operation_runs(qtbot, open_window, ui_ledger):
    window = open_window(ui_ledger, "prose")
    announced: list[Changes] = []
    window.ops.changed.connect(announced.append)
    ticked = threading.Event()
    seen: dict[str, object] = {}

    def meanwhile() -> None:
        # On the window's thread, while the work waits for this very call.
        seen["dialog"] = [d.isVisible() for d in window.findChildren(ProgressDialog)]
        seen["closed"] = window.close()
        seen["vote"] = window.ops.run(Changes(family="prose", session=True), lambda: 1)
        seen["why"] = window.ops.last_error
        ticked.set()

    def early() -> None:
        # Before the dialog shows, the window is still active: the vote key is dropped.
        seen["dialog_early"] = [d.isVisible() for d in window.findChildren(ProgressDialog)]
        QTest.keyClick(window.rating.pair_view, Qt.Key.Key_1)
        seen["after_key"] = window.ops.last_error  # not even refused

    def work(ledger, progress) -> str:
        seen["thread"] = threading.current_thread() is threading.main_thread()
        progress(1)
        assert ticked.wait(10), "the window's thread never handled the timer"
        return ledger.path

    QTimer.singleShot(50, early)
    QTimer.singleShot(operations.SHOW_AFTER_MS + 200, meanwhile)
    done: list[str] = []
    changes = Changes(family="prose", outputs=True)
    assert window.ops.run_long(window.ledger, "Waiting…", changes, work, done.append, total=2)
    assert seen["thread"] is False and (seen["dialog_early"], seen["dialog"]) == ([False], [True])
    # No key reaches the window meanwhile, it stays open, and other writes wait.
    assert seen["after_key"] == "" and window.rating.session_votes == 0
    assert seen["closed"] is False and window.isVisible()
    assert seen["vote"] is False and "wait until this is done: Waiting…" in str(seen["why"])
    assert done == [window.ledger.path] and announced == [changes]
    assert not window.ops.busy
    assert not any(d.isVisible() for d in window.findChildren(ProgressDialog))


def test_writes_after_a_long_operation_are_sealed_on_the_window_s_connection(
    qtbot, open_window, ui_ledger, answers, tmp_path
):
    window = open_window(ui_ledger, "prose")
    window.rating.vote("left")  # the window's connection has read its seal marks
    path = tmp_path / "more.jsonl"
    lines = [native_line(f"q{i}", s, f"{s} answers question {i}.") for i in range(3) for s in "ab"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    answers.append("more")
    assert window.import_path(path)
    # The import committed on a connection of its own; the window's next write reads the
    # seal marks again instead of refusing the import's rows as slipped in.
    window.rating.vote("right")
    assert window.ops.last_error == "" and window.rating.session_votes == 2


def test_cancel_leaves_the_ledger_as_it_was_after_an_import(
    qtbot, open_window, ui_ledger, answers, tmp_path, monkeypatch, quick_dialog
):
    real = outputs.import_file

    def import_then_wait(ledger, path, **how):
        report = real(ledger, path, **how)  # every row written, not yet committed
        _until_cancelled(how["progress"])
        return report

    monkeypatch.setattr(outputs, "import_file", import_then_wait)
    window = open_window(ui_ledger)
    before = (catalog.count_outputs(window.ledger, "prose"), window.ledger.head_digest())
    path = tmp_path / "prose-more.jsonl"
    path.write_text(native_line("c99", "alpha", "One more answer.") + "\n", encoding="utf-8")
    answers.append("prose")
    pressed = _cancel_when_shown(qtbot, window)
    assert window.import_path(path) is False
    assert pressed and window.ops.last_error == "cancelled" and _errors(window) == []
    assert (catalog.count_outputs(window.ledger, "prose"), window.ledger.head_digest()) == before
    assert "Cancelled" in window.statusBar().currentMessage()


def test_cancel_leaves_no_round_and_no_verdicts_gated_again(
    qtbot, open_window, board_ledger, monkeypatch, quick_dialog
):
    real = closing.close_round

    def close_then_wait(ledger, family, settings, progress=None, **options):
        closed = real(ledger, family, settings, progress=progress, **options)
        _until_cancelled(progress)
        return closed

    monkeypatch.setattr(closing, "close_round", close_then_wait)
    monkeypatch.setattr(close_round_dialog, "ask_round_settings", lambda *a: RoundSettings())
    window = open_window(board_ledger)
    window.families.select("prose")
    head = window.ledger.head_digest()
    pressed = _cancel_when_shown(qtbot, window)
    assert window.round_actions.close_round() is False
    assert pressed and stored_rounds(window.ledger, "prose") == []
    assert window.ledger.head_digest() == head  # the gate verdicts rolled back with it
    assert window.pages.currentWidget() is window.families


def test_a_fault_in_a_long_operation_is_a_message_not_a_traceback(
    qtbot, open_window, ui_ledger, capsys
):
    window = open_window(ui_ledger)

    def broken(_ledger, _progress) -> None:
        raise RuntimeError("the fit diverged")

    changes = Changes(family="prose", rounds=True)
    assert window.ops.run_long(window.ledger, "Closing…", changes, broken) is False
    assert _errors(window) == ["Nothing was recorded: the fit diverged"]
    assert "Traceback" in capsys.readouterr().err  # for the record, not for the rater
