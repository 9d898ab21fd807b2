"""SWE-bench harness reports in every shape Arena reads, from small synthetic files."""

import json
from pathlib import Path

import pytest

from arena.errors import BadInput
from arena.intake.readers.swebench_reports import (
    EMPTY_PATCH,
    NO_APPLY,
    RESOLVED,
    UNRESOLVED,
    find_reports,
    read_reports,
    reports_in,
    without_trailing_commas,
)


def _write(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=4), "utf-8")
    return path


def _outcomes(report, ids, empty=()):
    return {i: report.outcome(i, i in empty) for i in ids}


def test_the_per_run_summary_maps_each_list_and_leaves_incomplete_ids_without_a_result(tmp_path):
    path = _write(
        tmp_path / "gpt-4.run1.json",
        {
            "total_instances": 300,
            "resolved_ids": ["a__a-1"],
            "unresolved_ids": ["a__a-2"],
            "error_ids": ["a__a-3"],
            "empty_patch_ids": ["a__a-4"],
            "incomplete_ids": ["a__a-5"],
            "completed_ids": ["a__a-1", "a__a-2"],
            "schema_version": 2,
        },
    )
    report = read_reports([path])
    assert report.shape == "per-run summary"
    assert _outcomes(report, ["a__a-1", "a__a-2", "a__a-3", "a__a-4", "a__a-5"]) == {
        "a__a-1": RESOLVED,
        "a__a-2": UNRESOLVED,
        "a__a-3": ("errored", "error"),
        "a__a-4": EMPTY_PATCH,
        "a__a-5": None,
    }


def test_per_instance_reports_under_logs_are_found_and_merged(tmp_path):
    predictions = _write(tmp_path / "run" / "all_preds.jsonl", "")
    logs = tmp_path / "run" / "logs" / "run_evaluation" / "r1" / "model"
    for instance_id, fields in {
        "a__a-1": {"resolved": True, "patch_successfully_applied": True},
        "a__a-2": {"resolved": False, "patch_successfully_applied": True},
        "a__a-3": {"resolved": False, "patch_successfully_applied": False, "patch_exists": True},
        "a__a-4": {"resolved": False, "patch_is_None": True, "patch_exists": False},
    }.items():
        _write(logs / instance_id / "report.json", {instance_id: {**fields, "tests_status": {}}})
    found, passed_over = find_reports(predictions)
    assert len(found) == 4 and passed_over == []
    report = read_reports(found)
    assert report.shape == "per-instance"
    assert _outcomes(report, ["a__a-1", "a__a-2", "a__a-3", "a__a-4", "a__a-9"]) == {
        "a__a-1": RESOLVED,
        "a__a-2": UNRESOLVED,
        "a__a-3": NO_APPLY,
        "a__a-4": EMPTY_PATCH,
        "a__a-9": None,
    }
    assert read_reports(reports_in(logs)).outcomes == report.outcomes


def test_the_older_lists_of_ids_decide_by_the_strongest_list(tmp_path):
    ids = [f"a__a-{n}" for n in range(1, 13)]
    path = _write(
        tmp_path / "report.json",
        {
            "no_generation": [ids[0]],
            "generated": ids[1:12],
            "with_logs": ids[1:11],
            "install_fail": [ids[1]],
            "reset_failed": [ids[2]],
            "no_apply": [ids[3]],
            "applied": [ids[4], ids[5], ids[6], ids[7]],
            "test_errored": [ids[5], ids[8]],
            "test_timeout": [ids[6]],
            "resolved": [ids[7], ids[8]],
        },
    )
    report = read_reports([path])
    assert report.shape == "lists of ids"
    assert list(_outcomes(report, [*ids, "a__a-99"]).values()) == [
        EMPTY_PATCH,
        ("errored", "install_fail"),
        ("errored", "reset_failed"),
        NO_APPLY,
        UNRESOLVED,  # applied, not resolved
        ("errored", "test_errored"),
        ("timed_out", "test_timeout"),
        RESOLVED,
        RESOLVED,  # the tests errored, and still every one the task named passed
        ("errored", "no_test_status"),  # a log that says neither applied nor not
        ("errored", "no_test_status"),
        ("errored", "no_logs"),  # generated, no log
        None,  # not in the report
    ]


