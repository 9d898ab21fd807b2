"""`arena tests run`: every output of a tests family without a trial, run against its
task's hidden tests, each trial committed as soon as it ends.

Workers (threads) prepare a trial's folder and wait on its sandboxed command; only the
thread that opened the ledger writes, one transaction per trial. A run killed midway
loses only the trials in flight, and the next run starts from what is recorded: an
output counts as done once it has a trial against the task in force (an imported
trial counts too) unless ``rerun`` says otherwise.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import family_state
from arena.clock import now_iso
from arena.errors import BadInput, LedgerError
from arena.ledger import Ledger, catalog, trial_store
from arena.ledger.file_store import FileStore
from arena.pairs.settling import TESTED_KINDS
from arena.records import TRIAL_RESULTS, Family, Output, Trial, TrialResult
from arena.tasks import Task
from arena.trials import protected, reaper, runner, shared_code, trial_root, view, workspace
from arena.trials.checkout import CheckoutFailed
from arena.trials.limits import Limits
from arena.trials.sandbox import Sandbox

# patch --fuzz on one diff: seconds and memory enough for any diff a system sends.
PATCH_LIMITS = Limits(time_s=60, memory_mb=1024)

RERUN_CHOICES = ("all", "errored")


@dataclass(frozen=True)
class Job:
    output: Output
    task: Task


@dataclass(frozen=True)
class Plan:
    family: Family
    jobs: tuple[Job, ...]
    # Outputs left alone: a trial against the task in force is recorded already,
    already_tried: int
    # and outputs whose case has no task (import a task file for them).
    without_task: tuple[Output, ...]


@dataclass(frozen=True)
class _Bench:
    """What every trial of one run shares: the sandbox, the file store, the time limit
    that replaces each task's own (None: the task's), the places no trial may see, what
    takes the signing key out of a log, the run's folder, the signal to stop, the tasks'
    code checked out once, and what each test command is shown (by its program)."""

    sandbox: Sandbox
    store: FileStore
    timeout_s: float | None
    protected: list[protected.Place]
    hide_key: Callable[[str], str]
    folder: Path
    stopping: threading.Event
    shared: shared_code.SharedCode | None = None
    views: dict[tuple[Any, ...], view.View | view.Unsafe] = field(default_factory=dict)


@dataclass
class RunSummary:
    family: str
    sandbox: str
    counts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    already_tried: int = 0
    without_task: int = 0
    # Trial folders of earlier runs that were killed, removed before this one started.
    leftovers: trial_root.Leftovers = trial_root.Leftovers(0, 0)

    @property
    def trials(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "sandbox": self.sandbox,
            "trials": self.trials,
            **{result: self.counts.get(result, 0) for result in TRIAL_RESULTS},
            "seconds": round(self.seconds, 3),
            "already_tried": self.already_tried,
            "without_task": self.without_task,
            "leftover_folders_removed": self.leftovers.folders,
        }


def plan(ledger: Ledger, name: str, *, system: str | None = None, rerun: str | None = None) -> Plan:
    """The outputs of family ``name`` (in force; of ``system`` when given) to run."""
    family = catalog.get_family(ledger, name)
    if family is None:
        raise BadInput(f"no family {name!r} in the ledger", field="--family")
    if family.kind not in TESTED_KINDS:
        raise BadInput(
            f"family {name!r} is a {family.kind} family; only tests and tests_then_votes "
            "families have tests to run",
            field="--family",
        )
    if rerun is not None and rerun not in RERUN_CHOICES:
        raise BadInput(f"expected one of {', '.join(RERUN_CHOICES)}", field="--rerun")
    system_id = None
    if system is not None:
        found = catalog.find_system(ledger, system, name)
        if found is None:
            raise BadInput(f"no single system {system!r} in family {name!r}", field="--system")
        system_id = found.system_id
    tasks = trial_store.latest_tasks(ledger, name)
    latest = trial_store.latest_trials(ledger, name)
    jobs: list[Job] = []
    without: list[Output] = []
    tried = 0
    for output in family_state.load(ledger, name).in_force:
        if system_id is not None and output.system_id != system_id:
            continue
        task = tasks.get(output.case_id)
        if task is None:
            without.append(output)
            continue
        trial = latest.get((output.case_id, output.system_id, output.sample))
        if (
            trial is not None
            and trial.task_hash in (None, task.task_hash)
            and not (rerun == "all" or (rerun == "errored" and trial.result == "errored"))
        ):
            tried += 1
        else:
            jobs.append(Job(output, task))
    return Plan(family, tuple(jobs), tried, tuple(without))


def run(
    ledger: Ledger,
    planned: Plan,
    *,
    sandbox: Sandbox,
    workers: int = 1,
    timeout_s: float | None = None,
    on_trial: Callable[[Trial, Job], None] | None = None,
) -> RunSummary:
    """Run the planned trials, ``workers`` at a time, recording each as it ends.

    ``timeout_s`` replaces every task's own time limit for this run. On Ctrl-C the
    commands in flight are killed and nothing more is recorded.
    """
    if workers < 1:
        raise BadInput("expected 1 or more", field="--workers")
    if timeout_s is not None and not timeout_s > 0:
        raise BadInput("expected a number of seconds above 0", field="--timeout")
    summary = RunSummary(
        planned.family.name,
        sandbox.label,
        already_tried=planned.already_tried,
        without_task=len(planned.without_task),
    )
    root = trial_root.base()
    summary.leftovers = trial_root.remove_leftovers(root)
    started = time.monotonic()
    # The trials of one task's code side by side: its shared checkout lives while they run.
    jobs = sorted(planned.jobs, key=lambda job: shared_code.key_of(job.task))
    with trial_root.run_folder(root) as folder, reaper.watching(folder.resolve()):
        store = FileStore.beside(ledger)
        bench = _Bench(
            sandbox,
            store,
            timeout_s,
            protected.places(Path(ledger.path)),
            protected.key_hider(),
            folder,
            threading.Event(),
            shared_code.SharedCode(
                folder / "code", store, (job.task for job in jobs if job.output.text.strip())
            ),
        )
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arena-trial")
        try:
            futures: dict[Future[dict[str, Any]], Job] = {
                pool.submit(_attempt, job, bench): job for job in jobs
            }
            for future in as_completed(futures):
                fields = future.result()
                if bench.stopping.is_set():
                    break
                job = futures[future]
                trial = _trial(job, sandbox, fields, bench.hide_key)
                with ledger.atomic():
                    trial_store.add_trial(ledger, trial)
                summary.counts[trial.result] += 1
                if on_trial is not None:
                    on_trial(trial, job)
        except BaseException:
            bench.stopping.set()
            runner.kill_all()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            summary.seconds = time.monotonic() - started
    return summary


def _trial(
    job: Job, sandbox: Sandbox, fields: dict[str, Any], hide_key: Callable[[str], str]
) -> Trial:
    """The trial's record; its log and reason without the signing key's text (a trial
    cannot read the key, but a task's files might have held it)."""
    output = job.output
    values: dict[str, Any] = {
        "trial_id": "",
        "family": output.family,
        "case_id": output.case_id,
        "system_id": output.system_id,
        "sample": output.sample,
        "output_id": output.output_id,
        "source": sandbox.source,
        "sandbox": sandbox.label,
        "task_hash": job.task.task_hash,
        "at": now_iso(),
        **fields,
    }
    for text in ("log_tail", "reason"):
        if isinstance(values.get(text), str):
            values[text] = hide_key(values[text])
    values["trial_id"] = trial_store.new_trial_id(values)
    return Trial(**values)


def _attempt(job: Job, bench: _Bench) -> dict[str, Any]:
    """One trial, start to end, in a folder of its own: the Trial's measured fields."""
    if bench.stopping.is_set():
        return {}
    try:
        return _attempt_once(job, bench)
    except Exception as exc:  # the harness broke on this trial: say so on it, go on
        return _ended("errored", f"harness: {type(exc).__name__}: {exc}", repr(exc))


def _attempt_once(job: Job, bench: _Bench) -> dict[str, Any]:
    sandbox = bench.sandbox
    task = job.task
    limits = Limits.of(task, time_s=bench.timeout_s)
    refused = protected.task_refusal(task, bench.protected)
    if refused is not None:
        why = ": ".join(refused)
        return _ended("errored", f"unsafe_path: {why}", why)
    with tempfile.TemporaryDirectory(
        prefix="trial-", dir=bench.folder, ignore_cleanup_errors=True
    ) as made:
        root = Path(made).resolve()
        command = workspace.resolved_command(task.test_command)
        try:
            seen = _view(command, task, bench) if sandbox.confines else None
        except view.Unsafe as exc:
            return _ended("errored", f"unsafe_path: {exc}", str(exc))
        try:
            prepared = workspace.prepare(
                task,
                job.output.text,
                bench.store,
                root,
                fuzzy=lambda place: _patch_fuzzily(place, sandbox, seen, bench.stopping),
                shared=bench.shared,
            )
        except (CheckoutFailed, LedgerError, OSError) as exc:
            return _ended("errored", f"harness: {exc}", str(exc))
        if isinstance(prepared, workspace.Refused):
            return _ended("failed", prepared.reason, prepared.log)
        repo = root / "repo"
        env = workspace.environment(sandbox.inside(root), seen.path if seen else None)
        problem = workspace.command_problem(command, repo, env)
        if problem:
            return {**_ended("errored", problem, problem), "applied_with": prepared}
        finished = runner.run_command(
            lambda status_fd, report_fd: sandbox.wrap(
                command,
                root=root,
                view=seen,
                limits=limits,
                workdir=repo.name,
                status_fd=status_fd,
                report_fd=report_fd,
            ),
            cwd=repo,
            env=env,
            limits=limits,
            sandboxed=sandbox.reports_start,
            cancel=bench.stopping,
        )
    result: TrialResult
    if finished.problem:
        result, reason = "errored", finished.problem
    elif finished.limit:
        result, reason = "resource_limit", finished.limit
    elif finished.timed_out:
        result, reason = "timed_out", f"time limit {limits.time_s:g} s"
    elif finished.returncode == 0:
        result, reason = "passed", ""
    else:
        result, reason = "failed", "tests_failed"
    return {
        "result": result,
        "reason": reason,
        "duration_ms": round(finished.duration_ms, 1),
        "exit_code": finished.returncode,
        "log_tail": finished.log_tail,
        "log_hash": finished.log_hash,
        "applied_with": prepared,
    }


def _view(command: tuple[str, ...], task: Task, bench: _Bench) -> view.View:
    """What ``command`` is shown, worked out once per run for each program (what a
    command sees depends only on its program, the interpreter ``{python}`` stands for and
    ``read_only_paths``). Raises view.Unsafe."""
    python = (
        workspace.python_program() if workspace.PYTHON_PLACEHOLDER in task.test_command else None
    )
    key = (command[0], python, task.read_only_paths)
    seen = bench.views.get(key)
    if seen is None:
        try:
            seen = view.view_for(
                command,
                python=python,
                read_only_paths=task.read_only_paths,
                protected=bench.protected,
            )
        except view.Unsafe as exc:
            seen = exc
        bench.views[key] = seen
    if isinstance(seen, view.Unsafe):
        raise seen
    return seen


def _patch_fuzzily(
    root: Path, sandbox: Sandbox, seen: view.View | None, stopping: threading.Event
) -> tuple[bool, str]:
    """``patch --fuzz`` on the checkout in ``root``, in the sandbox (it reads an
    untrusted diff): (applied, its log)."""
    diff = sandbox.inside(root) / workspace.PATCH_FILE
    repo = root / "repo"
    finished = runner.run_command(
        lambda status_fd, report_fd: sandbox.wrap(
            (*workspace.FUZZY_PATCH, str(diff)),
            root=root,
            view=seen,
            limits=PATCH_LIMITS,
            status_fd=status_fd,
            report_fd=report_fd,
            in_place=True,
        ),
        cwd=repo,
        env=workspace.environment(sandbox.inside(root), seen.path if seen else None),
        limits=PATCH_LIMITS,
        sandboxed=sandbox.reports_start,
        cancel=stopping,
    )
    return finished.returncode == 0, finished.problem or finished.log_tail


def _ended(result: TrialResult, reason: str, log: str) -> dict[str, Any]:
    """A trial that ended before its test command ran (its log: why)."""
    data = log.encode("utf-8")
    return {
        "result": result,
        "reason": reason,
        "log_tail": runner.tail_text(data),
        "log_hash": hashlib.sha256(data).hexdigest(),
    }
