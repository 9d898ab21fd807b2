"""The window asks who is voting once per ledger where a colleague has voted, remembers the
answer, shows it in the status line, and votes under that name."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from arena.errors import BadInput
from arena.ledger import Ledger, voting
from arena.rating import raters
from arena.ui import rater_dialog
from arena.ui.main_window import MainWindow
from tests.rating.colleague import rated_by_colleague


@pytest.fixture
def team_ledger(tmp_path: Path) -> Path:
    """A ledger whose family ``team`` holds 24 votes by the colleague "dana"."""
    path = tmp_path / "team.sqlite"
    with Ledger.open(path) as ledger:
        rated_by_colleague(ledger, tmp_path)
    return path


@pytest.fixture
def asked(monkeypatch):
    """The dialog, answered by the test: each question recorded, ``answers`` given in turn."""
    questions: list[tuple[list[str], str | None]] = []
    answers: list[str | None] = []

    def ask(_parent, known, current=None):
        questions.append((known, current))
        return answers.pop(0)

    monkeypatch.setattr(rater_dialog, "ask_rater", ask)
    return questions, answers


def test_asked_once_remembered_and_shown(qtbot, open_window, team_ledger, asked):
    questions, answers = asked
    answers.append("lee")
    window = open_window(team_ledger, "team")
    assert questions == [(["dana"], None)]
    assert window.rater == "lee" and raters.remembered(team_ledger) == "lee"
    qtbot.keyClick(window.rating.pair_view, Qt.Key.Key_1)
    (mine,) = [v for v in voting.votes_in_force(window.ledger, "team") if v.actor == "lee"]
    assert window.rating.session.session.actor == "lee"
    qtbot.waitUntil(lambda: "1 vote of yours" in window.status.text())
    text = window.status.text()
    assert "voting as lee" in text and "25/120 pairs voted by 2 raters" in text
    window.close()
    again = open_window(team_ledger, "team")  # another window, the same ledger: no question
    assert len(questions) == 1 and again.rater == "lee"


def test_a_new_ledger_asks_nothing(qtbot, open_window, ui_ledger, asked):
    questions, _ = asked
    window = open_window(ui_ledger, "prose")
    assert questions == [] and window.rater == raters.DEFAULT_RATER
    qtbot.waitUntil(lambda: "pairs voted" in window.status.text())
    assert "voting as" not in window.status.text()  # one rater: the line as it was


def test_cancel_keeps_the_window_but_rating_waits_for_a_name(
    qtbot, open_window, team_ledger, asked
):
    questions, answers = asked
    answers.extend([None, "kim"])
    window = open_window(team_ledger)
    assert not window.open_family("team")
    assert window.pages.currentWidget() is window.families and window.rater is None
    assert raters.remembered(team_ledger) is None
    assert window.open_family("team") and window.rating.session.actor == "kim"
    assert len(questions) == 2


def test_the_rater_named_on_the_command_line_overrides(
    qtbot, make_settings, team_ledger, asked, clock
):
    questions, _ = asked
    raters.remember(team_ledger, "lee")
    window = MainWindow(make_settings(), clock=clock, rater="kim")
    qtbot.addWidget(window)
    assert window.open_ledger(team_ledger) and window.open_family("team")
    assert questions == [] and window.rating.session.actor == "kim"
    assert raters.remembered(team_ledger) == "lee"  # named for this run, not remembered
    window.close()
    with pytest.raises(BadInput, match="settler"):
        MainWindow(make_settings(), clock=clock, rater="settler")


def test_switch_rater_goes_on_under_the_new_name(qtbot, open_window, team_ledger, asked):
    questions, answers = asked
    answers.extend(["lee", "kim"])
    window = open_window(team_ledger, "team")
    qtbot.keyClick(window.rating.pair_view, Qt.Key.Key_1)
    qtbot.keyClick(window.rating.pair_view, Qt.Key.Key_W)
    assert questions[-1] == (["dana", "lee"], "lee")
    assert window.rater == "kim" and raters.remembered(team_ledger) == "kim"
    qtbot.keyClick(window.rating.pair_view, Qt.Key.Key_2)
    by = voting.votes_by_actor(window.ledger, "team")
    assert by == {"dana": 24, "lee": 1, "kim": 1}
    assert window.rating.session.actor == "kim"
