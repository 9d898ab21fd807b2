"""A team's round on the board: the rater at the keyboard's own figures first, the
others' a key away."""

from __future__ import annotations

from PySide6.QtCore import Qt

from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.ui.board.board_page import BoardPage
from arena.ui.board.summary_panel import NEXT_RATER_KEY
from arena.ui.theme import LIGHT
from tests.rating.colleague import rated_by_colleague
from tests.rounds.test_raters_summary import _rater_votes


def _first_title(page: BoardPage) -> str:
    return page.summary.labels[0].text().split("</span>")[0].split(">")[-1]


def test_the_summary_shows_the_keyboard_rater_first_and_the_key_cycles(
    qtbot, open_window, tmp_path
):
    path = tmp_path / "l.sqlite"
    with Ledger.open(path) as ledger:
        family = rated_by_colleague(ledger, tmp_path)
        _rater_votes(ledger, family, range(24, 40))
        close_round(ledger, family, RoundSettings())
    window = open_window(path)
    window.families.select(family)
    window.show_board()
    qtbot.wait(20)
    page = window.board
    # The one at the keyboard (the window's rater; here the ledger's default) comes first,
    # though dana voted first.
    assert page.keyboard_rater() == (window.rater or "rater")
    assert _first_title(page) == "Rater rater (at the keyboard)"
    assert "16 votes" in page.summary.labels[0].text()
    page.table.setFocus()
    qtbot.keyClick(page.table, getattr(Qt.Key, f"Key_{NEXT_RATER_KEY}"))
    assert _first_title(page) == "Rater dana"
    assert "24 votes" in page.summary.labels[0].text()
    qtbot.keyClick(page.table, getattr(Qt.Key, f"Key_{NEXT_RATER_KEY}"))
    assert _first_title(page) == "Rater rater (at the keyboard)"


def test_a_round_of_one_rater_shows_no_rater_item(qtbot, tmp_path):
    with Ledger.open(tmp_path / "l.sqlite") as ledger:
        family = rated_by_colleague(ledger, tmp_path)
        close_round(ledger, family, RoundSettings())
        page = BoardPage(LIGHT)
        qtbot.addWidget(page)
        page.load(ledger, family)
        assert page.summary.rater is None
        assert not any("Rater dana" in label.text() for label in page.summary.labels)