def test_a_report_listing_only_the_resolved_reads_the_others_as_unresolved(tmp_path):
    path = _write(
        tmp_path / "final_report.json",
        {
            "stats": {"generated": 2, "with_logs": 2, "applied": 2, "resolved": 1},
            "resolved": ["a__a-1"],
            "resolved_per_project": {"a/a": ["a__a-1"]},
        },
    )
    report = read_reports([path])
    assert _outcomes(report, ["a__a-1", "a__a-2", "a__a-3"], empty={"a__a-3"}) == {
        "a__a-1": RESOLVED,
        "a__a-2": UNRESOLVED,
        "a__a-3": EMPTY_PATCH,
    }
    assert "read as unresolved" in report.describe()


def test_a_list_that_names_the_evaluated_leaves_the_unlisted_without_a_result(tmp_path):
    path = _write(tmp_path / "report.json", {"applied": ["a__a-1"], "resolved": []})
    report = read_reports([path])
    assert report.outcome("a__a-2", False) is None
    assert report.outcome("a__a-3", True) == EMPTY_PATCH


def test_trailing_commas_are_dropped_and_said(tmp_path):
    text = '{\n  "resolved": [\n    "a__a-1",\n  ],\n  "applied": ["a__a-1", "a__a-2",],\n}\n'
    path = _write(tmp_path / "results.json", text)
    report = read_reports([path])
    assert report.outcomes == {"a__a-1": RESOLVED, "a__a-2": UNRESOLVED}
    assert report.repaired == (path,)
    assert "trailing commas" in report.describe()


def test_the_comma_pass_leaves_strings_and_line_breaks_alone():
    text = '{"a": "x,]", "b": "q\\",}", "c": [1,\n 2 ,\n],\n}'
    assert without_trailing_commas(text) == '{"a": "x,]", "b": "q\\",}", "c": [1,\n 2 \n]\n}'
    assert without_trailing_commas('["a", "b"]') == '["a", "b"]'


def test_broken_json_is_refused_with_its_line_after_the_commas_are_dropped(tmp_path):
    path = _write(tmp_path / "report.json", '{\n  "resolved": ["a",],\n  "applied": [}\n')
    with pytest.raises(BadInput) as caught:
        read_reports([path])
    assert (caught.value.path, caught.value.line) == (str(path), 3)


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"resolved": "a__a-1", "applied": []}, "resolved"),
        ({"resolved_ids": [1]}, "resolved_ids"),
        ({"a__a-1": {"resolved": "yes"}}, "a__a-1.resolved"),
        ({"accuracy": 0.3}, "(report)"),
        (["a__a-1"], "(report)"),
    ],
)
def test_a_report_of_the_wrong_shape_is_refused_naming_the_field(tmp_path, value, field):
    path = _write(tmp_path / "report.json", value)
    with pytest.raises(BadInput) as caught:
        read_reports([path])
    assert (caught.value.path, caught.value.field) == (str(path), field)
    assert caught.value.line is not None


def test_a_named_report_beside_the_predictions_comes_first(tmp_path):
    predictions = _write(tmp_path / "predictions_for_swebench.json", "[]")
    _write(tmp_path / "results.json", {"resolved": []})
    _write(tmp_path / "report.json", {"resolved": []})
    _write(tmp_path / "m.run.json", {"resolved_ids": []})
    assert find_reports(predictions) == (
        [tmp_path / "report.json"],
        [tmp_path / "results.json"],
    )


def test_a_per_run_summary_is_found_by_its_keys(tmp_path):
    predictions = _write(tmp_path / "preds.json", "{}")
    _write(tmp_path / "notes.json", {"resolved": "not a summary"})
    _write(tmp_path / "model.run-7.json", {"resolved_ids": ["a__a-1"]})
    assert find_reports(predictions) == ([tmp_path / "model.run-7.json"], [])
    assert find_reports(_write(tmp_path / "empty" / "all_preds.jsonl", "")) == ([], [])


def test_per_instance_files_that_disagree_are_refused(tmp_path):
    one = _write(tmp_path / "x" / "report.json", {"a__a-1": {"resolved": True}})
    two = _write(tmp_path / "y" / "report.json", {"a__a-1": {"resolved": False}})
    with pytest.raises(BadInput, match="another result") as caught:
        read_reports([one, two])
    assert caught.value.path == str(two)
