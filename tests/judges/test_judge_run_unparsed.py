"""A run judge's unparsed replies, counted in `arena judges show` (text and --json); an
imported judge has no such count."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from arena.ledger import Ledger, judge_runs
from tests.collecting.helpers import KEY
from tests.judges.judge_run_helpers import KEY_ENV, judged_and_voted

CASES = 4


@pytest.fixture
def family(ledger_path, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    judged_and_voted(ledger_path, tmp_path, cases=CASES)
    with Ledger.open(ledger_path, readonly=True) as ledger:
        replies = judge_runs.replies(ledger, "fam", "gpt-judge")
    # Another model judge, imported: its verdicts are a file's, with nothing unparsed.
    lines = [
        {"case_id": r.case_id, "left_system": r.left_system, "right_system": r.right_system,
         "winner": "right", "game": r.game}
        for r in replies
    ]  # fmt: skip
    verdicts = tmp_path / "other.jsonl"
    verdicts.write_text("".join(json.dumps(line) + "\n" for line in lines))
    args = ["judges", "import", str(verdicts), "--family", "fam", "--judge", "other"]
    assert main(["--ledger", str(ledger_path), *args, "--kind", "model"]) == 0
    return ledger_path


def test_show_counts_each_run_judges_unparsed_replies(family, capsys):
    capsys.readouterr()
    show = ["--ledger", str(family), "judges", "show", "--family", "fam"]
    assert main([*show, "--json"]) == 0
    rows = {j["judge"]: j for j in json.loads(capsys.readouterr().out)["judges"]}
    with Ledger.open(family, readonly=True) as ledger:
        assert judge_runs.unparsed_counts(ledger, "fam") == {"gpt-judge": CASES}
    assert rows["gpt-judge"]["unparsed"] == CASES  # each item's second order
    assert rows["gpt-judge"]["verdicts"] == CASES
    keys = list(rows["gpt-judge"])
    assert keys[keys.index("verdicts") + 1] == "unparsed"
    assert "unparsed" not in rows["other"]  # imported: no replies to count
    assert main(show) == 0
    out = capsys.readouterr().out
    assert f"gpt-judge: {CASES} replies named no verdict (unparsed)" in out
    assert out.count("named no verdict") == 1
