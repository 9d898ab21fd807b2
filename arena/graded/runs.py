"""Graded families: collecting a suite's answers, grading them, scoring each run.

A graded family's cases are a suite's tasks; each run (the full tuple of
model artifact, harness, suite and inference settings) is a system. Every
collected item is committed with its attempt and its grade as it arrives,
so an interrupted collection resumes where it stopped.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from arena import gates
from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput
from arena.gates.screening import Fingerprints
from arena.graded.board_rows import ranked, score_row
from arena.graded.collect import CollectedItem, CollectSummary, Progress, collect
from arena.graded.graders import PARSER_VERSION, Grade
from arena.graded.suites import Suite, Task, check_tier, grade, parse_suite
from arena.ledger import Ledger, catalog, verdicts
from arena.ledger import run_store as stored
from arena.ledger.voting import new_id
from arena.records import (
    Case,
    CaseId,
    Family,
    Output,
    SystemDescriptor,
    SystemId,
    output_id,
)


def _family(ledger: Ledger, name: str, language: str) -> Family:
    family = catalog.get_family(ledger, name)
    if family is None:
        family = Family(
            name=name,
            kind="graded",
            language=language,
            min_chars=1,
            max_chars=100_000,
            aspect="graded",
        )
        catalog.add_family(ledger, family)
    elif family.kind != "graded":
        raise BadInput(f"family {name!r} is a {family.kind} family, not graded", field="family")
    return family


def run_tier(tier: str, *, revision: str | None, artifact_digest: str | None) -> str:
    """``tier`` checked (``check_tier``): a reference run names the artifact it pins."""
    tier = check_tier(tier)
    if tier == "reference" and not (revision and artifact_digest):
        raise BadInput(
            "a reference run names the artifact it pins: give --revision and --artifact-digest",
            field="--tier",
        )
    return tier


def add_run_system(
    ledger: Ledger,
    name: str,
    language: str,
    suite: Suite,
    label: str,
    descriptor: SystemDescriptor,
) -> tuple[Family, SystemId]:
    """A run's graded family ``name`` (made if new) with ``suite``'s tasks as its cases,
    and the run's system, labelled ``label`` in it."""
    fam = _family(ledger, name, language)
    _add_suite(ledger, fam, suite)
    system_id, _ = catalog.add_system(ledger, label, descriptor)
    catalog.check_label(ledger, name, label, system_id)
    return fam, system_id


def _add_suite(ledger: Ledger, family: Family, suite: Suite) -> None:
    stored.store_suite(
        ledger,
        suite.manifest_hash,
        suite.name,
        suite.version,
        suite.manifest_text,
        suite.manifest_format,
    )
    for task in suite.tasks:
        catalog.add_case(ledger, Case(family.name, CaseId(task.task_id), task.category, task.input))


@dataclass(frozen=True)
class CollectReport:
    family: str
    system_id: SystemId
    label: str
    summary: CollectSummary


