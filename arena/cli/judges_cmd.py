"""`arena judges`: import another judge's verdicts; show each judge beside the rater."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.errors import BadInput
from arena.judges.figures import anchor_text, between_text, boards, tau_shown, worth_text
from arena.judges.figures import shown as _shown
from arena.ledger import Ledger
from arena.texts import counted

if TYPE_CHECKING:
    from arena.judges.declared import DeclaredJudge
    from arena.judges.running import JudgeRunReport


def register(sub: argparse._SubParsersAction) -> None:
    from arena.judges.importing import FORMATS, KINDS
    from arena.judges.verdict_files import BASELINE

    judges = sub.add_parser("judges", help="other judges beside the rater (docs/judges.md)")
    verbs = judges.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser("import", help="import a judge's verdicts (one transaction)")
    p.add_argument("file", type=Path, help="the verdict file, or a colleague's bundle")
    p.add_argument("--family", required=True, help="the family judged")
    p.add_argument("--judge", required=True, help="the judge's name (not 'rater')")
    p.add_argument("--kind", required=True, choices=KINDS, help="a person or a model")
    p.add_argument("--format", dest="fmt", default="native", choices=(*FORMATS, "bundle"))
    p.add_argument("--column", help="pandalm: the annotator column to read (e.g. annotator2)")
    p.add_argument(
        "--baseline",
        default=BASELINE,
        help=f"arena-hard: the baseline system of lines that do not name one ({BASELINE})",
    )
    p.add_argument(
        "--turns",
        choices=("all", "first"),
        default="all",
        help="fastchat-pair, fastchat-single: the judgments of every turn (all) or of turn 1 "
        "only (first: a family imported with `arena import --turns first`)",
    )
    p.add_argument(
        "--signer",
        metavar="FINGERPRINT",
        help="bundle (required): the colleague's key, as their `arena key` prints it",
    )
    p.set_defaults(handler=cmd_import)
    p = verbs.add_parser("show", help="each judge's agreement with the rater, and α")
    p.add_argument("--family", required=True, help="the family")
    p.add_argument(
        "--rater",
        metavar="NAME",
        help="where several people voted: whose votes the others are compared with, any "
        "rater of the family (default: the one at the keyboard)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_show)
    p = verbs.add_parser("disagreements", help="where a judge and the rater differ, surest first")
    p.add_argument("--family", required=True, help="the family")
    p.add_argument("--judge", required=True, help="the judge")
    p.add_argument("--limit", type=int, help="list only the first N")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_disagreements)
    _register_run(verbs)


def _register_run(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "run", help="ask an LLM judge over an endpoint to judge the family's pairs"
    )
    p.add_argument("--family", required=True, help="the family judged")
    p.add_argument("--judge", required=True, help="the judge's name (its [[judge]] table's)")
    p.add_argument(
        "--systems", type=Path, metavar="FILE", help="the systems file declaring the judge"
    )
    p.add_argument("--sample", type=int, metavar="N", help="judge N items drawn at random")
    p.add_argument("--seed", type=int, default=0, help="the draw of --sample (0)")
    p.add_argument(
        "--one-order", action="store_true", help="ask each item once (default: both orders)"
    )
    declare = p.add_argument_group("declaring the judge with flags (instead of --systems)")
    declare.add_argument("--base-url", help="the endpoint (OpenAI-compatible)")
    declare.add_argument("--model", help="the model id")
    declare.add_argument(
        "--template", help="a template Arena ships (pairwise, pairwise-graded) or a file"
    )
    declare.add_argument("--temperature", type=float)
    declare.add_argument("--max-tokens", type=int)
    declare.add_argument("--input-price", type=float, help="per million prompt tokens")
    declare.add_argument("--output-price", type=float, help="per million answer tokens")
    declare.add_argument("--api-key-env", help="the environment variable holding the key")
    p.add_argument("--workers", type=int, default=4, help="requests in flight (4)")
    p.add_argument(
        "--per-endpoint", type=int, metavar="N", help="requests in flight to the endpoint"
    )
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="AMOUNT",
        help="stop sending before this run's cost could pass AMOUNT (list prices; needs the "
        "judge's prices and max_tokens)",
    )
    p.add_argument(
        "--max-reply-mb",
        type=float,
        metavar="MB",
        help="a larger reply is cut off and counts as a failed attempt (default 8)",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (120)")
    p.add_argument(
        "--retries", type=int, default=4, help="retries on 429, 5xx, lost connections (4)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=cmd_run)


_FLAGS = (
    ("base_url", "--base-url"),
    ("model", "--model"),
    ("template", "--template"),
    ("temperature", "--temperature"),
    ("max_tokens", "--max-tokens"),
    ("input_price", "--input-price"),
    ("output_price", "--output-price"),
    ("api_key_env", "--api-key-env"),
)


def _declared(args: argparse.Namespace) -> DeclaredJudge | None:
    """The judge the command declares: from --systems, from the flags, or None (as run)."""
    from arena.judges.declared import declared_judge, judge_of

    given = {name: getattr(args, name) for name, _ in _FLAGS if getattr(args, name) is not None}
    if args.systems is not None:
        if given:
            flag = next(f for n, f in _FLAGS if n in given)
            raise BadInput("declare the judge in the file or with flags, not both", field=flag)
        return declared_judge(args.systems, args.judge)
    if not given:
        return None
    try:
        return judge_of({"name": args.judge, **given}, Path.cwd())
    except BadInput as exc:
        if exc.path is not None:
            raise
        raise BadInput(exc.message, field=dict(_FLAGS).get(exc.field or "", exc.field)) from None


def cmd_run(args: argparse.Namespace) -> int:
    import sys

    from tqdm import tqdm

    from arena.cli.collect_cmd import budget_options
    from arena.endpoint.worker_pool import Progress
    from arena.judges.running import RunOptions, run_judge

    max_cost, max_reply_bytes = budget_options(args)
    options = RunOptions(
        workers=args.workers,
        per_endpoint=args.per_endpoint,
        max_cost=max_cost,
        timeout_s=args.timeout,
        retries=args.retries,
        max_reply_bytes=max_reply_bytes,
        one_order=args.one_order,
        sample=args.sample,
        seed=args.seed,
    )
    declared = _declared(args)
    with (
        open_ledger(args) as ledger,
        tqdm(desc=f"judge {args.judge}", unit="verdict", disable=None, file=sys.stderr) as bar,
    ):

        def advance(progress: Progress) -> None:
            bar.total = progress.total
            bar.n = progress.answered + progress.failed
            bar.set_postfix(
                {
                    "verdicts/s": f"{progress.rate:.1f}",
                    "errors": progress.failed,
                    "cost": f"{progress.cost:.4f}",
                },
                refresh=False,
            )
            bar.refresh()

        report = run_judge(
            ledger, args.family, args.judge, declared=declared, options=options, on_progress=advance
        )
    code = 0 if not report.failures else 1
    if args.json:
        output.emit_json(_run_summary(report))
        return code
    print(
        f"{report.family}: {args.judge} judged {counted(report.judged, 'item order')} "
        f"({report.verdicts['left']} left, {report.verdicts['tie']} tie, "
        f"{report.verdicts['right']} right, {report.unparsed} unparsed) of "
        f"{counted(report.items, 'item')} in {report.elapsed_s:.1f} s, "
        f"{report.already_done} already judged, {len(report.failures)} failed, "
        f"cost {report.cost:.4f}"
    )
    for failure in report.failures[:20]:
        print(f"  failed: case {failure.case_id} order {failure.game}: {failure.error}")
    if report.stopped_by_budget:
        print(
            f"  stopped before --max-cost {args.max_cost:g}: {report.not_sent} left for a later run"
        )
    elif report.not_sent:
        print(f"  {report.not_sent} not sent; run again to judge them")
    return code


def _run_summary(report: JudgeRunReport) -> dict[str, Any]:
    return {
        "family": report.family,
        "judge": report.judge,
        "judge_id": report.judge_id,
        "items": report.items,
        "already_done": report.already_done,
        "total": report.total,
        "judged": report.judged,
        "verdicts": report.verdicts,
        "unparsed": report.unparsed,
        "failed": [f.__dict__ for f in report.failures],
        "not_sent": report.not_sent,
        "cost": report.cost,
        "elapsed_s": report.elapsed_s,
        "stopped_by_budget": report.stopped_by_budget,
    }


def cmd_import(args: argparse.Namespace) -> int:
    from arena.judges.importing import check_options, import_judge
    from arena.judges.verdict_files import Options

    who = {"family": args.family, "judge": args.judge, "kind": args.kind}
    options = Options(args.column, args.baseline, args.turns == "first")
    check_options(args.fmt, options)
    if (args.fmt == "bundle") != (args.signer is not None):
        raise BadInput("only with --format bundle, which needs it", field="--signer")
    with open_ledger(args) as ledger:
        if args.fmt == "bundle":
            from arena.bundle.colleague import import_bundle

            report = import_bundle(ledger, args.file, signer=args.signer, **who)
        else:
            report = import_judge(ledger, args.file, fmt=args.fmt, options=options, **who)
    print(f"{report.summary()}; source sha256 {report.source_sha256}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from arena.judges.comparison import RATER_KIND, judges_report

    with open_ledger(args, readonly=True) as ledger:
        wanted = _reference(ledger, args)
        report = judges_report(ledger, args.family, rater=wanted)
    if args.json:
        output.emit_json(report)
        return 0
    rater = report["rater"]
    named = f" {rater['name']}" if "name" in rater else ""
    if named and rater["name"] != wanted:
        named += f" (the first to vote: {wanted} has no votes here)"
    print(
        f"rater{named}: {counted(rater['verdicts'], 'vote')} on {counted(rater['items'], 'item')}"
    )
    if report.get("between_raters"):
        print(between_text(report["between_raters"]))
    if not report["judges"]:
        print(f"no judges in {args.family}: `arena judges import` adds one")
        return 0
    print(
        output.table(
            ["judge", "kind", "verdicts", "overlap", "agree", "agree (no ties)", "κ"],
            [
                [
                    j["judge"],
                    "rater: votes on the board" if j["kind"] == RATER_KIND else j["kind"],
                    j["verdicts"],
                    j["overlap"],
                    _shown(j["agreement_with_ties"]),
                    _shown(j["agreement_without_ties"]),
                    _shown(j["kappa"]),
                ]
                for j in report["judges"]
            ],
        )
    )
    for j in report["judges"]:
        if "unparsed" in j:  # a run judge: its replies that named no verdict
            unparsed = counted(j["unparsed"], "reply", "replies")
            print(f"{j['judge']}: {unparsed} named no verdict (unparsed)")
    for j in report["judges"]:
        if j["position_consistency"] is not None:
            print(
                f"{j['judge']}: position consistency {_shown(j['position_consistency'])}, "
                f"first position preferred {_shown(j['first_position_preference'])}"
            )
    for j in report["judges"]:
        worth = worth_text(j)
        if worth is not None:
            print(f"{j['judge']}: {worth}")
    over = "all raters and judges" if report.get("between_raters") else "rater and all judges"
    print(f"Krippendorff's α (ordinal, {over}): {_shown(report['alpha'])}")
    print(f"95% intervals: bootstrap over items, seed {report['seed']}")
    print()
    print(
        output.table(
            ["judge", "length bias (points/SD)", "τ with the rater's board"],
            [
                [j["judge"], _shown(j["length_bias"], 1), tau_shown(j["board_tau"])]
                for j in report["judges"]
            ],
        )
    )
    print()
    print(output.table(*boards(report)))
    print(anchor_text(report))
    print(
        "points of each board [95% interval]; length bias, τ and boards: bootstrap over "
        f"cases, seed {report['seed']}"
    )
    return 0


def _reference(ledger: Ledger, args: argparse.Namespace) -> str:
    """Whose votes the others are compared with: ``--rater`` (any rater of the family, a
    colleague whose votes came in a bundle too: it names whose votes are read, not who
    votes here), else the one at the keyboard."""
    from arena.ledger import catalog, tallies
    from arena.rating import raters

    if args.rater is None:
        return raters.at_keyboard(ledger) or raters.DEFAULT_RATER
    name = raters.checked(args.rater)
    if catalog.get_family(ledger, args.family) is None:
        raise catalog.no_such_family(ledger, args.family)
    voted = [actor for actor in tallies.votes_by_actor(ledger, args.family) if actor != "settler"]
    if name not in voted:
        raise BadInput(
            f"no votes by {name!r} in {args.family} (raters: {', '.join(voted) or 'none'})",
            field="--rater",
        )
    return name


def cmd_disagreements(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from arena.judges.disagreements import COLUMNS, disagreements, row
    from arena.rating import raters

    with open_ledger(args, readonly=True) as ledger:
        rater = raters.at_keyboard(ledger) or raters.DEFAULT_RATER
        found = disagreements(ledger, args.family, args.judge, rater)
    listed = found[: args.limit] if args.limit is not None else found
    if args.json:
        output.emit_json(
            {
                "family": args.family,
                "judge": args.judge,
                "count": len(found),
                "disagreements": [asdict(d) for d in listed],
            }
        )
        return 0
    if not found:
        print(f"{args.judge} and the rater answered every shared item alike")
        return 0
    headers = [args.judge if c == "judge" else c for c in COLUMNS]
    print(output.table(headers, [row(rank, d) for rank, d in enumerate(listed, 1)]))
    shown = f"the first {len(listed)} of " if len(listed) < len(found) else ""
    print(
        f"{shown}{counted(len(found), 'disagreement')}, most confident first; answers on the sides "
        "the rater first saw (left, tie, right)"
    )
    return 0
