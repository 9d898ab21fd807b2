"""On PandaLM's test set (annotator 1 the rater, 2 and 3 judges), `arena judges show`
equals scikit-learn's κ, the krippendorff package's α and agreement counted here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena.cli.main import main
from fitting import length_bias
from tests.conftest import REALDATA
from tests.judges.pandalm_files import choix_points, pandalm_ledger

TESTSET = REALDATA / "pandalm" / "testset-v1.json"
pytestmark = pytest.mark.skipif(not TESTSET.is_file(), reason="no ../shared/realdata/pandalm")
CODE = {0: 0, 1: -1, 2: 1}  # tie, response1 better, response2 better


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    return pandalm_ledger(TESTSET, tmp_path_factory.mktemp("pandalm"))


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


def test_the_test_set_written_on_one_line_imports_the_same_verdicts(shown, tmp_path, capsys):
    import sqlite3

    from tests.conftest import copy_ledger

    ledger = str(copy_ledger(Path(shown), tmp_path / "copy.sqlite"))
    compact = tmp_path / "testset-one-line.json"
    items = json.loads(TESTSET.read_text(encoding="utf-8"))
    compact.write_text(json.dumps(items, ensure_ascii=False, separators=(",", ":")), "utf-8")
    args = ["--family", "p", "--judge", "compact2", "--kind", "human"]
    args += ["--format", "pandalm", "--column", "annotator2"]
    assert main(["--ledger", ledger, "judges", "import", str(compact), *args]) == 0
    assert "999 verdicts added from 999 records" in capsys.readouterr().out  # all on line 1
    query = (
        "SELECT case_id, left_system, right_system, winner, game, source_line FROM "
        "judge_verdicts WHERE judge = ? ORDER BY seq"
    )
    with sqlite3.connect(ledger) as conn:
        pretty, one_line = (conn.execute(query, [j]).fetchall() for j in ("annotator2", "compact2"))
    assert len(pretty) == 999 and one_line == pretty


def test_boards_tau_and_length_bias_equal_independent_fits(shown, capsys):
    from scipy.stats import kendalltau

    report = _report(shown, capsys)
    items = json.loads(TESTSET.read_text(encoding="utf-8"))
    rater = choix_points(items, ("annotator1",))
    # The boards' penalty (0.01) moves no point by more than a few hundredths.
    for row in report["rater_board"]:
        assert row["points"]["value"] == pytest.approx(rater[row["label"]], abs=0.05)
    texts = [
        [t if isinstance(t, str) else json.dumps(t) for t in (i["response1"], i["response2"])]
        for i in items
    ]
    names = sorted(rater)
    for n, row in zip((2, 3), report["judges"], strict=True):
        judge = choix_points(items, (f"annotator{n}",))
        for system in row["board"]:
            assert system["points"]["value"] == pytest.approx(judge[system["label"]], abs=0.05)
        expected = kendalltau([rater[s] for s in names], [judge[s] for s in names]).statistic
        assert row["board_tau"]["value"] == pytest.approx(expected, abs=1e-12)
        assert row["board_tau"]["low"] <= row["board_tau"]["value"] <= row["board_tau"]["high"]
        # The round summary's estimator on the file's own lengths (response 1 shown left).
        pairs = [i["cmp_key"].split("_") for i in items]
        found = length_bias(
            [names.index(p[0]) for p in pairs],
            [names.index(p[1]) for p in pairs],
            [{0: 0.5, 1: 1.0, 2: 0.0}[i[f"annotator{n}"]] for i in items],
            [len(t[0]) for t in texts],
            [len(t[1]) for t in texts],
            n_systems=len(names),
        )
        assert row["length_bias"]["value"] == pytest.approx(found.points_per_sd, abs=1e-6)
        assert row["length_bias"]["low"] < found.points_per_sd < row["length_bias"]["high"]
