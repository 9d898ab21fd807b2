"""The close-round dialog offers a team's raters, everyone checked: the same settings as
`arena round close` with or without `--raters`."""

from __future__ import annotations

from arena.rounds.closing import close_round, family_raters
from arena.rounds.model import RoundSettings
from arena.ui.board.close_round_dialog import CloseRoundDialog
from tests.rating.colleague import rated_by_colleague
from tests.rounds.test_raters_summary import _rater_votes


def test_every_rater_is_checked_and_a_subset_fits_only_theirs(qtbot, ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path)
    _rater_votes(ledger, family, range(24, 40))
    dialog = CloseRoundDialog(family, None, (), family_raters(ledger, family))
    qtbot.addWidget(dialog)
    assert list(dialog.raters) == ["dana", "rater"]
    # Everyone checked: the default round, which names no raters.
    assert dialog.settings() == RoundSettings()
    dialog.raters["dana"].setChecked(False)
    assert dialog.settings().raters == ("rater",)
    found = close_round(ledger, family, dialog.settings())
    assert [r.rater for r in found.summary.raters or []] == ["rater"]
    # No one checked: nothing to fit, and Close round waits.
    dialog.raters["rater"].setChecked(False)
    assert not dialog.ok.isEnabled()


def test_a_family_of_one_rater_is_offered_no_choice(qtbot, ledger, tmp_path):
    family = rated_by_colleague(ledger, tmp_path, actor="rater")
    dialog = CloseRoundDialog(family, None, (), family_raters(ledger, family))
    qtbot.addWidget(dialog)
    assert dialog.raters == {}
