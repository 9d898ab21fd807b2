"""`arena collect` and `arena grade`: graded families."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli import output
from arena.cli.collect_cmd import add_collect_options, cmd_collect_outputs
from arena.cli.commands import open_ledger
from arena.errors import BadInput
from arena.texts import counted


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser(
        "collect",
        help="ask OpenAI-compatible endpoints for outputs: a votes family's systems "
        "(`arena systems add`) or a suite's answers into a graded family (resumable)",
    )
    c.add_argument(
        "suite",
        metavar="SUITE_OR_FAMILY",
        nargs="?",
        help="a suite file, a bundled suite name (starter), or a graded family; without it, "
        "fill --family from its systems (`arena systems add`)",
    )
    c.add_argument("--endpoint", help="with a suite: the server, e.g. http://127.0.0.1:8000")
    c.add_argument("--model", help="with a suite: the model id the endpoint serves")
    c.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the bearer token (redacted everywhere)",
    )
    c.add_argument(
        "--family",
        help="the family to fill from its systems; with a suite, the graded family "
        "(default: the suite's name)",
    )
    c.add_argument("--label", help="the run's label (default: the model id)")
    c.add_argument("--tier", default="community", help="reference or community (default)")
    c.add_argument("--system-prompt", help="a system message sent before each task")
    c.add_argument(
        "--inference",
        default="{}",
        metavar="JSON",
        help="inference settings sent with each request, e.g. "
        '\'{"temperature": 0, "max_tokens": 512}\'',
    )
    c.add_argument("--timeout", type=float, default=120.0, help="seconds per request (120)")
    c.add_argument(
        "--retries", type=int, default=4, help="retries on 429, 5xx, lost connections (4)"
    )
    c.add_argument("--prices", type=Path, help="price table (TOML/JSON, per 1M tokens)")
    c.add_argument("--revision", help="model revision (part of the run's identity)")
    c.add_argument("--artifact-digest", help="digest of the model weights")
    c.add_argument("--quantization", help="quantization of the served model")
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    add_collect_options(c)
    c.set_defaults(handler=cmd_collect)

    g = sub.add_parser("grade", help="grade a graded family again and print its scores")
    g.add_argument("family", help="the graded family")
    g.add_argument("--seed", type=int, default=0, help="bootstrap seed of the intervals (0)")
    g.add_argument(
        "--feed-votes",
        metavar="FAMILY",
        help="also copy the answers into this votes family, to vote on them",
    )
    g.add_argument("--json", action="store_true", help="print the scores as JSON")
    g.set_defaults(handler=cmd_grade)


def _suite(ledger: Any, name: str) -> tuple[Any, str | None]:
    """The suite to collect: a graded family's own, else a file or bundled suite."""
    from arena.graded.runs import suite_of
    from arena.graded.suites import load_suite
    from arena.ledger import catalog
    from arena.ledger import run_store as stored

    family = catalog.get_family(ledger, name)
    if family is not None and family.kind == "graded":
        runs = stored.runs(ledger, name)
        if runs:
            newest = max(runs.values(), key=lambda r: r["seq"])
            return suite_of(ledger, newest["suite_hash"]), name
    return load_suite(name), None


def cmd_collect(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    if args.suite is None:
        return cmd_collect_outputs(args)
    for name in ("endpoint", "model"):
        if getattr(args, name) is None:
            raise BadInput("required with a suite", field=f"--{name}")

    from arena.cli.collect_cmd import budget_options
    from arena.endpoint.prices import load_prices
    from arena.endpoint.run_settings import CollectSettings
    from arena.graded.runs import collect_run

    try:
        inference = json.loads(args.inference)
    except ValueError as exc:
        raise BadInput(f"not JSON ({exc})", field="--inference") from None
    if not isinstance(inference, dict):
        raise BadInput("expected a JSON object", field="--inference")
    prices = load_prices(args.prices, args.model) if args.prices else None
    max_cost, max_reply_bytes = budget_options(args)
    settings = CollectSettings(
        endpoint=args.endpoint,
        model=args.model,
        system_prompt=args.system_prompt,
        inference=inference,
        api_key_env=args.api_key_env,
        timeout_s=args.timeout,
        retries=args.retries,
        workers=args.workers,
        prices=prices,
        max_cost=max_cost,
        max_reply_bytes=max_reply_bytes,
    )
    with open_ledger(args) as ledger:
        suite, family = _suite(ledger, args.suite)
        with tqdm(desc="collect", unit="item", disable=None, file=sys.stderr) as bar:

            def advance(progress: Any) -> None:
                bar.total = progress.total
                bar.n = progress.answered + progress.failed
                bar.refresh()

            report = collect_run(
                ledger,
                suite,
                settings,
                family=args.family or family,
                label=args.label,
                tier=args.tier,
                revision=args.revision,
                artifact_digest=args.artifact_digest,
                quantization=args.quantization,
                on_progress=advance,
            )
    counts = dict(report.summary.status_counts)
    if args.json:
        output.emit_json(
            {
                "family": report.family,
                "system": report.system_id,
                "label": report.label,
                "total": report.summary.total,
                "skipped": report.summary.skipped,
                "delivered": report.summary.delivered,
                "status_counts": counts,
                "cost": report.summary.cost,
                "not_sent": report.summary.not_sent,
                "stopped_by_budget": report.summary.stopped_by_budget,
                "suspicious": dict(report.summary.suspicious),
            }
        )
    else:
        print(
            f"{report.label} on {report.family}: {report.summary.delivered} collected, "
            f"{report.summary.skipped} already done; "
            + ", ".join(f"{k} {v}" for k, v in counts.items() if v)
        )
        for task_id, why in list(report.summary.suspicious.items())[:20]:
            print(f"  suspicious: task {task_id}: {why}")
        if report.summary.stopped_by_budget:
            print(
                f"  stopped before --max-cost {max_cost:g}: {report.summary.not_sent} left "
                "for a later run"
            )
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    from arena.graded.runs import board, feed_votes, regrade

    with open_ledger(args) as ledger:
        changed = regrade(ledger, args.family)
        rows = board(ledger, args.family, seed=args.seed)
        fed = feed_votes(ledger, args.family, args.feed_votes) if args.feed_votes else None
    if args.json:
        output.emit_json(
            {
                "family": args.family,
                "changed": changed,
                "seed": args.seed,
                "systems": rows,
                "fed": fed,
            }
        )
        return 0
    print(f"{args.family}: {changed} grades changed")
    print_graded(rows)
    if fed is not None:
        print(f"{counted(fed, 'answer')} copied into the votes family {args.feed_votes}")
    return 0


def print_graded(rows: list[dict[str, Any]]) -> None:
    """The graded board as text (the window's columns): a line per run, then each run's
    failures by status and why any runs share a rank."""
    from arena.cli.board_text import board_table
    from arena.graded.board_rows import RANK_RULE, failure_text, shared_rank_lines
    from arena.rounds.model import BoardRow

    headers, cells, right = board_table(
        "graded", [BoardRow.from_json(r) for r in rows], category=False
    )
    print(output.table(headers, cells, right=right))
    failures = [f"{r['label']} {text}" for r in rows if (text := failure_text(r)) is not None]
    if failures:
        print("failures by status: " + "; ".join(failures))
    if any(r.get("ci_method") for r in rows):
        print(RANK_RULE + ".")
        for line in shared_rank_lines(rows):
            print(line)
