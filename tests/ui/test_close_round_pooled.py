"""The close-round dialog offers a family's judges to pool, none checked: closing from the
window gives the round `arena round close` gives with the same `--with-judges`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QGroupBox, QLabel

from arena.cli.main import main
from arena.ledger import Ledger
from arena.ledger.judge_store import judges
from arena.ledger.round_store import rounds as stored_rounds
from arena.rounds.closing import find_round
from arena.rounds.model import RoundSettings
from arena.ui.board.close_round_dialog import CloseRoundDialog
from tests.conftest import copy_ledger
from tests.rounds import pooled_ledger as pl

# What two rounds closed on the same ledger may differ in: each round's id and closing time.
VOLATILE = ("round", "closed_at")


@pytest.fixture(scope="module")
def judged_template(tmp_path_factory) -> Path:
    """The rater's votes and two judges: the colleague (human), the LLM (model)."""
    folder = tmp_path_factory.mktemp("judged")
    path = folder / "judged.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, folder)
        pl.add_judges(ledger, folder)
    return path


@pytest.fixture
def judged(judged_template, tmp_path) -> tuple[Path, Path]:
    """The judged ledger and a copy of it, for the same round closed by the CLI."""
    path = copy_ledger(judged_template, tmp_path / "window.sqlite")
    return path, copy_ledger(judged_template, tmp_path / "cli.sqlite")


def _in_dialog(act: Callable[[CloseRoundDialog], None]) -> dict:
    """Run ``act`` on the close-round dialog once it is shown (modal), then press Enter on
    it; what it saw is kept for the test."""
    seen: dict = {}

    def step() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, CloseRoundDialog):
            QTimer.singleShot(20, step)
            return
        seen["dialog"] = dialog
        seen["checks"] = [c.text() for c in dialog.findChildren(QCheckBox)]
        try:
            act(dialog)
        finally:  # Enter presses the default button, Close round (a failed act ends too)
            QTest.keyClick(dialog, Qt.Key.Key_Return)

    QTimer.singleShot(0, step)
    return seen


def _round(path: Path, family: str = pl.FAMILY) -> dict:
    with Ledger.open(path, readonly=True) as ledger:
        found = find_round(ledger, None, family)
    assert found is not None
    return {k: v for k, v in found.to_json().items() if k not in VOLATILE}


def _cli_close(path: Path, *options: str) -> None:
    assert main(["--ledger", str(path), "round", "close", "--family", pl.FAMILY, *options]) == 0


def test_the_dialog_lists_the_judges_unchecked_and_checks_them_by_keys(qtbot, judged):
    path, _ = judged
    with Ledger.open(path, readonly=True) as ledger:
        dialog = CloseRoundDialog(pl.FAMILY, None, judges(ledger, pl.FAMILY))
    qtbot.addWidget(dialog)
    with qtbot.waitActive(dialog):
        dialog.show()
        dialog.activateWindow()
    assert [c.text() for c in dialog.judges.values()] == [
        f"colleague — human, {pl.CASES} verdicts",
        f"llm — model, {4 * pl.CASES} verdicts",
    ]
    assert not any(c.isChecked() for c in dialog.judges.values())
    assert dialog.settings() == RoundSettings()  # the default round is the rater's alone
    group = dialog.findChild(QGroupBox)
    note = " ".join(label.text() for label in group.findChildren(QLabel))
    assert group.title() == "Pool with &judges"
    assert "with none checked (the default) the board is the rater's alone" in note
    assert "weigh what the rater's do" in note
    # Alt+J goes to the first judge, Tab to the next, Space checks it.
    qtbot.keyClick(dialog, Qt.Key.Key_J, Qt.KeyboardModifier.AltModifier)
    assert dialog.focusWidget() is dialog.judges["colleague"]
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.judges["llm"]
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Space)
    assert dialog.settings() == RoundSettings(with_judges=("llm",))


def test_closing_with_no_judge_checked_is_the_clis_default_close(qtbot, open_window, judged):
    path, copy = judged
    window = open_window(path)
    window.families.select(pl.FAMILY)
    seen = _in_dialog(lambda _dialog: None)
    assert window.round_actions.close_round(), window.ops.last_error
    assert len(seen["checks"]) == 2
    window.close()
    _cli_close(copy)
    assert json.dumps(_round(path), sort_keys=True) == json.dumps(_round(copy), sort_keys=True)
    with Ledger.open(path, readonly=True) as ledger:
        assert [r["pooled"] for r in stored_rounds(ledger, pl.FAMILY)] == [0]


def test_closing_with_one_judge_checked_pools_it_as_the_cli_does(qtbot, open_window, judged):
    path, copy = judged
    window = open_window(path)
    window.families.select(pl.FAMILY)
    _in_dialog(lambda dialog: dialog.judges["llm"].setChecked(True))
    assert window.round_actions.close_round(), window.ops.last_error
    # The new round is shown, marked pooled in the round list and the title.
    page = window.board
    assert page.found.settings.with_judges == ("llm",)
    assert "· pooled with judges" in page.round_box.itemText(0)
    assert page.board_text().title.endswith("pooled with judges llm")
    window.close()
    _cli_close(copy, "--with-judges", "llm")
    shown, cli = _round(path), _round(copy)
    assert [j["judge"] for j in shown["settings"]["with_judges"]] == ["llm"]
    assert json.dumps(shown, sort_keys=True) == json.dumps(cli, sort_keys=True)


def test_a_family_without_judges_is_offered_none(qtbot, open_window, board_ledger):
    window = open_window(board_ledger)
    window.families.select("prose")
    seen = _in_dialog(lambda _dialog: None)
    assert window.round_actions.close_round(), window.ops.last_error
    assert seen["checks"] == [] and seen["dialog"].findChild(QGroupBox) is None
    assert window.board.found.settings.with_judges == ()
