"""The board's summary panel shows split-half τ within sessions beside the session split."""

from __future__ import annotations

from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.ui.board.summary_panel import SummaryPanel, summary_items
from arena.ui.theme import LIGHT
from tests.rounds.test_within_session import one_long_sitting


def test_a_single_sitting_shows_the_within_session_figure_labelled(qtbot, tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        one_long_sitting(ledger, tmp_path)
        found = close_round(ledger, "f", RoundSettings())
    items = {item.title: item for item in summary_items(found, "votes")}
    assert items["Split-half τ"].figure == "—"
    within = items["Split-half τ within sessions"]
    assert within.figure == f"{found.summary.within_session_tau:.2f}"
    assert "odd- and the even-numbered votes of each session" in within.sentence
    assert "reads higher" in within.sentence
    panel = SummaryPanel(LIGHT)
    qtbot.addWidget(panel)
    panel.show_round(found, "votes", category=None)
    shown = " ".join(label.text() for label in panel.labels)
    assert "Split-half τ within sessions" in shown and within.figure in shown


def test_without_enough_votes_the_panel_says_why(qtbot, tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        one_long_sitting(ledger, tmp_path, votes=30)
        found = close_round(ledger, "f", RoundSettings())
    within = {i.title: i for i in summary_items(found, "votes")}["Split-half τ within sessions"]
    assert within.figure == "—" and "15 odd- and 15 even-numbered votes" in within.sentence
