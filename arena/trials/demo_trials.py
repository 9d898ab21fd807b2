"""The demo's tests family (``fixes``): its tasks stored and every output's hidden tests
run here, as ``arena tasks import`` and ``arena tests run`` do (resources/demo/fixes/).

Where the tests cannot run (no sandbox, no git to apply the diffs, no Python to run
them with), nothing is run: the results the demo file ships with each output (its
imported ``test_result``) stand, and the caller says so loudly. Once they run, each
output's trial has the say, and any trial that disagrees with the shipped result is
reported.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.ledger import Ledger, catalog
from arena.paths import resource_path
from arena.records import Trial
from arena.trials import run_trials, sandbox, workspace
from arena.trials.task_import import import_tasks

DEMO_TESTS_FAMILY = "fixes"


def demo_task_file() -> Path:
    """The demo's task file; its repository and hidden tests are beside it."""
    return resource_path("demo", "fixes", "tasks.toml")


@dataclass(frozen=True)
class DemoPlan:
    """The demo's tasks stored, and what running their tests here takes."""

    family: str
    tasks: int
    sandbox: sandbox.Sandbox | None
    plan: run_trials.Plan | None
    # Why the tests cannot run here ('' when they can): the shipped results stand.
    fallback: str = ""


@dataclass(frozen=True)
class DemoTrials:
    """What running the demo's tests here gave."""

    summary: run_trials.RunSummary
    # (case, system label, shipped result, result here) for each trial that disagrees
    # with the result shipped with its output.
    disagreements: tuple[tuple[str, str, str, str], ...] = ()


def why_not_run(found: sandbox.Sandbox | None) -> str:
    """Why the demo's tests cannot run here ('' when they can)."""
    if found is None:
        return (
            "there is no sandbox on this machine (Linux: install bubblewrap, e.g. "
            "apt-get install bubblewrap; macOS: sandbox-exec)"
        )
    if shutil.which("git") is None:
        return "git is not installed (it applies the diffs)"
    if workspace.python_program() is None:
        return "there is no Python to run the tests with (python3 is not on PATH)"
    return ""


def prepare(ledger: Ledger) -> DemoPlan:
    """Store the demo's tasks in its tests family (its outputs are imported already) and
    find the sandbox to run them in (a weak one will do: the demo's diffs are Arena's
    own, not a system's)."""
    imported = import_tasks(ledger, demo_task_file(), family=DEMO_TESTS_FAMILY)
    found = sandbox.best()
    why = why_not_run(found)
    if why:
        return DemoPlan(DEMO_TESTS_FAMILY, imported.tasks, found, None, why)
    planned = run_trials.plan(ledger, DEMO_TESTS_FAMILY)
    return DemoPlan(DEMO_TESTS_FAMILY, imported.tasks, found, planned)


def run(
    ledger: Ledger,
    prepared: DemoPlan,
    *,
    workers: int = 2,
    on_trial: Callable[[Trial, run_trials.Job], None] | None = None,
) -> DemoTrials:
    """Run the prepared trials, each recorded as it ends (as ``arena tests run``)."""
    if prepared.plan is None or prepared.sandbox is None:
        raise ValueError(f"the demo's tests cannot run here: {prepared.fallback}")
    labels = {s.system_id: s.label for s in catalog.systems(ledger, prepared.family)}
    disagree: list[tuple[str, str, str, str]] = []

    def record(trial: Trial, job: run_trials.Job) -> None:
        shipped = job.output.test_result
        if shipped is not None and shipped != trial.result:
            label = labels.get(job.output.system_id, job.output.system_id)
            disagree.append((job.output.case_id, label, shipped, trial.result))
        if on_trial is not None:
            on_trial(trial, job)

    summary = run_trials.run(
        ledger, prepared.plan, sandbox=prepared.sandbox, workers=workers, on_trial=record
    )
    return DemoTrials(summary, tuple(sorted(disagree)))
