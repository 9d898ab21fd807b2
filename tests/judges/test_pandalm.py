"""On PandaLM's test set (annotator 1 the rater, 2 and 3 judges), `arena judges show`
equals scikit-learn's κ, the krippendorff package's α and agreement counted here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.cli.main import main
from tests.conftest import REALDATA
from tests.judges.pandalm_files import write_files

TESTSET = REALDATA / "pandalm" / "testset-v1.json"
pytestmark = pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
CODE = {0: 0, 1: -1, 2: 1}  # tie, response1 better, response2 better


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pandalm")
    ledger = str(folder / "ledger.sqlite")
    outputs, votes = write_files(TESTSET, folder / "files")
    assert main(["--ledger", ledger, "import", str(outputs), "--family", "p", "--create"]) == 0
    assert main(["--ledger", ledger, "import-votes", str(votes), "--family", "p"]) == 0
    for n in (2, 3):
        args = ["--family", "p", "--judge", f"annotator{n}", "--kind", "human"]
        args += ["--format", "pandalm", "--column", f"annotator{n}"]
        assert main(["--ledger", ledger, "judges", "import", str(TESTSET), *args]) == 0
    return ledger


def _report(ledger, capsys):
    capsys.readouterr()
    assert main(["--ledger", ledger, "judges", "show", "--family", "p", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_figures_equal_an_independent_computation(shown, capsys):
    from krippendorff import alpha
    from sklearn.metrics import cohen_kappa_score

    report = _report(shown, capsys)
    items = json.loads(TESTSET.read_text(encoding="utf-8"))
    labels = np.array([[CODE[i[f"annotator{n}"]] for i in items] for n in (1, 2, 3)])
    rater = labels[0]
    assert report["rater"] == {"verdicts": 999, "items": 999}
    for row, judge in zip(report["judges"], labels[1:], strict=True):
        assert row["overlap"] == 999
        decisive = (rater != 0) & (judge != 0)
        assert row["agreement_with_ties"]["value"] == pytest.approx(
            np.mean(rater == judge), abs=1e-9
        )
        assert row["agreement_without_ties"]["value"] == pytest.approx(
            np.mean(rater[decisive] == judge[decisive]), abs=1e-9
        )
        assert row["agreement_without_ties"]["count"] == decisive.sum()
        assert row["kappa"]["value"] == pytest.approx(cohen_kappa_score(rater, judge), abs=1e-9)
        assert row["kappa"]["low"] < row["kappa"]["value"] < row["kappa"]["high"]
        assert row["position_consistency"] is None  # one order each
    expected = alpha(reliability_data=labels.astype(float), level_of_measurement="ordinal")
    assert report["alpha"]["value"] == pytest.approx(expected, abs=1e-9)


def test_importing_the_file_again_adds_nothing_and_changes_no_figure(shown, capsys):
    before = _report(shown, capsys)
    args = ["--family", "p", "--judge", "annotator2", "--kind", "human"]
    args += ["--format", "pandalm", "--column", "annotator2"]
    assert main(["--ledger", shown, "judges", "import", str(TESTSET), *args]) == 0
    assert "0 verdicts added" in capsys.readouterr().out
    assert _report(shown, capsys) == before
