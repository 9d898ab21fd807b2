"""Where the one person who voted is not the one at the keyboard (the new user who brought
a colleague's votes in and has cast none), the judges report names whose votes it reads
instead of calling them yours; where the one who voted is you, it reads as it always has."""

from __future__ import annotations

from arena.cli.main import main
from arena.judges.comparison import judges_report
from tests.rating.colleague import rated_by_colleague


def test_a_colleagues_votes_alone_are_named_as_theirs(ledger, tmp_path, capsys):
    rated_by_colleague(ledger, tmp_path)  # dana's 24 votes, none by anyone else
    report = judges_report(ledger, "team", rater="lee")
    assert report["rater"] == {"verdicts": 24, "items": 24, "name": "dana"}
    assert "between_raters" not in report  # one rater: no one to agree with
    assert judges_report(ledger, "team", rater="dana")["rater"] == {"verdicts": 24, "items": 24}
    assert "name" not in judges_report(ledger, "team")["rater"]
    capsys.readouterr()
    assert main(["--ledger", str(ledger.path), "judges", "show", "--family", "team"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rater dana (the first to vote: rater has no votes here): 24 votes")
