"""A small tests family to work on: diffs with test results, and trials added later."""

from __future__ import annotations

import json
from pathlib import Path

from arena.clock import now_iso
from arena.intake.outputs import import_file
from arena.ledger import Ledger, catalog, trial_store
from arena.records import CaseId, Trial
from arena.tasks import Task
from tests.conftest import native_line

# A task of case t1 of family t (its files are not stored: enough for the ledger's rows).
TASK = Task(
    family="t",
    case_id=CaseId("t1"),
    repo={"kind": "git", "path": "repo", "base_commit": "0" * 40},
    hidden_tests={"tests/test_calc.py": "1" * 64},
    test_command=("python", "-m", "pytest", "-q"),
)


def diff(name: str) -> str:
    """A unified diff whose change is named ``name`` (so two names, two changes)."""
    return (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
        f"-    return a - b\n+    return a + b  # {name}\n"
    )


def make_tests_family(
    ledger: Ledger,
    tmp_path: Path,
    answers: dict[tuple[str, str], str | None],
    *,
    kind: str = "tests",
    tasks: tuple[str, ...] = (),
    name: str = "t",
    descriptors: dict[str, dict] | None = None,
) -> None:
    """Import ``answers`` {(case, system label): test result or None} as diffs, on the cases
    of the answers plus ``tasks`` (cases nobody answered are given by a first answer's case
    only, so every task here is answered by someone)."""
    lines = []
    for i, ((case, label), result) in enumerate(sorted(answers.items())):
        extra = {"is_diff": True}
        if result is not None:
            extra["test_result"] = result
        if i == 0:
            extra["family"] = {"name": name, "kind": kind, "min_chars": 10}
        line = native_line(case, label, diff(f"{label} on {case}"), **extra)
        if descriptors and label in descriptors:
            record = json.loads(line)
            record["system"].update(descriptors[label])
            line = json.dumps(record)
        lines.append(line)
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    import_file(ledger, path, family=name, fmt="native")


def add_trial(ledger: Ledger, family: str, case: str, label: str, result: str, **fields) -> Trial:
    """Record a sandbox trial of ``label``'s answer to ``case``."""
    system = next(s for s in catalog.systems(ledger, family) if s.label == label)
    output = next(
        o
        for o in catalog.outputs(ledger, family)
        if o.case_id == case and o.system_id == system.system_id
    )
    row = {
        "family": family,
        "case_id": CaseId(case),
        "system_id": system.system_id,
        "sample": output.sample,
        "output_id": output.output_id,
        "result": result,
        "source": "sandbox",
        "at": now_iso(),
        "sandbox": "test",
        **fields,
    }
    trial = Trial(trial_id=trial_store.new_trial_id(row), **row)
    with ledger.atomic():
        trial_store.add_trial(ledger, trial)
    return trial
