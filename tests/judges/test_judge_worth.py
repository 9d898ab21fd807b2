"""What a model judge is worth in rater votes (`arena judges show`): the prediction-powered
board's effective votes beyond the rater's own, as the round pooled with it records them."""

from __future__ import annotations

import pytest

from arena.cli.main import main
from arena.judges.comparison import judges_report
from arena.ledger import Ledger
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.rounds import pooled_ledger as pl
from tests.rounds.test_pooled import _echo


@pytest.fixture
def judged(tmp_path) -> Ledger:
    with Ledger.open(tmp_path / "worth.sqlite") as ledger:
        pl.build(ledger, tmp_path)
        pl.add_judges(ledger, tmp_path)
        pl.add_judge(ledger, tmp_path, "echo", _echo() + pl.llm(), kind="model")
        yield ledger


def test_a_judge_that_predicts_the_rater_is_worth_what_the_round_records(judged):
    rows = {row["judge"]: row for row in judges_report(judged, pl.FAMILY)["judges"]}
    # A person is a rater, not a predictor: no worth.
    assert "worth" not in rows["colleague"]
    # The LLM judged no item the rater voted on: nothing corrects it, it adds nothing.
    assert rows["llm"]["worth_lam"] == 0.0 and rows["llm"]["worth"]["value"] == 0.0
    echo = rows["echo"]["worth"]
    found = close_round(judged, pl.FAMILY, RoundSettings(with_judges=("echo",)))
    (entry,) = found.judges
    assert echo["count"] == pl.CASES
    assert rows["echo"]["worth_lam"] == pytest.approx(entry.lam, abs=1e-9)
    assert echo["value"] == pytest.approx(entry.effective_votes - pl.CASES, rel=1e-6)
    assert 0 < echo["low"] < echo["value"] < echo["high"]


def test_judges_show_prints_each_model_judges_worth(judged, capsys):
    capsys.readouterr()
    assert main(["--ledger", str(judged.path), "judges", "show", "--family", pl.FAMILY]) == 0
    text = capsys.readouterr().out
    assert "llm: worth +0 rater votes [+0, +0] beside the rater's 120 (λ 0)" in text
    assert "echo: worth +" in text and "colleague: worth" not in text
