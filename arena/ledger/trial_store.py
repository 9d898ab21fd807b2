"""Tasks and trials of tests families: stored once, read back in the order written."""

from __future__ import annotations

import json
from typing import Any

from arena.canonical import canonical_json, content_hash
from arena.clock import now_iso
from arena.ledger.connection import Ledger
from arena.records import CaseId, OutputId, SystemId, Trial
from arena.tasks import Task

_TRIAL_COLUMNS = (
    "trial_id",
    "family",
    "case_id",
    "system_id",
    "sample",
    "output_id",
    "result",
    "source",
    "at",
    "reason",
    "sandbox",
    "duration_ms",
    "exit_code",
    "log_tail",
    "log_hash",
    "task_hash",
    "applied_with",
)


def new_trial_id(trial: dict[str, Any]) -> str:
    """A trial's id hashes what it says and when, so two runs of one output differ."""
    return content_hash(
        {k: repr(v) if isinstance(v, float) else v for k, v in trial.items() if k != "trial_id"}
    )


def add_task(ledger: Ledger, task: Task) -> bool:
    """Store ``task`` unless the same task is in force already; True when stored."""
    found = latest_tasks(ledger, task.family).get(task.case_id)
    if found is not None and found.task_hash == task.task_hash:
        return False
    ledger.conn.execute(
        "INSERT INTO tasks (family, case_id, task_hash, spec, stored_at) VALUES (?, ?, ?, ?, ?)",
        [task.family, task.case_id, task.task_hash, canonical_json(task.canonical()), now_iso()],
    )
    return True


def latest_tasks(ledger: Ledger, family: str) -> dict[CaseId, Task]:
    """The task in force for each case of ``family`` (the newest stored)."""
    tasks: dict[CaseId, Task] = {}
    for (spec,) in ledger.conn.execute(
        "SELECT spec FROM tasks WHERE family = ? ORDER BY seq", [family]
    ):
        fields = json.loads(spec)
        task = Task(
            family=family,
            case_id=CaseId(fields["case_id"]),
            repo=fields["repo"],
            hidden_tests=fields["hidden_tests"],
            test_command=tuple(fields["test_command"]),
            time_limit_s=float(fields["time_limit_s"]),
            memory_mb=int(fields["memory_mb"]),
            environment=fields["environment"],
            max_processes=fields.get("max_processes"),
            disk_mb=fields.get("disk_mb"),
            log_mb=fields.get("log_mb"),
            read_only_paths=tuple(fields.get("read_only_paths", ())),
            pack=fields.get("pack"),
        )
        tasks[task.case_id] = task
    return tasks


def add_trial(ledger: Ledger, trial: Trial) -> None:
    ledger.insert("trials", {name: getattr(trial, name) for name in _TRIAL_COLUMNS})


def trials(ledger: Ledger, family: str, *, up_to: int | None = None) -> list[Trial]:
    """Every trial of ``family`` (recorded up to seq ``up_to``), oldest first."""
    where, params = (
        ("family = ?", [family])
        if up_to is None
        else (
            "family = ? AND seq <= ?",
            [family, up_to],
        )
    )
    rows = ledger.conn.execute(
        f"SELECT {', '.join(_TRIAL_COLUMNS)} FROM trials WHERE {where} ORDER BY seq", params
    )
    return [_trial(row) for row in rows]


def latest_trials(
    ledger: Ledger, family: str, *, up_to: int | None = None
) -> dict[tuple[CaseId, SystemId, int], Trial]:
    """The trial in force for each (case, system, sample) of ``family``: the newest."""
    return {(t.case_id, t.system_id, t.sample): t for t in trials(ledger, family, up_to=up_to)}


def _trial(row: tuple) -> Trial:
    fields = dict(zip(_TRIAL_COLUMNS, row, strict=True))
    fields["case_id"] = CaseId(fields["case_id"])
    fields["system_id"] = SystemId(fields["system_id"])
    if fields["output_id"] is not None:
        fields["output_id"] = OutputId(fields["output_id"])
    return Trial(**fields)
