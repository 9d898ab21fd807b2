"""Closing a round from the window: the key, the settings dialog, progress, failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from arena.errors import ArenaError
from arena.ledger.round_store import rounds as stored_rounds
from arena.rounds import closing
from arena.rounds.model import RoundSettings
from arena.ui.board import close_round_dialog
from arena.ui.board.close_round_dialog import CloseRoundDialog
from arena.ui.keys import BOARD_KEY, CLOSE_ROUND_KEY, default_key_map, problems

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def round_settings(monkeypatch):
    """The settings the dialog answers with (None: cancelled); records the family asked."""
    asked: list[str] = []
    answer = {"settings": RoundSettings(penalty=0.02)}

    def ask(_parent, family, _judges=(), _raters=()):
        asked.append(family)
        return answer["settings"]

    monkeypatch.setattr(close_round_dialog, "ask_round_settings", ask)
    return answer, asked


def test_the_close_round_key_closes_the_selected_family_and_shows_its_board(
    qtbot, open_window, board_ledger, round_settings, monkeypatch
):
    _, asked = round_settings
    steps = []
    real = closing.close_round

    def counting(ledger, family, settings, progress=None, **options):
        return real(
            ledger, family, settings, progress=lambda n: (steps.append(n), progress(n)), **options
        )

    monkeypatch.setattr(closing, "close_round", counting)
    window = open_window(board_ledger)
    window.families.select("prose")
    qtbot.keyClick(window, Qt.Key.Key_R, CTRL_SHIFT)
    stored = stored_rounds(window.ledger, "prose")
    assert asked == ["prose"] and len(stored) == 1
    assert window.pages.currentWidget() is window.board
    assert window.board.found.round_id == stored[0]["round_id"]
    assert window.board.found.settings.penalty == 0.02
    # The gates re-ran over every output in force, and the progress dialog heard of each.
    outputs = next(r["outputs"] for r in window.families.model.rows if r["name"] == "prose")
    assert 0 < sum(steps) <= outputs
    assert "round" in window.status.text()


def test_a_failed_close_is_shown_as_an_error_and_stores_nothing(
    qtbot, open_window, board_ledger, round_settings, monkeypatch
):
    def refuse(*_args, **_kwargs):
        raise ArenaError("the ledger is open read-only")

    monkeypatch.setattr(closing, "close_round", refuse)
    window = open_window(board_ledger)
    window.families.select("prose")
    assert window.round_actions.close_round() is False
    assert window.ops.last_error == "the ledger is open read-only"
    boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "arena-error"]
    assert boxes and "read-only" in boxes[-1].text()
    assert stored_rounds(window.ledger, "prose") == []
    assert window.pages.currentWidget() is window.families


def test_a_cancelled_dialog_closes_nothing(qtbot, open_window, board_ledger, round_settings):
    answer, _ = round_settings
    answer["settings"] = None
    window = open_window(board_ledger)
    window.families.select("patches")
    assert window.round_actions.close_round() is False
    assert stored_rounds(window.ledger, "patches") == []


def test_the_dialog_starts_on_the_default_settings_and_is_driven_by_keys(qtbot):
    dialog = CloseRoundDialog("prose")
    qtbot.addWidget(dialog)
    assert dialog.settings() == RoundSettings()
    assert not dialog.cap.isEnabled()
    dialog.weighting.setFocus()
    qtbot.keyClick(dialog.weighting, Qt.Key.Key_Down)
    assert dialog.cap.isEnabled()
    dialog.penalty.selectAll()
    qtbot.keyClicks(dialog.penalty, "0.5")
    dialog.threshold.selectAll()
    qtbot.keyClicks(dialog.threshold, "4")
    assert dialog.settings() == RoundSettings(
        weighting="ledger", cap=1000.0, penalty=0.5, threshold=4
    )


def test_the_board_keys_take_no_platform_shortcut_and_no_rater_key():
    platform = {
        seq.toString() for key in QKeySequence.StandardKey for seq in QKeySequence.keyBindings(key)
    }
    assert not {BOARD_KEY, CLOSE_ROUND_KEY} & platform
    assert not {BOARD_KEY, CLOSE_ROUND_KEY} & {k for ks in default_key_map().values() for k in ks}
    remapped = {**default_key_map(), "sync": [BOARD_KEY]}
    assert any("Board key" in p for p in problems(remapped))


def test_the_window_guide_documents_the_board_and_its_keys():
    text = (Path(__file__).resolve().parents[2] / "docs" / "window.md").read_text("utf-8")
    guide = " ".join(text.split())  # sentences wrap anywhere
    for text in (
        "## The board",
        "## Closing a round",
        "### Exporting the board",
        f"**{BOARD_KEY}**",
        f"`{CLOSE_ROUND_KEY}`",
        "Export board as CSV…",
        "Export board as image…",
        "not enough sessions",
        "(all)",
    ):
        assert text in guide, text


@pytest.fixture
def untested_ledger(tmp_path) -> Path:
    """A tests family with one output that has no test result."""
    from arena.ledger import Ledger
    from tests.tested_helpers import make_tests_family

    path = tmp_path / "tested.sqlite"
    with Ledger.open(path) as ledger:
        make_tests_family(ledger, tmp_path, {("t1", "a"): "passed", ("t1", "b"): None})
    return path


def test_closing_a_tests_family_with_untested_outputs_asks_first(
    qtbot, open_window, untested_ledger, round_settings, monkeypatch
):
    from arena.ui import dialogs

    answers, asked = [False, True], []

    def confirm(_parent, _title, text, _action):
        asked.append(text)
        return answers.pop(0)

    monkeypatch.setattr(dialogs, "confirm", confirm)
    window = open_window(untested_ledger)
    window.families.select("t")
    assert not window.round_actions.close_round()
    assert stored_rounds(window.ledger, "t") == [] and "1 outputs of t" in asked[0]
    assert window.round_actions.close_round()
    board = window.board.found.board
    assert [r.untried for r in board.systems if r.label == "b"] == [1]


def test_rating_a_tests_family_with_untested_outputs_says_so(open_window, untested_ledger):
    window = open_window(untested_ledger, "t")
    notice = window.rating.notice
    assert notice.isVisible() and "1 outputs of this tests family" in notice.text()
