"""`arena import --format swebench`: predictions and the harness's report, with trials."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from arena import family_state
from arena.cli.main import main
from arena.errors import BadInput
from arena.intake.outputs import FamilySettings, import_file
from arena.intake.readers import ReadOptions, guess_format
from arena.ledger import catalog, trial_store
from tests.conftest import REALDATA

SWEBENCH = REALDATA / "swebench-diffs"
PATCH = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


def _bytes(ledger) -> str:
    ledger.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return hashlib.sha256(Path(ledger.path).read_bytes()).hexdigest()


def _prediction(instance_id, patch=PATCH, model="gpt-4-0125-preview"):
    return {"instance_id": instance_id, "model_name_or_path": model, "model_patch": patch}


def _run(folder: Path, predictions, report=None, *, lines=False) -> Path:
    """A run's folder: predictions (an array, or JSON Lines) and a report.json beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    if lines:
        path = folder / "all_preds.jsonl"
        path.write_text("".join(json.dumps(p) + "\n" for p in predictions), "utf-8")
    else:
        path = folder / "predictions_for_swebench.json"
        path.write_text(json.dumps(predictions, indent=4), "utf-8")
    if report is not None:
        (folder / "report.json").write_text(json.dumps(report), "utf-8")
    return path


def _passes(ledger, family="swe") -> dict[str, int]:
    """Per system label: outputs whose result in force is passed."""
    state = family_state.load(ledger, family)
    labels = {s.system_id: s.label for s in catalog.systems(ledger, family)}
    return dict(
        Counter(labels[o.system_id] for o in state.outputs.values() if o.test_result == "passed")
    )


def _trials(ledger, family="swe"):
    return {(t.case_id, t.result, t.reason) for t in trial_store.trials(ledger, family)}


LISTS = {
    "no_generation": ["a__a-5"],
    "generated": ["a__a-1", "a__a-2", "a__a-3", "a__a-4"],
    "with_logs": ["a__a-1", "a__a-2", "a__a-3", "a__a-4"],
    "no_apply": ["a__a-3"],
    "applied": ["a__a-1", "a__a-2", "a__a-4"],
    "test_timeout": ["a__a-4"],
    "resolved": ["a__a-1"],
}


def _acr(tmp_path, name="acr-run-1"):
    return _run(
        tmp_path / name,
        [*(_prediction(f"a__a-{n}") for n in range(1, 5)), _prediction("a__a-5", None)],
        LISTS,
    )


def test_a_run_imports_as_one_system_of_diffs_with_imported_trials(ledger, tmp_path):
    report = import_file(ledger, _acr(tmp_path), family="swe", fmt="swebench")
    assert (report.records, report.outputs_added, report.trials_added) == (5, 5, 5)
    assert "report.json (lists of ids, 5 instances)" in report.notes[0]
    family = catalog.get_family(ledger, "swe")
    assert family.kind == "tests"
    (system,) = catalog.systems(ledger, "swe")
    assert (system.label, system.descriptor.model, system.descriptor.harness) == (
        "acr-run-1",
        "gpt-4-0125-preview",
        "acr-run-1",
    )
    outputs = {o.case_id: o for o in catalog.outputs(ledger, "swe")}
    assert all(o.is_diff for o in outputs.values()) and outputs["a__a-5"].text == ""
    # The outputs table has no timed_out: failed there, the trial says why.
    assert {c: o.test_result for c, o in outputs.items()} == {
        "a__a-1": "passed",
        "a__a-2": "failed",
        "a__a-3": "failed",
        "a__a-4": "failed",
        "a__a-5": "failed",
    }
    assert _trials(ledger) == {
        ("a__a-1", "passed", "resolved"),
        ("a__a-2", "failed", "unresolved"),
        ("a__a-3", "failed", "patch_did_not_apply"),
        ("a__a-4", "timed_out", "test_timeout"),
        ("a__a-5", "failed", "empty_patch"),
    }
    assert {t.source for t in trial_store.trials(ledger, "swe")} == {"imported"}
    assert {t.sandbox for t in trial_store.trials(ledger, "swe")} == {""}
    assert _passes(ledger) == {"acr-run-1": 1}


def test_without_tasks_the_prompt_names_the_task_and_the_category_is_the_repository(
    ledger, tmp_path
):
    path = _run(tmp_path / "r", [_prediction("django__django-11099")], {"resolved": []})
    import_file(ledger, path, family="swe", fmt="swebench")
    (case,) = catalog.cases(ledger, "swe")
    assert case.category == "django/django"
    assert "SWE-bench task django__django-11099" in case.prompt
    assert "huggingface.co/datasets/princeton-nlp/SWE-bench" in case.prompt


