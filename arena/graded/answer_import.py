"""Importing graded answers produced elsewhere into a graded family.

The answers of one run (read by ``answer_files``) are checked against a suite the ledger
already holds, then stored, gated and graded exactly as ``collect`` stores what an endpoint
sends (``runs.store_item``), all in one transaction: a refused file changes nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from arena.clock import now_iso
from arena.endpoint.client import ITEM_STATUSES
from arena.endpoint.run_settings import run_descriptor
from arena.errors import BadInput
from arena.graded.answer_files import Answer, AnswerFile, read_answers
from arena.graded.collect import CollectedItem
from arena.graded.graders import PARSER_VERSION
from arena.graded.runs import add_run_system, run_tier, store_item, suite_of
from arena.graded.suites import Suite
from arena.ledger import Ledger, catalog
from arena.ledger import run_store as stored
from arena.ledger.voting import new_id
from arena.records import SystemId
from arena.redact import Redactor

HARNESS = "imported"


@dataclass(frozen=True)
class ImportReport:
    family: str
    system_id: SystemId
    label: str
    suite: str
    suite_hash: str
    answers: int
    tasks: int
    status_counts: dict[str, int]


def known_suite(ledger: Ledger, name: str) -> Suite:
    """The suite ``name`` names in the ledger: a stored suite's name (it must be stored
    once, under one manifest), the graded family collecting it, or a manifest hash (12 or
    more leading hex digits)."""
    family = catalog.get_family(ledger, name)
    if family is not None and family.kind == "graded":
        runs = stored.runs(ledger, name)
        if runs:
            return suite_of(ledger, max(runs.values(), key=lambda r: r["seq"])["suite_hash"])
    hashes = stored.suites_named(ledger, name)
    if not hashes and len(name) >= 12 and all(c in "0123456789abcdef" for c in name):
        hashes = stored.suites_named(ledger, name, hash_prefix=True)
    if not hashes:
        raise BadInput(
            f"no suite {name!r} in this ledger: a suite is stored by `arena collect` "
            "(give --suite a stored suite's name, its graded family or its manifest hash)",
            field="--suite",
        )
    if len(hashes) > 1:
        raise BadInput(
            f"{len(hashes)} suites named {name!r} are stored ("
            + ", ".join(h[:12] for h in hashes)
            + "): give the manifest hash",
            field="--suite",
        )
    return suite_of(ledger, hashes[0])


def import_answers(
    ledger: Ledger,
    path: Path,
    *,
    suite: str,
    fmt: str | None = None,
    family: str | None = None,
    model: str | None = None,
    label: str | None = None,
    harness: str | None = None,
    tier: str = "community",
    language: str = "en",
    revision: str | None = None,
    artifact_digest: str | None = None,
    quantization: str | None = None,
    redactor: Redactor | None = None,
) -> ImportReport:
    """Grade and store one run's answers from ``path`` for a suite the ledger holds."""
    tier = run_tier(tier, revision=revision, artifact_digest=artifact_digest)
    source = read_answers(path, fmt)
    model = _model(source, model)
    label = label or model
    redactor = redactor or Redactor.from_environment()
    redactor.refuse_in({"model": model, "label": label, "harness": harness})
    with ledger.atomic():
        known = known_suite(ledger, suite)
        answers = _checked(source, known)
        name = family or known.name
        descriptor = run_descriptor(
            model,
            endpoint=None,
            suite_hash=known.manifest_hash,
            answer_contract=", ".join(sorted({t.answer_contract for t in known.tasks})),
            parser=PARSER_VERSION,
            system_prompt=None,
            inference={},
            harness=harness or source.harness or HARNESS,
            revision=revision,
            artifact_digest=artifact_digest,
            quantization=quantization,
            source=source.source,
        )
        fam, system_id = add_run_system(ledger, name, language, known, label, descriptor)
        if system_id in stored.runs(ledger, name):
            raise BadInput(
                f"the run {label!r} already has answers in {name!r}; give the new answers "
                "another --label, --revision or --harness",
                path=str(path),
            )
        stored.add_run(ledger, name, system_id, known.manifest_hash, tier, "")
        run_id = "import-" + new_id()
        tasks = {t.task_id: t for t in known.tasks}
        counts = Counter[str]()
        for answer in answers:
            item = _item(answer, tasks[answer.task_id].input_hash, redactor)
            counts[item.status] += 1
            store_item(ledger, fam, tasks[answer.task_id], system_id, known, item, run_id)
    return ImportReport(
        name,
        system_id,
        label,
        known.name,
        known.manifest_hash,
        len(answers),
        len(known.tasks),
        {s: counts[s] for s in (*ITEM_STATUSES, "no_answer") if counts[s]},
    )


def _model(source: AnswerFile, model: str | None) -> str:
    if source.model and model and model != source.model:
        raise BadInput(
            f"the eval log names the model {source.model!r}, not {model!r}",
            path=source.path,
            field="eval.model",
        )
    found = model or source.model
    if not found:
        raise BadInput("give the model that produced the answers", field="--model")
    return found


def _checked(source: AnswerFile, suite: Suite) -> list[Answer]:
    """The answers in suite order; refuse unknown and repeated task ids."""
    known = {t.task_id for t in suite.tasks}
    seen: dict[str, Answer] = {}
    for answer in source.answers:
        where = f"{answer.where}.id" if answer.where else "task_id"
        if answer.task_id not in known:
            raise BadInput(
                f"task {answer.task_id!r} is not in the suite {suite.name!r} "
                f"({suite.manifest_hash[:12]}); is this the right --suite?",
                path=source.path,
                line=answer.line,
                field=where,
            )
        if answer.task_id in seen:
            raise BadInput(
                f"a second answer to task {answer.task_id!r}",
                path=source.path,
                line=answer.line,
                field=where,
            )
        seen[answer.task_id] = answer
    return [seen[t.task_id] for t in suite.tasks if t.task_id in seen]


def _item(answer: Answer, input_hash: str, redactor: Redactor) -> CollectedItem:
    text = redactor.text(answer.text) if answer.text is not None else None
    return CollectedItem(
        task_id=answer.task_id,
        status="ok" if text is not None else "no_answer",
        input_hash=input_hash,
        text=text,
        finish_reason=answer.finish_reason,
        latency_ms=answer.latency_ms,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        cost=answer.cost,
        error=redactor.text(answer.error),
        attempts=1,
        finished_at=now_iso(),
    )
