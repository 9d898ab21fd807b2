"""The preview board: the fit of the votes so far, refitted off the window's thread,
marked as a preview everywhere it shows, never stored or exported."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from arena.ledger import Ledger
from arena.ledger import round_store as stored_rounds
from arena.rounds import preview as preview_module
from arena.rounds.model import RoundSettings
from arena.rounds.preview import NOT_A_ROUND
from arena.ui.board import close_round_dialog, preview_refresh
from arena.ui.keys import PREVIEW_KEY

VOTE_KEYS = (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_1)


def vote(qtbot, window, times: int) -> None:
    for i in range(times):
        qtbot.keyClick(window, VOTE_KEYS[i % len(VOTE_KEYS)])
        assert not window.ops.last_error


@pytest.fixture
def held(monkeypatch):
    """Refits on the worker thread itself (not in a worker process, where no patch
    reaches) that wait for the gate before fitting, recording where they ran."""
    monkeypatch.setattr(preview_refresh, "IN_PROCESS", False)
    gate = threading.Event()
    ran: list[tuple[str, bool]] = []
    fit = preview_module.Previewer.__call__

    def holding(self, ledger: Ledger):
        ran.append((threading.current_thread().name, ledger.readonly))
        assert gate.wait(20)
        return fit(self, ledger)

    monkeypatch.setattr(preview_module.Previewer, "__call__", holding)
    return gate, ran


def test_votes_refit_the_preview_off_the_window_thread(qtbot, open_window, big_ledger, held):
    gate, ran = held
    gate.set()
    window = open_window(big_ledger, "big")
    vote(qtbot, window, 3)
    assert window.show_board("big")
    page = window.board
    # Votes and no round: the page opens on the preview.
    assert page.previewing
    qtbot.waitUntil(lambda: page.preview is not None, timeout=20_000)
    assert page.preview.votes == 3
    assert page.model.rows

    window.escape()
    assert window.open_family("big")
    page.refresh._timer.setInterval(0)
    gate.clear()
    vote(qtbot, window, 1)
    qtbot.waitUntil(lambda: page.refresh.running and len(ran) == 2, timeout=5_000)
    # The refit waits on its thread; the next vote is written and the next pair shown.
    shown = window.rating.current_pair().presentation.presentation_id
    vote(qtbot, window, 1)
    assert window.rating.current_pair().presentation.presentation_id != shown
    assert page.refresh.running and page.preview.votes == 3
    gate.set()
    qtbot.waitUntil(lambda: page.preview.votes == 5, timeout=20_000)
    # Each refit ran on a worker, on a read connection of its own.
    assert all(name == "arena-preview" and readonly for name, readonly in ran)
    assert threading.current_thread().name != "arena-preview"
    # The held refit read both votes once released; the one more the vote during it
    # asked for finds nothing newer and fits nothing.
    qtbot.waitUntil(lambda: not page.refresh.running and not page.refresh._timer.isActive())
    assert len(ran) == 2


def test_the_preview_is_marked_as_one_and_offers_no_export(qtbot, open_window, big_ledger):
    window = open_window(big_ledger, "big")
    vote(qtbot, window, 4)
    window.show_board("big")
    page = window.board
    qtbot.waitUntil(lambda: page.preview is not None, timeout=20_000)
    assert NOT_A_ROUND in page.title.text()
    assert page.banner.isVisible() and "never stored or exported" in page.banner.text()
    assert "4 votes so far" in page.banner.text()
    assert NOT_A_ROUND in window.status.text()
    assert page.summary.heading.text() == "Round summary: at close"
    assert page.summary.limits_title.text() == "Preview, not a round"
    assert "Intervals" in page.side.settings.items.text()
    assert not page.round_box.isEnabled()
    actions = window.round_actions.actions
    assert not actions["export_csv"].isEnabled() and not actions["export_image"].isEnabled()
    assert not page.buttons["export_csv"].isEnabled()
    assert "a preview is never stored" in page.buttons["close_round"].toolTip()
    # Intervals: the preview says they come at the close, or why there are none.
    notes = page.notes.text()
    assert "Intervals at close" in notes or "Uncertainty unavailable" in notes
    assert page.model.rows and all(r.ci95 is None for r in page.model.rows)
    assert stored_rounds.rounds(window.ledger, "big") == []
    # Fitted in a worker process: no fit holds the interpreter the window's keys need.
    assert page.refresh._pool is not None


def test_the_key_toggles_between_the_preview_and_the_last_round(
    qtbot, open_window, big_ledger, monkeypatch
):
    monkeypatch.setattr(close_round_dialog, "ask_round_settings", lambda *_: RoundSettings())
    window = open_window(big_ledger, "big")
    vote(qtbot, window, 3)
    window.escape()
    window.families.select("big")
    assert window.round_actions.close_round(), window.ops.last_error
    page = window.board
    # Just closed: the round is shown, and it may be exported.
    assert not page.previewing and page.round_shown is page.found
    assert window.round_actions.actions["export_csv"].isEnabled()
    assert NOT_A_ROUND not in page.title.text() and not page.banner.isVisible()

    window.activateWindow()  # the close's progress dialog took it (offscreen)
    qtbot.waitUntil(window.isActiveWindow)
    page.table.setFocus()
    qtbot.keyClick(page.table, PREVIEW_KEY)
    assert page.previewing and page.round_shown is None
    assert not window.round_actions.actions["export_csv"].isEnabled()
    qtbot.waitUntil(lambda: page.preview is not None, timeout=20_000)
    assert NOT_A_ROUND in page.title.text()
    # The same votes: the same points as the round's.
    round_points = {r.label: r.points for r in page.found.board.systems}
    assert {r.label: r.points for r in page.preview.board.systems} == round_points

    qtbot.keyClick(page.table, PREVIEW_KEY)
    assert not page.previewing and page.round_shown is page.found
    assert window.round_actions.actions["export_csv"].isEnabled()

    # Votes after the round: the board opens on the preview again.
    assert window.open_family("big")
    vote(qtbot, window, 2)
    window.escape()
    window.show_board("big")
    assert page.previewing
    qtbot.waitUntil(lambda: page.preview is not None and page.preview.votes == 5, timeout=20_000)
    assert len(stored_rounds.rounds(window.ledger, "big")) == 1


def test_without_votes_the_board_shows_no_preview(qtbot, open_window, big_ledger):
    window = open_window(big_ledger)
    window.show_board("big")
    page = window.board
    assert not page.previewing and page.hint.isVisible()
    assert "No round" in page.hint.text()


def test_the_help_overlay_lists_the_preview_key(qtbot, open_window, big_ledger):
    window = open_window(big_ledger)
    text = window.overlay.label.text()
    assert "Board page" in text and "Preview of the votes so far (not a round)" in text