def test_a_tasks_file_gives_the_prompts(ledger, tmp_path):
    path = _run(tmp_path / "r", [_prediction("django__django-11099")], {"resolved": []})
    tasks = tmp_path / "lite.jsonl"
    tasks.write_text(
        json.dumps(
            {
                "instance_id": "django__django-11099",
                "repo": "django/django",
                "problem_statement": "UsernameValidator allows trailing newline",
            }
        )
        + "\n",
        "utf-8",
    )
    import_file(ledger, path, family="swe", fmt="swebench", options=ReadOptions(tasks=tasks))
    (case,) = catalog.cases(ledger, "swe")
    assert (case.prompt, case.category) == (
        "UsernameValidator allows trailing newline",
        "django/django",
    )


def test_a_prediction_missing_from_the_tasks_file_is_refused(ledger, tmp_path):
    path = _run(tmp_path / "r", [_prediction("a__a-1"), _prediction("a__a-2")], {"resolved": []})
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"instance_id": "a__a-1", "problem_statement": "P"}]), "utf-8")
    before = _bytes(ledger)
    with pytest.raises(BadInput, match="not in the tasks file") as caught:
        import_file(ledger, path, family="swe", fmt="swebench", options=ReadOptions(tasks=tasks))
    assert (caught.value.path, caught.value.field) == (str(path), "instance_id")
    assert _bytes(ledger) == before


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"instance_id": "a__a-3", "model_name_or_path": "gpt-4-0125-preview"}, "model_patch"),
        ({**_prediction("a__a-3"), "model_patch": 7}, "model_patch"),
        ({**_prediction("a__a-3"), "instance_id": None}, "instance_id"),
        (_prediction("a__a-3", model="another-model"), "model_name_or_path"),
        (_prediction("a__a-1"), "instance_id"),  # the same instance twice
        (["not", "an", "object"], "(record)"),
    ],
)
def test_a_bad_prediction_line_names_file_line_and_field_and_changes_nothing(
    ledger, tmp_path, bad, field
):
    path = _run(
        tmp_path / "r",
        [_prediction("a__a-1"), _prediction("a__a-2"), bad],
        {"resolved": ["a__a-1"]},
        lines=True,
    )
    before = _bytes(ledger)
    with pytest.raises(BadInput) as caught:
        import_file(ledger, path, family="swe", fmt="swebench")
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 3, field)
    assert _bytes(ledger) == before
    assert catalog.get_family(ledger, "swe") is None


def test_a_bad_report_changes_nothing(ledger, tmp_path):
    path = _run(tmp_path / "r", [_prediction("a__a-1")], {"resolved": "a__a-1", "applied": []})
    before = _bytes(ledger)
    with pytest.raises(BadInput) as caught:
        import_file(ledger, path, family="swe", fmt="swebench")
    assert (caught.value.path, caught.value.field) == (
        str(tmp_path / "r" / "report.json"),
        "resolved",
    )
    assert _bytes(ledger) == before


def test_importing_the_same_files_again_adds_nothing(ledger, tmp_path):
    path = _acr(tmp_path)
    import_file(ledger, path, family="swe", fmt="swebench")
    trials = trial_store.trials(ledger, "swe")
    again = import_file(ledger, path, family="swe", fmt="swebench")
    assert (again.outputs_added, again.cases_added, again.trials_added) == (0, 0, 0)
    assert trial_store.trials(ledger, "swe") == trials
    assert catalog.count_outputs(ledger, "swe") == 5


def test_another_report_of_the_same_run_adds_trials_that_have_the_say(ledger, tmp_path):
    path = _acr(tmp_path)
    import_file(ledger, path, family="swe", fmt="swebench")
    rerun = tmp_path / "rerun.json"
    rerun.write_text(
        json.dumps({"resolved_ids": ["a__a-1", "a__a-2"], "unresolved_ids": ["a__a-4"]}),
        "utf-8",
    )
    report = import_file(
        ledger, path, family="swe", fmt="swebench", options=ReadOptions(report=rerun)
    )
    # a__a-2 now passes and a__a-4 failed rather than timed out; a__a-1 says the same, and
    # a__a-3 is absent from the new report; a__a-5's empty patch failed as before.
    assert report.trials_added == 2
    assert _passes(ledger) == {"acr-run-1": 2}
    latest = trial_store.latest_trials(ledger, "swe")
    assert {k[0]: (t.result, t.reason) for k, t in latest.items()}["a__a-4"] == (
        "failed",
        "unresolved",
    )


