"""On PandaLM (annotator 1 the rater, annotators 2 and 3 judges), the pooled board equals
choix's fit of the three annotators' labels read straight from the test set, and its bundle
verifies."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.bundle.verify import verify_bundle
from arena.cli.main import main
from fitting import POINTS_PER_LOGIT
from tests.judges.test_pandalm import TESTSET, pytestmark, shown  # noqa: F401 (fixture)

Y = {0: 0.5, 1: 1.0, 2: 0.0}  # tie, response 1 (left) better, response 2 better


def _close(ledger, capsys, *extra):
    capsys.readouterr()
    args = ["--ledger", ledger, "round", "close", "--family", "p", "--penalty", "0", "--json"]
    assert main([*args, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_pooled_board_equals_choix_on_the_three_annotators(shown, capsys, tmp_path):  # noqa: F811
    choix = pytest.importorskip("choix")
    alone = _close(shown, capsys)
    pooled = _close(shown, capsys, "--with-judges", "annotator3,annotator2")
    # Each annotator's verdicts are left out where annotator 1's votes are: outputs that fail
    # a gate, whose pairs the gates settle.
    left_out = alone["summary"]["left_out"]
    for judge in pooled["settings"]["with_judges"]:
        assert (judge["verdicts"], judge["weight"], judge["unmatched"]) == (999, 1.0, 0)
        assert judge["left_out"] == left_out and judge["fitted"] == 999 - sum(left_out.values())
    out = tmp_path / "pooled"
    assert main(["--ledger", shown, "export", pooled["round"], "--out", str(out)]) == 0
    report = verify_bundle(out)
    assert report.ok and report.judges == ["annotator2", "annotator3"], report.problems
    # choix on the labels themselves, on the items whose votes were fitted, plus the
    # comparisons the gates settled (from the bundle: the rules that give them are checked
    # by verify).
    comparisons = [json.loads(line) for line in (out / "comparisons.jsonl").open()]
    fitted = {
        c["case_id"] for c in comparisons if c["source"] == "vote" and c["status"] == "fitted"
    }
    labels = {r["system"]: r["label"] for r in pooled["systems"]}
    names = sorted(labels.values())
    comp = np.zeros((len(names), len(names)))

    def add(left: str, right: str, y: float, w: float = 1.0) -> None:
        i, j = names.index(left), names.index(right)
        comp[i, j] += w * y
        comp[j, i] += w * (1 - y)

    for item in json.loads(TESTSET.read_text(encoding="utf-8")):
        if str(item["idx"]) in fitted:
            for n in (1, 2, 3):
                add(*item["cmp_key"].split("_"), Y[item[f"annotator{n}"]])
    for c in comparisons:
        if c["source"] == "settled":
            add(labels[c["system_a"]], labels[c["system_b"]], c["y"], c["fitted_weight"])
    strengths = choix.ilsr_pairwise_dense(comp, alpha=0.0, tol=1e-12, max_iter=10_000)
    anchor = names.index(pooled["anchor"]["label"])
    for row in pooled["systems"]:
        theirs = 1000 + POINTS_PER_LOGIT * (
            strengths[names.index(row["label"])] - strengths[anchor]
        )
        assert row["points"] == pytest.approx(theirs, abs=0.001), row["label"]
