"""The Judges page gives each model judge's worth in rater votes; a person has none."""

from __future__ import annotations

from PySide6.QtCore import Qt

from arena.ledger import Ledger
from arena.ui.judges.judge_tables import heading
from tests.rounds import pooled_ledger as pl
from tests.rounds.test_pooled import _echo


def test_the_judges_page_shows_each_model_judges_worth(qtbot, open_window, tmp_path):
    path = tmp_path / "worth.sqlite"
    with Ledger.open(path) as ledger:
        pl.build(ledger, tmp_path)
        pl.add_judges(ledger, tmp_path)
        pl.add_judge(ledger, tmp_path, "echo", _echo() + pl.llm(), kind="model")
    window = open_window(path)
    window.families.select(pl.FAMILY)
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.pages.currentWidget()
    qtbot.waitUntil(lambda: bool(page.judges.rows), timeout=20_000)
    table = page.judges
    column = table.columns.index("worth")
    assert heading("worth") == "Worth (rater votes)"
    by_judge = {row["judge"]: table.cell(row, column) for row in table.rows}
    assert by_judge["colleague"] == "—" and by_judge["llm"].startswith("0")
    assert float(by_judge["echo"].split("\n")[0]) > 0
