"""`arena demo`'s tests family: its hidden tests run in the sandbox as the demo is built,
or, where they cannot run, the results shipped with the demo kept and said loudly."""

from __future__ import annotations

import os
from pathlib import Path

from arena.cli import output
from arena.cli.trial_progress import TrialProgress
from arena.ledger import Ledger, catalog
from arena.texts import counted


def fallback_warning(family: str, why: str, ledger_path: Path) -> str:
    return (
        f"WARNING: the demo's hidden tests were NOT run: {why}. The {family!r} family "
        "shows the test results shipped with the demo (resources/demo/fixes.jsonl, "
        "imported as they are), not trials run on this machine. Once a sandbox is "
        f"installed: arena --ledger {ledger_path} tests run --family {family}"
    )


def run_demo_tests(ledger_path: Path) -> str:
    """Import the demo's tasks and run their hidden tests (progress on stderr); a line
    saying what came of it."""
    from arena.trials import demo_trials

    with Ledger.open(ledger_path) as ledger:
        prepared = demo_trials.prepare(ledger)
        if prepared.plan is None:
            output.error(fallback_warning(prepared.family, prepared.fallback, ledger_path))
            return (
                f"{prepared.family}: {counted(prepared.tasks, 'task')}, hidden tests NOT run here; "
                "the shipped results stand"
            )
        labels = {str(s.system_id): s.label for s in catalog.systems(ledger, prepared.family)}
        with TrialProgress(len(prepared.plan.jobs), labels) as progress:
            ran = demo_trials.run(
                ledger,
                prepared,
                workers=max(1, min(4, os.cpu_count() or 1)),
                on_trial=progress.trial,
            )
    summary = ran.summary
    for case, label, shipped, here in ran.disagreements:
        output.error(
            f"WARNING: {case} · {label}: the demo ships {shipped}, but its tests {here} here"
        )
    passed = summary.counts.get("passed", 0)
    return (
        f"{summary.family}: {counted(summary.trials, 'trial')} run in {summary.sandbox} in "
        f"{summary.seconds:.1f} s, {passed} passed, {summary.trials - passed} did not"
    )
