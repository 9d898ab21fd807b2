"""The window's pair choice (the family's, a recorded setting) and its suggestion to stop."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt

from arena.intake.families import set_family
from arena.intake.family_settings import FamilySettings
from arena.intake.outputs import import_file
from arena.ledger import Ledger
from tests.ui.conftest import SYSTEMS, write_family

SETTLED = "unlikely to change the order"


def _ledger(tmp_path: Path) -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "choice.sqlite"
    with Ledger.open(path) as ledger:
        family = write_family(tmp_path / "f.jsonl", "f", systems=SYSTEMS[:3], cases=12)
        import_file(ledger, family, family="f", fmt="native")
    return path


def test_the_session_uses_the_familys_pair_choice(open_window, tmp_path):
    # A family made now chooses adaptively; a recorded change holds from the next session.
    path = _ledger(tmp_path)
    assert open_window(path, "f").rating.session.pair_choice == "adaptive"
    other = _ledger(tmp_path / "other")
    with Ledger.open(other) as ledger:
        set_family(ledger, "f", FamilySettings(pairs="coverage"))
    assert open_window(other, "f").rating.session.pair_choice == "coverage"


def test_the_status_line_suggests_stopping_once_the_order_is_settled(qtbot, open_window, tmp_path):
    window = open_window(_ledger(tmp_path), "f")
    page = window.rating

    def rank(output) -> int:  # the text names its system (``write_family``)
        return next(i for i, s in enumerate(SYSTEMS[:3]) if f"{s}-{i}" in output.text)

    settled_after = None
    for vote in range(1, 34):
        pair = page.current_pair()
        left_wins = rank(pair.left) < rank(pair.right)
        qtbot.keyClick(window, Qt.Key.Key_1 if left_wins else Qt.Key.Key_2)
        qtbot.waitUntil(lambda n=vote: page.progress[0] == n)  # painted, then counted
        if SETTLED in page.status_text():
            settled_after = settled_after or vote
        else:
            assert settled_after is None  # the suggestion does not come and go
    # Not before every system pair has a vote, and long before the family is done.
    assert settled_after is not None and 3 < settled_after < 30


def test_the_status_line_tells_about_how_many_votes_are_left_until_then(
    qtbot, open_window, tmp_path
):
    window = open_window(_ledger(tmp_path), "f")
    page = window.rating
    left = re.compile(r"about ([\d,]+) more votes until the order is unlikely to change")

    def rank(output) -> int:
        return next(i for i, s in enumerate(SYSTEMS[:3]) if f"{s}-{i}" in output.text)

    told = []
    for vote in range(1, 34):
        pair = page.current_pair()
        qtbot.keyClick(window, Qt.Key.Key_1 if rank(pair.left) < rank(pair.right) else Qt.Key.Key_2)
        qtbot.waitUntil(lambda n=vote: page.progress[0] == n)
        status = page.status_text()
        found = left.search(status)
        if vote < 6:  # a system pair has no vote yet, or under two votes a system pair
            assert "cannot tell yet" in status and found is None
        elif SETTLED in status:
            assert found is None
            break
        elif found is not None:
            told.append(int(found.group(1).replace(",", "")))
            voted, total = page.progress
            # The session's steadied figure: never more than the pairs left.
            assert told[-1] == page.session.votes_left().votes and 0 < told[-1] <= total - voted
            if len(told) > 1:
                assert abs(told[-1] - told[-2]) <= 0.2 * told[-2]
    assert told
