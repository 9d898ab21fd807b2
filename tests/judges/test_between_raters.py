"""Agreement between the raters of one board: κ for each pair as counted by hand, α as the
krippendorff package computes it, and `arena judges show` listing the other raters beside
the judges, compared with the one at the keyboard."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.cli.main import main
from arena.judges.between_raters import between_raters
from arena.ledger.judge_store import JudgeVerdict
from tests.conftest import REALDATA
from tests.judges.pandalm_files import write_files
from tests.rating.colleague import rated_by_two

CODE = {"left": -1, "tie": 0, "right": 1}


def hand_kappa(first: list[int], second: list[int]) -> float:
    """Cohen's κ counted by hand: observed agreement against chance from the margins."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    chance = sum(first.count(k) * second.count(k) for k in (-1, 0, 1)) / n**2
    return (observed - chance) / (1 - chance)


def _verdicts(name: str, answers: list[str]) -> list[JudgeVerdict]:
    # Item i: systems a and b on case i, shown a on the left.
    return [JudgeVerdict(name, f"c{i}", "a", "b", w, 1) for i, w in enumerate(answers) if w]


def test_kappa_and_alpha_equal_a_hand_count_and_the_krippendorff_package():
    from krippendorff import alpha

    rng = np.random.default_rng(7)
    answers = {
        name: [str(rng.choice(["left", "right", "tie", "left"])) for _ in range(60)]
        for name in ("ann", "bo", "cy")
    }
    answers["cy"][:10] = [""] * 10  # cy voted the last 50 only
    block = between_raters({n: _verdicts(n, a) for n, a in answers.items()}, seed=0)
    assert block is not None and block["raters"] == ["ann", "bo", "cy"]
    for pair in block["pairs"]:
        first, second = pair["raters"]
        both = [i for i in range(60) if answers[first][i] and answers[second][i]]
        a = [CODE[answers[first][i]] for i in both]
        b = [CODE[answers[second][i]] for i in both]
        assert pair["overlap"] == len(both)
        assert pair["kappa"]["value"] == pytest.approx(hand_kappa(a, b), abs=1e-6)
        assert pair["kappa"]["low"] <= pair["kappa"]["value"] <= pair["kappa"]["high"]
        assert pair["agreement_with_ties"]["value"] == pytest.approx(np.mean(np.equal(a, b)))
    table = [[CODE[w] if w else np.nan for w in answers[n]] for n in ("ann", "bo", "cy")]
    expected = alpha(reliability_data=np.array(table), level_of_measurement="ordinal")
    assert block["alpha"]["value"] == pytest.approx(expected, abs=1e-6)


def test_one_rater_has_no_one_to_agree_with():
    assert between_raters({"ann": _verdicts("ann", ["left"]), "bo": []}) is None


def _show(capsys, ledger: str, *args: str):
    capsys.readouterr()
    assert main(["--ledger", ledger, "judges", "show", "--family", "team", *args]) == 0
    return capsys.readouterr().out


def test_judges_show_lists_the_other_raters_beside_the_judges(ledger, tmp_path, capsys):
    rated_by_two(ledger, tmp_path)
    path = str(ledger.path)
    report = json.loads(_show(capsys, path, "--rater", "lee", "--json"))
    assert report["rater"]["name"] == "lee" and report["rater"]["verdicts"] == 30
    (dana,) = report["judges"]
    assert (dana["judge"], dana["kind"], dana["verdicts"]) == ("dana", "rater", 24)
    assert report["between_raters"]["raters"] == ["dana", "lee"]
    (pair,) = report["between_raters"]["pairs"]
    assert pair["overlap"] == dana["overlap"]
    assert pair["kappa"]["value"] == pytest.approx(dana["kappa"]["value"], nan_ok=True)
    # Compared with dana instead: lee is the row.
    swapped = json.loads(_show(capsys, path, "--rater", "dana", "--json"))
    assert swapped["rater"]["name"] == "dana" and swapped["judges"][0]["judge"] == "lee"
    text = _show(capsys, path, "--rater", "lee")
    assert "rater lee: 30 votes" in text and "rater: votes on the board" in text
    assert "between raters, on the items both voted" in text and "dana – lee" in text


TESTSET = REALDATA / "pandalm" / "testset-v1.json"


@pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
def test_pandalms_three_annotators_as_three_raters(tmp_path, capsys):
    from krippendorff import alpha

    ledger = str(tmp_path / "ledger.sqlite")
    for n in (1, 2, 3):
        outputs, votes = write_files(TESTSET, tmp_path / f"a{n}", annotator=n)
        if n == 1:
            assert main(["--ledger", ledger, "import", str(outputs), "--family", "team",
                         "--create"]) == 0  # fmt: skip
        assert main(["--ledger", ledger, "import-votes", str(votes), "--family", "team"]) == 0
    report = json.loads(_show(capsys, ledger, "--rater", "annotator1", "--json"))
    assert [j["judge"] for j in report["judges"]] == ["annotator2", "annotator3"]
    assert {j["kind"] for j in report["judges"]} == {"rater"}
    items = json.loads(TESTSET.read_text(encoding="utf-8"))
    labels = [[{0: 0, 1: -1, 2: 1}[i[f"annotator{n}"]] for i in items] for n in (1, 2, 3)]
    block = report["between_raters"]
    assert block["raters"] == ["annotator1", "annotator2", "annotator3"]
    for pair in block["pairs"]:
        first, second = (int(name[-1]) - 1 for name in pair["raters"])
        assert pair["overlap"] == 999
        assert pair["kappa"]["value"] == pytest.approx(
            hand_kappa(labels[first], labels[second]), abs=1e-6
        )
    expected = alpha(reliability_data=np.array(labels, float), level_of_measurement="ordinal")
    assert block["alpha"]["value"] == pytest.approx(expected, abs=1e-6)
    assert report["alpha"]["value"] == pytest.approx(expected, abs=1e-6)  # no judge beside
