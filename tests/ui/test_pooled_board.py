"""The window's board labels a round pooled with judges, in the round list and its title."""

from __future__ import annotations

from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from arena.ui.board.summary_panel import summary_items
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
    items = {item.title: item for item in summary_items(page.found, page.kind)}
    assert items["Pooled with judges"].figure == "colleague, llm"
    n = 4 * pl.CASES
    sentence = items["Pooled with judges"].sentence
    # A person is pooled as votes; the model judge, who judged no item the rater voted on,
    # predicts nothing the votes can check: lam 0, worth the rater's own votes.
    assert f"colleague: {pl.CASES} verdicts, {pl.CASES} fitted at weight 1." in sentence
    assert (
        f"llm: {n} verdicts, prediction-powered at lam 0: worth {pl.CASES} rater votes "
        f"(95% {pl.CASES}–{pl.CASES})." in sentence
    )
    page.choose_round(plain.round_id)
    assert "pooled" not in page.board_text().title + page.board_text().subtitle
    assert "Pooled with judges" not in {i.title for i in summary_items(page.found, page.kind)}
