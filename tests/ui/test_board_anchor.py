"""The window's board names a stand-in anchor, the tie that chose it, and why the
reference is not ranked."""

from __future__ import annotations

from arena.ledger import Ledger
from arena.rounds.model import RoundSettings
from arena.ui.board import close_round_dialog
from tests.bundle.test_anchor_fallback import rst_family


def test_a_reference_that_never_loses_without_penalty_is_listed_with_why(
    qtbot, open_window, tmp_path, monkeypatch
):
    path = tmp_path / "anchor.sqlite"
    with Ledger.open(path) as ledger:
        rst_family(ledger, tmp_path)
    monkeypatch.setattr(
        close_round_dialog, "ask_round_settings", lambda *_: RoundSettings(penalty=0.0)
    )
    window = open_window(path)
    window.families.select("f")
    assert window.round_actions.close_round(), window.ops.last_error
    page = window.board
    assert [r.label for r in page.model.rows] == ["S", "T"]
    assert "R — never loses to the ranked systems" in page.unranked.text()
    notes = page.notes.text()
    assert "Points are relative to S = 1000 (standing in for the family's reference" in notes
    assert "both systems that can be ranked have the same comparison weight (10)" in notes