def collect_run(
    ledger: Ledger,
    suite: Suite,
    settings: CollectSettings,
    *,
    family: str | None = None,
    label: str | None = None,
    tier: str = "community",
    language: str = "en",
    revision: str | None = None,
    artifact_digest: str | None = None,
    quantization: str | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> CollectReport:
    """Collect (or resume collecting) one run of ``suite``; each item is committed as it comes."""
    tier = run_tier(tier, revision=revision, artifact_digest=artifact_digest)
    settings.check()
    label = label or settings.model
    settings.check_secrets(label=label)
    name = family or suite.name
    descriptor = settings.descriptor(
        suite_hash=suite.manifest_hash,
        answer_contract=", ".join(sorted({t.answer_contract for t in suite.tasks})),
        parser=PARSER_VERSION,
        revision=revision,
        artifact_digest=artifact_digest,
        quantization=quantization,
    )
    with ledger.atomic():
        fam, system_id = add_run_system(ledger, name, language, suite, label, descriptor)
        if system_id not in stored.runs(ledger, name):
            stored.add_run(ledger, name, system_id, suite.manifest_hash, tier, settings.endpoint)
    done = {
        case
        for (system, case), attempt in stored.latest_attempts(ledger, name).items()
        if system == system_id and attempt["status"] == "ok"
    }
    run_id = "collect-" + new_id()
    tasks = {t.task_id: t for t in suite.tasks}

    def on_item(item: CollectedItem) -> None:
        with ledger.atomic():
            store_item(ledger, fam, tasks[item.task_id], system_id, suite, item, run_id)

    summary = collect(suite.tasks, settings, on_item=on_item, done=done, on_progress=on_progress)
    return CollectReport(name, system_id, label, summary)


def store_item(
    ledger: Ledger,
    fam: Family,
    task: Task,
    system_id: SystemId,
    suite: Suite,
    item: CollectedItem,
    run_id: str,
) -> None:
    """Store one task's item of a run: its output (gated), its attempt and its grade.

    Collect and import both store what they get through here, so the same answers leave
    the same receipts."""
    name = fam.name
    oid = None
    if item.status == "ok":
        output = Output(
            output_id(name, task.task_id, system_id, 0),
            name,
            CaseId(task.task_id),
            system_id,
            0,
            item.text or "",
            finish_reason=item.finish_reason,
            latency_ms=item.latency_ms,
            cost=item.cost,
            prompt_tokens=item.prompt_tokens,
            completion_tokens=item.completion_tokens,
        )
        if catalog.add_output(ledger, output, run_id):
            case = Case(name, CaseId(task.task_id), task.category, task.input)
            verdicts.record_gate_results(
                ledger,
                [
                    (
                        output.output_id,
                        gates.evaluate(output, case, fam),
                        Fingerprints(fam)(output, case),
                    )
                ],
            )
        oid = output.output_id
    stored.record_attempt(
        ledger,
        {
            "family": name,
            "case_id": task.task_id,
            "system_id": system_id,
            "status": item.status,
            "error": item.error,
            "http_status": item.http_status,
            "latency_ms": item.latency_ms,
            "attempts": item.attempts,
            "output_id": oid,
            "finished_at": item.finished_at,
        },
    )
    result = grade(
        task,
        item.text if item.status == "ok" else None,
        finish_reason=item.finish_reason,
        timed_out=item.status == "timeout",
    )
    _record(ledger, name, task.task_id, system_id, suite.manifest_hash, result)


def _record(
    ledger: Ledger, family: str, case_id: str, system_id: str, suite_hash: str, result: Grade
) -> None:
    stored.record_grade(
        ledger,
        {
            "family": family,
            "case_id": case_id,
            "system_id": system_id,
            "suite_hash": suite_hash,
            "status": result.status,
            "credit": result.credit,
            "passed": int(result.passed),
            "parsed_answer": result.parsed_answer,
            "detail": result.detail,
            "grader": PARSER_VERSION,
        },
    )


def suite_of(ledger: Ledger, suite_hash: str) -> Suite:
    found = stored.suite_manifest(ledger, suite_hash)
    if found is None:
        raise BadInput(f"suite {suite_hash[:12]}… is not in this ledger", field="suite")
    text, fmt = found
    return parse_suite(text, fmt=fmt, source=f"suite {suite_hash[:12]}")


def _grade_from_row(row: dict[str, Any]) -> Grade:
    return Grade(
        row["status"], row["credit"], bool(row["passed"]), row["parsed_answer"], row["detail"]
    )


def regrade(ledger: Ledger, family: str) -> int:
    """Grade every collected item again with its run's suite; store the grades that changed."""
    fam = catalog.get_family(ledger, family)
    if fam is None or fam.kind != "graded":
        raise BadInput(f"no graded family named {family!r}", field="family")
    runs = stored.runs(ledger, family)
    suites = {h: suite_of(ledger, h) for h in {r["suite_hash"] for r in runs.values()}}
    current = stored.grades_in_force(ledger, family)
    changed = 0
    with ledger.atomic():
        for (system_id, case_id), attempt in stored.latest_attempts(ledger, family).items():
            suite = suites[runs[system_id]["suite_hash"]]
            output = (
                catalog.get_output(ledger, attempt["output_id"]) if attempt["output_id"] else None
            )
            result = grade(
                suite.task(case_id),
                output.text if output else None,
                finish_reason=output.finish_reason if output else None,
                timed_out=attempt["status"] == "timeout",
            )
            before = current.get((system_id, case_id))
            if before is None or _grade_from_row(before) != result:
                _record(ledger, family, case_id, system_id, suite.manifest_hash, result)
                changed += 1
    return changed


def receipts(ledger: Ledger, family: str) -> list[dict[str, Any]]:
    """One receipt per (run, task): what was asked, answered, parsed and granted."""
    runs = stored.runs(ledger, family)
    suites = {h: suite_of(ledger, h) for h in {r["suite_hash"] for r in runs.values()}}
    attempts = stored.latest_attempts(ledger, family)
    grades = stored.grades_in_force(ledger, family)
    found = []
    for system_id, run in sorted(runs.items()):
        for task in suites[run["suite_hash"]].tasks:
            attempt = attempts.get((system_id, task.task_id))
            output = (
                catalog.get_output(ledger, attempt["output_id"])
                if attempt and attempt["output_id"]
                else None
            )
            row = grades.get((system_id, task.task_id))
            found.append(
                {
                    "system_id": system_id,
                    "task_id": task.task_id,
                    "category": task.category,
                    "suite_hash": run["suite_hash"],
                    "input_hash": task.input_hash,
                    "attempt_status": attempt["status"] if attempt else "not_attempted",
                    "output_id": output.output_id if output else None,
                    "output": output.text if output else None,
                    "output_hash": output.content_hash if output else None,
                    "finish_reason": output.finish_reason if output else None,
                    "latency_ms": attempt["latency_ms"] if attempt else None,
                    "status": row["status"] if row else "missing",
                    "credit": row["credit"] if row else 0.0,
                    "passed": bool(row["passed"]) if row else False,
                    "parsed_answer": row["parsed_answer"] if row else None,
                }
            )
    return found


def board(ledger: Ledger, family: str, *, seed: int) -> list[dict[str, Any]]:
    """Per run, best first: rank (by intervals), headline, 95% interval, passed, tasks,
    coverage, category scores, counts by status, tier (``board_rows``)."""
    runs = stored.runs(ledger, family)
    labels: dict[str, str] = {s.system_id: s.label for s in catalog.systems(ledger, family)}
    outputs = catalog.outputs(ledger, family)
    rows = []
    by_system: dict[str, list[dict[str, Any]]] = {}
    for receipt in receipts(ledger, family):
        by_system.setdefault(receipt["system_id"], []).append(receipt)
    for system_id, items in sorted(by_system.items()):
        suite = suite_of(ledger, runs[system_id]["suite_hash"])
        rows.append(
            score_row(suite, items, seed=seed)
            | {
                "system": system_id,
                "label": labels.get(system_id, system_id[:12]),
                "tier": runs[system_id]["tier"],
                "suite": suite.name,
                **_costs([o for o in outputs if o.system_id == system_id]),
            }
        )
    return ranked(rows)


def _costs(outputs: list[Output]) -> dict[str, Any]:
    costs = [o.cost for o in outputs if o.cost is not None]
    latencies = [o.latency_ms for o in outputs if o.latency_ms is not None]
    return {
        "cost_per_output": statistics.fmean(costs) if costs else None,
        "p50_latency_ms": statistics.median(latencies) if latencies else None,
    }


def feed_votes(ledger: Ledger, graded_family: str, votes_family: str) -> int:
    """Copy a graded family's answered tasks into a votes family of the same cases."""
    source = catalog.get_family(ledger, graded_family)
    if source is None or source.kind != "graded":
        raise BadInput(f"no graded family named {graded_family!r}", field="family")
    target = catalog.get_family(ledger, votes_family)
    added = 0
    with ledger.atomic():
        if target is None:
            target = replace(source, name=votes_family, kind="votes", aspect=source.aspect)
            catalog.add_family(ledger, target)
        elif target.kind != "votes":
            raise BadInput(f"{votes_family!r} is not a votes family", field="--feed-votes")
        cases = {c.case_id: c for c in catalog.cases(ledger, graded_family)}
        fed = []
        fingerprint = Fingerprints(target)
        for output in catalog.outputs(ledger, graded_family):
            case = replace(cases[output.case_id], family=votes_family)
            catalog.add_case(ledger, case)
            copy = replace(
                output,
                family=votes_family,
                output_id=output_id(votes_family, output.case_id, output.system_id, output.sample),
            )
            if catalog.add_output(ledger, copy, f"feed-{graded_family}"):
                fed.append(
                    (copy.output_id, gates.evaluate(copy, case, target), fingerprint(copy, case))
                )
                added += 1
        verdicts.record_gate_results(ledger, fed)
    return added