def test_a_prediction_absent_from_the_report_has_no_result_and_no_trial(ledger, tmp_path):
    path = _run(
        tmp_path / "r",
        [_prediction("a__a-1"), _prediction("a__a-2")],
        {"generated": ["a__a-1"], "with_logs": ["a__a-1"], "applied": ["a__a-1"], "resolved": []},
    )
    report = import_file(ledger, path, family="swe", fmt="swebench")
    assert report.trials_added == 1
    outputs = {o.case_id: o.test_result for o in catalog.outputs(ledger, "swe")}
    assert outputs == {"a__a-1": "failed", "a__a-2": None}
    assert _trials(ledger) == {("a__a-1", "failed", "unresolved")}
    assert any("1 predictions are not in the report" in note for note in report.notes)


def test_without_a_report_the_outputs_have_no_result_and_the_import_says_so(ledger, tmp_path):
    path = _run(tmp_path / "r", [_prediction("a__a-1")], lines=True)
    report = import_file(ledger, path, family="swe", fmt="swebench")
    assert (report.outputs_added, report.trials_added) == (1, 0)
    assert "no harness report beside" in report.notes[0]
    assert [o.test_result for o in catalog.outputs(ledger, "swe")] == [None]


def test_predictions_keyed_by_instance_id_are_read_with_their_lines(ledger, tmp_path):
    folder = tmp_path / "sweagent-1"
    folder.mkdir()
    path = folder / "preds.json"
    keyed = {"a__a-1": _prediction("a__a-1"), "a__a-2": {"model_name_or_path": "m"}}
    path.write_text(json.dumps(keyed, indent=2), "utf-8")
    (folder / "report.json").write_text(json.dumps({"resolved": ["a__a-1"]}), "utf-8")
    assert guess_format(path) == "swebench"
    with pytest.raises(BadInput) as caught:
        import_file(ledger, path, family="swe", fmt="swebench")
    assert (caught.value.line, caught.value.field) == (7, "model_patch")


def test_the_kind_defaults_to_tests_only_for_a_new_family(ledger, tmp_path):
    import_file(
        ledger,
        _acr(tmp_path, "one"),
        family="votes-swe",
        fmt="swebench",
        settings=FamilySettings(kind="tests_then_votes"),
    )
    assert catalog.get_family(ledger, "votes-swe").kind == "tests_then_votes"
    # An existing family keeps its kind; no --kind is not a disagreement.
    import_file(ledger, _acr(tmp_path, "two"), family="votes-swe", fmt="swebench")
    assert catalog.get_family(ledger, "votes-swe").kind == "tests_then_votes"


def test_harness_and_label_can_be_given(ledger, tmp_path):
    options = ReadOptions(harness="AutoCodeRover v1", label="acr")
    import_file(ledger, _acr(tmp_path), family="swe", fmt="swebench", options=options)
    (system,) = catalog.systems(ledger, "swe")
    assert (system.label, system.descriptor.harness) == ("acr", "AutoCodeRover v1")


def test_the_file_names_of_runs_guess_the_format():
    assert guess_format(Path("x/predictions_for_swebench.json")) == "swebench"
    assert guess_format(Path("x/all_preds.jsonl")) == "swebench"
    assert guess_format(Path("x/model_outputs.json")) == "alpacaeval"


def test_the_cli_imports_a_run_and_prints_its_report(capsys, tmp_path):
    path = _acr(tmp_path)
    ledger = str(tmp_path / "l.sqlite")
    code = main(
        ["--ledger", ledger, "import", str(path), "--family", "swe", "--create", "--harness", "acr"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "5 new outputs" in out and "5 imported trials" in out
    assert "lists of ids, 5 instances" in out
    code = main(["--ledger", ledger, "status", "--json"])
    (row,) = json.loads(capsys.readouterr().out)["families"]
    assert (row["kind"], row["outputs"]) == ("tests", 5)
    code = main(
        [
            "--ledger",
            ledger,
            "import",
            str(path),
            "--family",
            "f",
            "--format",
            "native",
            "--report",
            str(path),
        ]
    )
    assert (code, capsys.readouterr().err.count("--report")) == (2, 1)


@pytest.mark.skipif(not SWEBENCH.is_dir(), reason="real SWE-bench runs are not here")
def test_the_real_runs_pass_as_many_as_their_reports_resolved(ledger):
    runs = {
        "autocoderover-acr-run-1": ("predictions_for_swebench.json", "report.json"),
        "autocoderover-acr-val-sbfl": ("predictions_for_swebench.json", "report.json"),
        "sweagent-gpt4-cost_2_1": ("all_preds.jsonl", "final_report.json"),
    }
    resolved = {}
    for run, (predictions, report) in runs.items():
        import_file(ledger, SWEBENCH / run / predictions, family="swe", fmt="swebench")
        resolved[run] = len(json.loads((SWEBENCH / run / report).read_text("utf-8"))["resolved"])
    assert resolved == {
        "autocoderover-acr-run-1": 54,
        "autocoderover-acr-val-sbfl": 66,
        "sweagent-gpt4-cost_2_1": 28,
    }
    assert _passes(ledger) == resolved
