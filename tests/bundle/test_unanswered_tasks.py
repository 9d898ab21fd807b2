"""A task a system did not answer is a failed trial: in a round and in the bundle's check."""

from __future__ import annotations

import json

import pytest

from arena.bundle.export import export_round
from arena.bundle.verify import verify_bundle
from arena.intake.outputs import import_file
from arena.intake.readers.base import ReadOptions
from arena.rounds.closing import close_round
from arena.rounds.model import RoundSettings
from tests.bundle.rebundle import rehash
from tests.conftest import REALDATA
from tests.tested_helpers import make_tests_family

SWEBENCH = REALDATA / "swebench-diffs"

# Three tasks: "one" answers only t1 and passes it; "zero" answers all three and fails them.
RESULTS = {
    "one": ("passed", None, None),  # None: not answered
    "steady": ("passed", "failed", "failed"),
    "two": ("passed", "passed", "failed"),
    "zero": ("failed", "failed", "failed"),
}
HAND = {
    (task, label): result
    for label, results in RESULTS.items()
    for task, result in zip(("t1", "t2", "t3"), results, strict=True)
    if result is not None
}


@pytest.mark.parametrize("kind", ["tests", "tests_then_votes"])
def test_the_hand_family_ranks_by_pass_rate_in_the_round_and_its_bundle(ledger, tmp_path, kind):
    make_tests_family(ledger, tmp_path, HAND, kind=kind)
    closed = close_round(ledger, "t", RoundSettings())
    rows = {r.label: r for r in closed.board.systems}
    assert {k: (r.trials_passed, r.no_output) for k, r in rows.items()} == {
        "one": (1, 2),
        "steady": (1, 0),
        "two": (2, 0),
        "zero": (0, 0),
    }
    # 1/3 above 0/3; the two missing tasks of "one" tie with the failing patches of "steady".
    assert rows["two"].points > rows["one"].points > rows["zero"].points
    assert rows["one"].points == pytest.approx(rows["steady"].points)
    assert rows["one"].rank == rows["steady"].rank == 2
    out = tmp_path / "t"
    export_round(ledger, out, family="t")
    report = verify_bundle(out)
    assert report.ok, report.problems


def test_a_bundle_where_a_missing_task_loses_to_a_failing_patch_is_caught(ledger, tmp_path):
    make_tests_family(ledger, tmp_path, HAND)
    close_round(ledger, "t", RoundSettings())
    out = tmp_path / "t"
    export_round(ledger, out, family="t")
    # Settled as rounds did before: "zero"'s failing patch beats "one"'s missing task.
    labels = {
        r["system"]: r["label"] for r in json.loads((out / "board.json").read_text())["systems"]
    }
    rows = [json.loads(line) for line in (out / "comparisons.jsonl").read_text().splitlines()]
    for row in rows:
        sides = (labels[row["system_a"]], labels[row["system_b"]])
        if row["rule"] == "no_output" and set(sides) == {"one", "zero"} and row["y"] == 0.5:
            row["y"] = 0.0 if sides[0] == "one" else 1.0
    (out / "comparisons.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rehash(out)
    problems = verify_bundle(out).problems
    assert any("2 on tasks not answered" in p for p in problems), problems


@pytest.mark.skipif(not SWEBENCH.is_dir(), reason="real SWE-bench runs are not here")
def test_real_runs_with_fewer_predictions_than_tasks_rank_by_pass_rate(ledger, tmp_path):
    runs = {
        "autocoderover-acr-run-1": "predictions_for_swebench.json",  # 249 of 300 tasks
        "autocoderover-acr-val-sbfl": "predictions_for_swebench.json",  # 264
        "sweagent-gpt4-cost_2_1": "all_preds.jsonl",  # 271, 26 of them empty
    }
    tasks = ReadOptions(tasks=SWEBENCH / "swe-bench-lite-tasks.txt")
    for run, predictions in runs.items():
        import_file(
            ledger, SWEBENCH / run / predictions, family="swe", fmt="swebench", options=tasks
        )
    closed = close_round(ledger, "swe", RoundSettings())
    rows = closed.board.systems
    assert [(r.label, r.trials_passed, r.trials) for r in rows] == [
        ("autocoderover-acr-val-sbfl", 66, 300),
        ("autocoderover-acr-run-1", 54, 300),
        ("sweagent-gpt4-cost_2_1", 28, 300),
    ]
    assert [r.rank for r in rows] == [1, 2, 3]
    out = tmp_path / "swe"
    export_round(ledger, out, family="swe")
    report = verify_bundle(out)
    assert report.ok, report.problems
