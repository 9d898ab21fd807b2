"""The window's board labels a round pooled with judges, in the round list and its title."""

from __future__ import annotations

from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.rounds import pooled_ledger as pl


def test_a_pooled_round_is_labelled_pooled_and_the_raters_is_not(open_window, tmp_path):
    path = tmp_path / "pooled.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, tmp_path)
        pl.add_judges(ledger, tmp_path)
        plain = close_round(ledger, pl.FAMILY, RoundSettings())
        close_round(ledger, pl.FAMILY, RoundSettings(with_judges=("llm", "colleague")))
    window = open_window(path)
    window.show_board(pl.FAMILY)
    page = window.board
    listed = [page.round_box.itemText(i) for i in range(page.round_box.count())]
    assert "· pooled with judges" in listed[0] and "pooled" not in listed[1]
    shown = page.board_text()
    assert shown.title == "p — leaderboard · pooled with judges colleague, llm"
    assert "the rater's votes fitted with these judges' verdicts" in shown.subtitle
    page.choose_round(plain.round_id)
    assert "pooled" not in page.board_text().title + page.board_text().subtitle
