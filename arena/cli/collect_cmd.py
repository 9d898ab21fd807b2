"""`arena case import`, `arena systems add|list` and `arena collect --family F`: cases
without outputs, the systems that answer them, and collecting their answers."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.errors import BadInput
from arena.redact import DEFAULT_SECRET_ENVS, Redactor
from arena.texts import counted


def register(sub: argparse._SubParsersAction) -> None:
    """Add `case import` to the `case` command (the rater's corrections made it), and
    `systems`."""
    case_sub = next(
        a for a in sub.choices["case"]._actions if isinstance(a, argparse._SubParsersAction)
    )
    c = case_sub.add_parser(
        "import", help="import a file of cases (prompts, no outputs) into a family"
    )
    c.add_argument("file", type=Path, help="the file of cases")
    c.add_argument("--family", required=True, help="the family (it must exist)")
    c.add_argument(
        "--format",
        default="native",
        choices=("native", "csv", "fastchat-questions", "alpacaeval", "swebench-tasks"),
        help="input format (default: native JSON Lines, see docs/formats.md)",
    )
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    c.set_defaults(handler=cmd_case_import)

    systems = sub.add_parser("systems", help="the systems a family collects outputs from")
    systems_sub = systems.add_subparsers(dest="systems_command", metavar="COMMAND", required=True)
    a = systems_sub.add_parser("add", help="add the systems of a TOML systems file to a family")
    a.add_argument("file", type=Path, help="the systems file ([[system]] tables)")
    a.add_argument("--family", required=True, help="the family (it must exist)")
    a.set_defaults(handler=cmd_systems_add)
    s = systems_sub.add_parser("list", help="a family's systems to collect from")
    s.add_argument("--family", required=True, help="the family")
    s.add_argument("--json", action="store_true", help="print the systems as JSON")
    s.set_defaults(handler=cmd_systems_list)


def add_collect_options(c: argparse.ArgumentParser) -> None:
    """The options of `arena collect --family F` (the graded form shares the parser)."""
    c.add_argument(
        "--system",
        action="append",
        default=[],
        metavar="LABEL",
        help="without a suite: collect from this system only (repeatable; default: all)",
    )
    c.add_argument("--workers", type=int, default=4, help="requests in flight (4)")
    # The suite form's old name, kept so that scripts written for it still run.
    c.add_argument(
        "--concurrency", type=int, dest="workers", default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    c.add_argument(
        "--per-endpoint",
        type=int,
        metavar="N",
        help="without a suite: requests in flight to one endpoint (default: --workers)",
    )
    c.add_argument(
        "--max-cost",
        type=float,
        metavar="AMOUNT",
        help="stop sending before this run's cost could pass AMOUNT (list prices; needs "
        "prices and max_tokens for every system)",
    )
    c.add_argument(
        "--max-reply-mb",
        type=float,
        metavar="MB",
        help="a larger reply is cut off and counts as a failed attempt (default 8)",
    )


def budget_options(args: argparse.Namespace) -> tuple[float | None, int]:
    """``--max-cost`` and ``--max-reply-mb`` (in bytes), checked."""
    from arena.endpoint.run_settings import DEFAULT_MAX_REPLY_BYTES

    if args.max_cost is not None and not 0 <= args.max_cost < math.inf:
        raise BadInput("expected an amount ≥ 0", field="--max-cost")
    if args.max_reply_mb is None:
        return args.max_cost, DEFAULT_MAX_REPLY_BYTES
    if not 0 < args.max_reply_mb < math.inf:
        raise BadInput("expected a positive size", field="--max-reply-mb")
    return args.max_cost, max(1, round(args.max_reply_mb * 1_000_000))


def cmd_case_import(args: argparse.Namespace) -> int:
    from arena.intake.case_import import import_cases
    from arena.intake.readers import ReadOptions

    options = ReadOptions(redactor=Redactor.from_environment(DEFAULT_SECRET_ENVS))
    with open_ledger(args) as ledger:
        report = import_cases(
            ledger, args.file, family=args.family, fmt=args.format, options=options
        )
    if args.json:
        output.emit_json(report.__dict__)
    else:
        print(
            f"{args.file}: {counted(report.records, 'case')} read, {report.cases_added} new "
            f"in {report.family}"
        )
    return 0


def cmd_systems_add(args: argparse.Namespace) -> int:
    from arena.collecting.systems_file import add_systems

    with open_ledger(args) as ledger:
        added = add_systems(ledger, args.file, args.family)
    for system, new in added:
        print(f"{system.label}  {system.system_id[:12]}  {'added' if new else 'already there'}")
    return 0


def cmd_systems_list(args: argparse.Namespace) -> int:
    from arena.collecting.systems_file import samples_of
    from arena.ledger import catalog, roster

    with open_ledger(args, readonly=True) as ledger:
        if catalog.get_family(ledger, args.family) is None:
            raise catalog.no_such_family(ledger, args.family)
        systems = roster.family_systems(ledger, args.family)
    rows: list[dict[str, Any]] = [
        {
            "label": s.label,
            "system_id": s.system_id,
            "model": s.descriptor.model,
            "endpoint": s.descriptor.inference.get("endpoint"),
            "samples": samples_of(s),
            "descriptor": s.descriptor.canonical(),
        }
        for s in systems
    ]
    if args.json:
        output.emit_json(rows)
    elif not rows:
        print(f"family {args.family!r} has no systems to collect from (`arena systems add`)")
    else:
        print(
            output.table(
                ["label", "id", "model", "endpoint", "samples"],
                [
                    [r["label"], r["system_id"][:12], r["model"], r["endpoint"], r["samples"]]
                    for r in rows
                ],
            )
        )
    return 0


def cmd_collect_outputs(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from arena.collecting.asking import RunOptions
    from arena.collecting.fill import fill
    from arena.endpoint.worker_pool import Progress

    if not args.family:
        raise BadInput("name the family to fill (or a suite for a graded family)", field="--family")
    max_cost, max_reply_bytes = budget_options(args)
    options = RunOptions(
        workers=args.workers,
        per_endpoint=args.per_endpoint,
        max_cost=max_cost,
        timeout_s=args.timeout,
        retries=args.retries,
        max_reply_bytes=max_reply_bytes,
    )
    if options.per_endpoint is not None and options.per_endpoint < 1:
        raise BadInput("at least 1", field="--per-endpoint")
    with (
        open_ledger(args) as ledger,
        tqdm(desc="collect", unit="answer", disable=None, file=sys.stderr) as bar,
    ):

        def advance(progress: Progress) -> None:
            bar.total = progress.total
            bar.n = progress.answered + progress.failed
            bar.set_postfix(
                {
                    "answers/s": f"{progress.rate:.1f}",
                    "errors": progress.failed,
                    "cost": f"{progress.cost:.4f}",
                },
                refresh=False,
            )
            bar.refresh()

        report = fill(ledger, args.family, labels=args.system, options=options, on_progress=advance)
    summary = report.summary
    if args.json:
        output.emit_json(_summary(report))
        return 0 if not summary.failures else 1
    print(
        f"{report.family}: {counted(summary.answered, 'answer')} collected from "
        f"{', '.join(report.systems)} in {summary.elapsed_s:.1f} s, {report.already_done} "
        f"already there, {len(summary.failures)} failed, cost {summary.cost:.4f}"
    )
    for failure in summary.failures[:20]:
        print(
            f"  failed: {failure.label} on case {failure.case_id} sample {failure.sample}: "
            + failure.error
        )
    for odd in summary.suspicious[:20]:
        print(f"  suspicious: {odd.label} on case {odd.case_id} sample {odd.sample}: {odd.error}")
    if summary.stopped_by_budget:
        print(
            f"  stopped before --max-cost {args.max_cost:g}: {summary.not_sent} left for a "
            "later run"
        )
    elif summary.not_sent:
        print(f"  {summary.not_sent} not sent; run again to collect them")
    return 0 if not summary.failures else 1


def _summary(report: Any) -> dict[str, Any]:
    s = report.summary
    return {
        "family": report.family,
        "systems": list(report.systems),
        "already_done": report.already_done,
        "total": s.total,
        "answered": s.answered,
        "failed": [f.__dict__ for f in s.failures],
        "suspicious": [f.__dict__ for f in s.suspicious],
        "not_sent": s.not_sent,
        "cost": s.cost,
        "elapsed_s": s.elapsed_s,
        "stopped_by_budget": s.stopped_by_budget,
    }
