"""SWE-bench runs as published: predictions plus the harness's report (docs/formats.md).

Predictions are a JSON array (``predictions_for_swebench.json``), JSON Lines
(``all_preds.jsonl``) or an object keyed by instance id (``preds.json``), each with
``instance_id``, ``model_name_or_path`` and ``model_patch``. Each instance is a case, the
run a system (its model, and the run's folder as harness), each patch a diff output whose
test result and trial reason come from the report (``swebench_reports``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.errors import BadInput
from arena.intake.jsonstream import iter_json_array, iter_json_lines
from arena.intake.readers.base import (
    ParsedOutput,
    ReadOptions,
    as_case_id,
    as_label,
    as_name,
    as_record,
    as_text,
    bad,
)
from arena.intake.readers.swebench_reports import Report, find_reports, read_reports, reports_in
from arena.records import SystemDescriptor, TestResult, TrialResult

DATASET_URL = "https://huggingface.co/datasets/princeton-nlp/SWE-bench"
# "django__django-11099" -> owner "django", repository "django", pull request 11099.
_INSTANCE = re.compile(r"^(?P<owner>[^/]+?)__(?P<repo>[^/]+)-(?P<number>\d+)$")


def repository(instance_id: str) -> str:
    """The GitHub repository an instance id names ("django/django"); "unknown" if none."""
    found = _INSTANCE.match(instance_id)
    return f"{found['owner']}/{found['repo']}" if found else "unknown"


def default_prompt(instance_id: str) -> str:
    """A case prompt that says which task it is and where its text is, for want of one."""
    return (
        f"SWE-bench task {instance_id}: resolve an issue of the {repository(instance_id)} "
        f"repository. The issue text the agent saw is the task's problem_statement in the "
        f"SWE-bench dataset ({DATASET_URL}, instance_id {instance_id}); import the dataset "
        "with `arena import --tasks FILE` to show it here."
    )


def read(path: Path, options: ReadOptions) -> Iterator[ParsedOutput]:
    report = _report(path, options)
    tasks = read_tasks(options.tasks) if options.tasks is not None else None
    harness = options.harness or path.resolve().parent.name
    # A run's label from the command line or its folder's name: one line, as any label.
    label = as_name(options.label or harness, path, 1, "--label")
    first: tuple[int, str] | None = None
    lines: dict[str, int] = {}
    without_result = 0
    for line, record in _records(path, options):
        record = options.redactor.value(record)
        instance_id, model, patch = _prediction(record, path, line)
        if instance_id in lines:
            raise bad(
                path,
                line,
                "instance_id",
                f"{instance_id!r} is already on line {lines[instance_id]}",
            )
        lines[instance_id] = line
        if first is None:
            first = (line, model)
        elif model != first[1]:
            raise bad(
                path,
                line,
                "model_name_or_path",
                f"{model!r} differs from {first[1]!r} on line {first[0]}: one predictions "
                "file is one run",
            )
        if tasks is None:
            prompt, category = default_prompt(instance_id), repository(instance_id)
        elif instance_id in tasks:
            prompt, category = tasks[instance_id]
        else:
            raise bad(path, line, "instance_id", f"not in the tasks file {options.tasks}")
        outcome = report.outcome(instance_id, not patch.strip()) if report else None
        without_result += outcome is None
        yield ParsedOutput(
            line=line,
            case_id=instance_id,
            category=category,
            prompt=prompt,
            label=label,
            descriptor=SystemDescriptor(model=model, harness=harness),
            text=patch,
            is_diff=True,
            # The outputs table knows no timed_out: there it is failed; the trial says more.
            test_result=None if outcome is None else _as_test_result(outcome[0]),
            trial_result=None if outcome is None else outcome[0],
            trial_reason="" if outcome is None else outcome[1],
        )
    _notes(options, report, lines, without_result)


def _as_test_result(result: TrialResult) -> TestResult:
    # A trial stopped at a time or resource limit failed.
    kept: dict[str, TestResult] = {"passed": "passed", "errored": "errored"}
    return kept.get(result, "failed")


def _report(path: Path, options: ReadOptions) -> Report | None:
    if options.report is not None:
        report = read_reports(reports_in(options.report))
        _note(options, report.describe())
        return report
    found, passed_over = find_reports(path)
    if not found:
        _note(
            options,
            f"no harness report beside {path} (looked for report.json, final_report.json, "
            "results.json, a per-run summary, logs/**/report.json): the outputs have no test "
            "result; give one with --report",
        )
        return None
    report = read_reports(found)
    _note(options, report.describe())
    if passed_over:
        _note(options, f"also found, not read: {', '.join(map(str, passed_over))}")
    return report


def _notes(
    options: ReadOptions, report: Report | None, lines: dict[str, int], without_result: int
) -> None:
    if report is None:
        return
    if without_result:
        _note(
            options,
            f"{without_result} predictions are not in the report: imported without a test "
            "result (no trial)",
        )
    missing = len(report.outcomes.keys() - lines.keys())
    if missing:
        _note(options, f"{missing} instances of the report have no prediction in this file")


def _note(options: ReadOptions, text: str) -> None:
    if options.note is not None:
        options.note(text)


def _prediction(record: Any, path: Path, line: int) -> tuple[str, str, str]:
    record = as_record(
        record,
        path,
        line,
        ("instance_id", "model_name_or_path", "model_patch"),
        expected="expected an object with instance_id, model_name_or_path, model_patch",
        missing="missing (a prediction without a patch has null)",
    )
    instance_id = as_case_id(record["instance_id"], path, line, "instance_id")
    model = as_label(record["model_name_or_path"], path, line, "model_name_or_path")
    patch = as_text(record["model_patch"], path, line, "model_patch", allow_none=True)
    return instance_id, model, patch


def _records(path: Path, options: ReadOptions) -> Iterator[tuple[int, Any]]:
    """``(line, record)`` of a JSON array, an object keyed by instance id, or JSON Lines."""
    with open(path, "rb") as handle:
        start = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"["):
        yield from iter_json_array(path, options.progress, limit=options.max_record_bytes)
        return
    keyed = _keyed(path) if start.startswith(b"{") and path.suffix == ".json" else None
    if keyed is not None:
        yield from keyed
        return
    yield from iter_json_lines(path, options.progress, limit=options.max_record_bytes)


def _keyed(path: Path) -> list[tuple[int, Any]] | None:
    """The predictions of ``{instance_id: {...}, ...}`` (SWE-agent's ``preds.json``), each
    with the line of its key; None when the file is not one JSON object of objects."""
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None  # JSON Lines, or broken: the line reader names the bad line
    if not isinstance(value, dict) or "instance_id" in value:
        return None
    records, at, line = [], 0, 1
    for key, record in value.items():
        found = text.find(json.dumps(key, ensure_ascii=False), at)
        if found >= 0:
            line += text.count("\n", at, found)
            at = found
        if isinstance(record, dict):
            record = {"instance_id": key, **record}
        records.append((line, record))
    return records


def read_tasks(path: Path) -> dict[str, tuple[str, str]]:
    """instance id -> (problem statement, repository) of a SWE-bench task file
    (``task_records``)."""
    return {instance_id: task for _, (instance_id, task, _) in task_records(path)}


def task_records(path: Path) -> Iterator[tuple[int, tuple[str, tuple[str, str], dict[str, Any]]]]:
    """``(line, (instance id, (problem statement, repository), record))`` of a SWE-bench
    task file: JSON Lines or a JSON array of the dataset's records (``instance_id``,
    ``problem_statement``, and ``repo`` when given), or a plain list of instance ids, one
    a line (each task's prompt then says where its text is, ``default_prompt``)."""
    if not path.is_file():
        raise BadInput("no such file", path=str(path), field="--tasks")
    with open(path, "rb") as handle:
        start = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    if not start.startswith((b"{", b"[")):
        yield from _task_ids(path)
        return
    seen: dict[str, int] = {}
    for line, record in _records(path, ReadOptions()):
        record = as_record(
            record,
            path,
            line,
            ("instance_id", "problem_statement"),
            expected="expected an object with instance_id, problem_statement",
        )
        instance_id = _new_task(
            as_case_id(record["instance_id"], path, line, "instance_id"), seen, path, line
        )
        statement = as_text(record["problem_statement"], path, line, "problem_statement")
        repo = record.get("repo")
        if repo is not None and not isinstance(repo, str):
            raise bad(path, line, "repo", "expected text such as django/django")
        yield line, (instance_id, (statement, repo or repository(instance_id)), record)


def _task_ids(path: Path) -> Iterator[tuple[int, tuple[str, tuple[str, str], dict[str, Any]]]]:
    seen: dict[str, int] = {}
    try:
        lines = path.read_text("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise BadInput(f"not UTF-8 text ({exc.reason})", path=str(path)) from None
    for line, text in enumerate(lines, start=1):
        instance_id = text.strip()
        if not instance_id or instance_id.startswith("#"):
            continue
        if any(c.isspace() for c in instance_id):
            raise bad(path, line, "instance_id", "expected one instance id a line")
        _new_task(instance_id, seen, path, line)
        task = (default_prompt(instance_id), repository(instance_id))
        yield line, (instance_id, task, {})


def _new_task(instance_id: str, seen: dict[str, int], path: Path, line: int) -> str:
    if instance_id in seen:
        raise bad(
            path, line, "instance_id", f"{instance_id!r} is already on line {seen[instance_id]}"
        )
    seen[instance_id] = line
    return instance_id
