"""`round show` of a team's round: each rater's line, the one at the keyboard first."""

from __future__ import annotations

import json

from arena.cli.main import main
from arena.ledger import Ledger
from tests.rating.colleague import rated_by_colleague
from tests.rounds.test_raters_summary import _rater_votes


def _show(capsys, path, *args: str) -> str:
    assert main(["--ledger", str(path), "round", "show", *args]) == 0
    return capsys.readouterr().out


def test_round_show_prints_each_raters_figures_keyboard_first(capsys, ledger_path, tmp_path):
    with Ledger.open(ledger_path) as ledger:
        family = rated_by_colleague(ledger, tmp_path)
        _rater_votes(ledger, family, range(24, 40))
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", family]) == 0
    capsys.readouterr()
    text = _show(capsys, ledger_path, "--family", family)
    lines = text.splitlines()
    start = lines.index("raters, each on their own votes:")
    rater, dana = lines[start + 1 : start + 3]
    # dana voted first, but the one at the keyboard is shown first.
    assert rater.startswith("  rater (at the keyboard): 16 votes (weight 16); ")
    assert dana.startswith("  dana: 24 votes (weight 24); rater agreement — over 0 repeats")
    shown = json.loads(_show(capsys, ledger_path, "--family", family, "--json"))
    assert [r["rater"] for r in shown["summary"]["raters"]] == ["dana", "rater"]


def test_a_round_of_one_rater_prints_no_rater_lines(capsys, ledger_path, tmp_path):
    with Ledger.open(ledger_path) as ledger:
        family = rated_by_colleague(ledger, tmp_path)
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", family]) == 0
    assert "raters, each on their own votes" not in capsys.readouterr().out


def test_round_show_gives_the_agreement_between_raters_as_judges_get_it(
    capsys, ledger_path, tmp_path
):
    from arena.judges.between_raters import between_raters
    from arena.ledger.judge_store import verdicts_by_rater

    with Ledger.open(ledger_path) as ledger:
        family = rated_by_colleague(ledger, tmp_path)
        _rater_votes(ledger, family, range(0, 16))  # on cases dana voted too
        expected = between_raters(verdicts_by_rater(ledger, family), seed=0, reference="rater")
    assert expected is not None and expected["pairs"][0]["overlap"] > 0
    assert main(["--ledger", str(ledger_path), "round", "close", "--family", family]) == 0
    capsys.readouterr()
    shown = json.loads(_show(capsys, ledger_path, "--family", family, "--json"))
    # The round's votes are every vote in force here: the same figures as the judges'.
    assert shown["between_raters"] == expected
    text = _show(capsys, ledger_path, "--family", family)
    assert "between raters, on the items both voted" in text
    assert "Krippendorff's α (ordinal) over 2 raters" in text
