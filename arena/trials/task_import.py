"""`arena tasks import`: a task file's tasks into a tests family, all or nothing.

Every file is read, hashed and checked before anything is written; then, in one
transaction, the family (created as ``tests`` if missing), its cases (the tasks' prompts)
and the tasks (hashes of every hidden test file, and of the archived repository where the
file gave a folder or tarball) go into the ledger and the files' bytes into the file store
beside it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from arena.errors import BadInput
from arena.gates.case_language import detect_case_language
from arena.ledger import Ledger, catalog, trial_store
from arena.ledger.file_store import FileStore
from arena.pairs.settling import TESTED_KINDS
from arena.records import LANGUAGE_TAG, Case, CaseId, Family, Kind
from arena.tasks import Task
from arena.trials import checkout, protected
from arena.trials.task_files import RepoSpec, TaskSpec, read_task_file


@dataclass(frozen=True)
class TaskImportReport:
    family: str
    tasks: int
    tasks_added: int
    cases_added: int
    family_created: bool
    files_stored: int
    # Cases already in the family whose prompt or category the file gives otherwise:
    # cases are never changed, so they keep theirs.
    cases_kept: tuple[str, ...] = ()


@dataclass
class _Resolved:
    """What the checked tasks need stored: their records and the files' bytes."""

    tasks: list[tuple[TaskSpec, Task]] = field(default_factory=list)
    blobs: dict[str, bytes] = field(default_factory=dict)


def import_tasks(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    kind: str | None = None,
    language: str | None = None,
) -> TaskImportReport:
    """Store the tasks of ``path`` in ``family``; any problem changes nothing."""
    if kind is not None and kind not in TESTED_KINDS:
        raise BadInput("expected tests or tests_then_votes", field="--kind")
    if language is not None and not LANGUAGE_TAG.match(language):
        raise BadInput(f"not a BCP 47 language tag: {language!r}", field="--language")
    found = catalog.get_family(ledger, family)
    if found is not None:
        if found.kind not in TESTED_KINDS:
            raise BadInput(
                f"family {family!r} is a {found.kind} family; tasks belong to tests or "
                "tests_then_votes families",
                field="--family",
            )
        for name, value in (("kind", kind), ("language", language)):
            if value is not None and getattr(found, name) != value:
                raise BadInput(
                    f"family {family!r} already has {name} {getattr(found, name)!r}; an "
                    "import never changes a family's settings (`arena family set` does)",
                    field=f"--{name}",
                )
    places = protected.places(Path(ledger.path))
    specs = read_task_file(path, places)
    resolved = _resolve(path, family, specs, places)
    target = found or Family(
        name=family, kind=cast(Kind, kind or "tests"), language=language or "en"
    )
    store = FileStore.beside(ledger)
    added = cases_added = 0
    kept: list[str] = []
    with ledger.atomic():
        if found is None:
            catalog.add_family(ledger, target)
        for data in resolved.blobs.values():
            store.put(data)
        for spec, task in resolved.tasks:
            case = Case(family, CaseId(spec.case_id), spec.category, spec.prompt)
            old = catalog.get_case(ledger, family, spec.case_id)
            if old is None:
                catalog.add_case(ledger, _with_language(case, target.language))
                cases_added += 1
            elif (old.prompt, old.category) != (case.prompt, case.category):
                kept.append(spec.case_id)
            added += trial_store.add_task(ledger, task)
    return TaskImportReport(
        family=family,
        tasks=len(resolved.tasks),
        tasks_added=added,
        cases_added=cases_added,
        family_created=found is None,
        files_stored=len(resolved.blobs),
        cases_kept=tuple(kept),
    )


def _with_language(case: Case, family_language: str) -> Case:
    """A new case with the language its prompt is confidently in, if not the family's (as
    an output import does)."""
    detected = detect_case_language(case.prompt, family_language)
    if detected is None:
        return case
    return dataclasses.replace(case, detected_language=detected[0], language_evidence=detected[1])


def _resolve(
    path: Path, family: str, specs: list[TaskSpec], places: list[protected.Place]
) -> _Resolved:
    """Read every file the tasks name, pin every repository, hold each task to the rule
    its run is held to (``protected.task_refusal``); BadInput at the first problem."""
    resolved = _Resolved()
    repos: dict[RepoSpec, dict[str, Any]] = {}
    for spec in specs:

        def bad(field: str, message: str, spec: TaskSpec = spec) -> BadInput:
            return BadInput(
                f"{message} (task {spec.case_id!r})", path=str(path), line=spec.line, field=field
            )

        repo = repos.get(spec.repository)
        if repo is None:
            repo = repos[spec.repository] = _pin(spec.repository, resolved.blobs, bad)
        hidden: dict[str, str] = {}
        for index, (target, source) in enumerate(spec.hidden_tests):
            try:
                data = source.read_bytes()
            except OSError as exc:
                raise bad(
                    f"hidden_tests[{index}]", f"cannot read {source}: {exc.strerror}"
                ) from None
            digest = hashlib.sha256(data).hexdigest()
            resolved.blobs[digest] = data
            hidden[target] = digest
        task = Task(
            family=family,
            case_id=CaseId(spec.case_id),
            repo=repo,
            hidden_tests=hidden,
            test_command=spec.test_command,
            time_limit_s=spec.time_limit_s,
            memory_mb=spec.memory_mb,
            environment=spec.environment,
            max_processes=spec.max_processes,
            disk_mb=spec.disk_mb,
            log_mb=spec.log_mb,
            read_only_paths=spec.read_only_paths,
        )
        refused = protected.task_refusal(task, places)
        if refused is not None:
            # Its pack may vouch for it: kept with the task, the run is held to the same.
            task = dataclasses.replace(task, pack=str(path.parent.resolve()))
            refused = protected.task_refusal(task, places)
        if refused is not None:
            raise bad(*refused)
        resolved.tasks.append((spec, task))
    return resolved


def _pin(repo: RepoSpec, blobs: dict[str, bytes], bad: Any) -> dict[str, Any]:
    """The task's ``repo`` entry: a git commit by its full id, or an archive by its hash."""
    if repo.kind == "git":
        assert repo.base_commit is not None  # the schema requires it
        try:
            git_dir, commit = checkout.resolve_commit(repo.path, repo.base_commit)
        except ValueError as exc:
            raise bad("repository.base_commit", str(exc)) from None
        return {"kind": "git", "path": str(git_dir), "base_commit": commit}
    if repo.kind == "folder":
        try:
            data = checkout.folder_archive(repo.path)
        except OSError as exc:
            raise bad("repository.folder", f"cannot read {exc.filename}: {exc.strerror}") from None
    else:
        try:
            data = repo.path.read_bytes()
        except OSError as exc:
            raise bad("repository.tarball", f"cannot read {repo.path}: {exc.strerror}") from None
    try:
        checkout.check_archive(data, repo.root)
    except ValueError as exc:
        raise bad(f"repository.{'root' if repo.root else repo.kind}", str(exc)) from None
    digest = hashlib.sha256(data).hexdigest()
    blobs[digest] = data
    entry = {"kind": repo.kind, "archive": digest}
    return entry | ({"root": repo.root} if repo.root else {})
