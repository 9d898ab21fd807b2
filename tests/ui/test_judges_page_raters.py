"""The Judges page where several people voted and the one at the keyboard has not: the
others are read against the first to vote, and the page says so instead of calling those
votes yours."""

from __future__ import annotations

from PySide6.QtCore import Qt

from arena.ledger import Ledger
from arena.rating import raters
from tests.rating.colleague import rated_by_two


def test_where_you_have_not_voted_the_first_to_vote_is_named(qtbot, open_window, tmp_path):
    path = tmp_path / "team.sqlite"
    with Ledger.open(path) as ledger:
        rated_by_two(ledger, tmp_path)
    raters.remember(path, "kim")  # at the keyboard, no votes yet
    window = open_window(path)
    window.families.select("team")
    qtbot.keyClick(window.families.table, Qt.Key.Key_J)
    page = window.judges
    qtbot.waitUntil(lambda: not page.background.busy, timeout=20_000)
    assert page.subtitle.text().startswith(
        "dana (the first to vote: you have no votes here): 24 votes"
    )
    assert [row["judge"] for row in page.judges.rows] == ["lee"]
    assert "Krippendorff's α (ordinal; all raters and judges)" in page.alpha.text()
    assert "dana – lee" in page.alpha.text()
