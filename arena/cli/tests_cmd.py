"""`arena tasks import` and `arena tests run`: tests families' hidden tests (docs/tests.md)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.cli.trial_progress import TrialProgress
from arena.texts import counted

NO_SANDBOX_WARNING = (
    "WARNING: --no-sandbox: the hidden tests run with your user's full rights: they can "
    "reach the network and write anywhere you can. Every trial of this run is recorded "
    "with source no_sandbox."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tasks", help="tasks with hidden tests for a tests family")
    tsub = p.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)
    i = tsub.add_parser(
        "import", help="store a task file's tasks (repository, hidden tests, test command)"
    )
    i.add_argument("file", type=Path, help="the task file (.toml, else JSON Lines)")
    i.add_argument("--family", required=True, help="the tests family (created if missing)")
    i.add_argument(
        "--kind",
        choices=("tests", "tests_then_votes"),
        help="the kind of a family created here (default tests)",
    )
    i.add_argument("--language", help="BCP 47 language of a family created here (default en)")
    i.add_argument("--json", action="store_true", help="print the result as JSON")
    i.set_defaults(handler=cmd_tasks_import)

    p = sub.add_parser("tests", help="run the hidden tests of a tests family")
    rsub = p.add_subparsers(dest="tests_command", metavar="ACTION", required=True)
    r = rsub.add_parser(
        "run",
        help="run the hidden tests on every output without a trial, in a sandbox "
        "without network, recording a trial for each",
    )
    r.add_argument("--family", required=True, help="the tests family")
    r.add_argument("--system", metavar="LABEL", help="only this system's outputs")
    r.add_argument(
        "--workers",
        type=int,
        default=max(1, (os.cpu_count() or 2) // 2),
        help="trials run at once (default: half the cores)",
    )
    r.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="time limit of every test command in this run (default: each task's own)",
    )
    r.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run without any sandbox (network and writes allowed; recorded on each trial)",
    )
    r.add_argument(
        "--weak-sandbox",
        action="store_true",
        help="where bubblewrap is missing, run in a sandbox that keeps the network out "
        "but lets the tests read your files (recorded on each trial)",
    )
    r.add_argument(
        "--rerun",
        nargs="?",
        const="all",
        choices=("all", "errored"),
        help="also run outputs that have a trial already: all of them, or those whose "
        "newest trial errored (the newest trial is the one in force)",
    )
    r.add_argument("--json", action="store_true", help="print the summary as JSON")
    r.set_defaults(handler=cmd_tests_run)


def cmd_tasks_import(args: argparse.Namespace) -> int:
    from arena.trials.task_import import import_tasks

    with open_ledger(args) as ledger:
        report = import_tasks(
            ledger, args.file, family=args.family, kind=args.kind, language=args.language
        )
    if report.cases_kept:
        output.error(
            f"{counted(len(report.cases_kept), 'case')} already in {report.family!r} "
            f"{'keeps its' if len(report.cases_kept) == 1 else 'keep their'} own "
            f"prompt or category (cases are never changed): {', '.join(report.cases_kept[:5])}"
            + (" …" if len(report.cases_kept) > 5 else "")
        )
    if args.json:
        output.emit_json(
            {
                "family": report.family,
                "tasks": report.tasks,
                "tasks_added": report.tasks_added,
                "cases_added": report.cases_added,
                "family_created": report.family_created,
                "files_stored": report.files_stored,
                "cases_kept": list(report.cases_kept),
            }
        )
    else:
        created = " (family created)" if report.family_created else ""
        print(
            f"{report.family}{created}: {counted(report.tasks, 'task')} read, {report.tasks_added} "
            f"stored new or changed, {counted(report.cases_added, 'case')} added, "
            f"{counted(report.files_stored, 'file')} in the file store"
        )
    return 0


def cmd_tests_run(args: argparse.Namespace) -> int:
    from arena.ledger import catalog
    from arena.records import TRIAL_RESULTS
    from arena.trials import run_trials
    from arena.trials.sandbox import choose

    sandbox = choose(no_sandbox=args.no_sandbox, weak_sandbox=args.weak_sandbox)
    if sandbox.kind == "none":
        output.error(NO_SANDBOX_WARNING)
    elif not sandbox.confines:
        output.error(
            f"WARNING: {sandbox.label}: the hidden tests can read your files. Every trial "
            "of this run is recorded with source weak_sandbox."
        )
    with open_ledger(args) as ledger:
        planned = run_trials.plan(ledger, args.family, system=args.system, rerun=args.rerun)
        labels = {str(s.system_id): s.label for s in catalog.systems(ledger, args.family)}
        with TrialProgress(len(planned.jobs), labels) as progress:
            summary = run_trials.run(
                ledger,
                planned,
                sandbox=sandbox,
                workers=args.workers,
                timeout_s=args.timeout,
                on_trial=progress.trial,
            )
    if summary.leftovers.folders:
        output.error(
            f"removed {counted(summary.leftovers.folders, 'trial folder')} left by an earlier run "
            f"that was killed ({summary.leftovers.bytes / 1e6:.1f} MB)"
        )
    if args.json:
        output.emit_json(summary.as_dict())
        return 0
    counts = ", ".join(f"{summary.counts.get(r, 0)} {r}" for r in TRIAL_RESULTS)
    print(
        f"{summary.family}: {counted(summary.trials, 'trial')} in {summary.seconds:.1f} s "
        f"({sandbox.label}): {counts}"
    )
    if summary.already_tried:
        print(
            f"{summary.already_tried} outputs have a trial already and were not run again "
            "(--rerun runs them)"
        )
    if summary.without_task:
        print(
            f"{summary.without_task} outputs have no task to run (arena tasks import FILE "
            f"--family {summary.family})"
        )
    return 0
