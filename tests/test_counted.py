"""``arena.texts.counted``: a count with its noun in the number it takes, as the window and
the CLI print counts ("1 case in doubt", "2 flagged pairs")."""

from __future__ import annotations

from arena.gates.screening import FailureCounts
from arena.texts import counted


def test_one_takes_the_singular_every_other_count_the_plural():
    assert [counted(n, "vote") for n in (0, 1, 2)] == ["0 votes", "1 vote", "2 votes"]
    assert counted(1, "flagged pair") == "1 flagged pair"
    assert counted(1, "case in doubt", "cases in doubt") == "1 case in doubt"
    assert counted(3, "case in doubt", "cases in doubt") == "3 cases in doubt"
    # The number as written may differ from the count; the noun follows the count.
    assert counted(1200, "record", shown="1,200+") == "1,200+ records"
    assert counted(1, "case", shown="1") == "1 case"


def test_failing_verdicts_count_those_that_settle_and_name_the_others():
    assert FailureCounts(1, 0, 0).text() == "1 failing verdict"
    assert FailureCounts(0, 2, 1).text(1) == "0 failing verdicts, 2 in doubt on 1 case, 1 overruled"
    assert FailureCounts(3, 4, 0).text(2) == "3 failing verdicts, 4 in doubt on 2 cases"
