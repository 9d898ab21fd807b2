"""`arena check`: is the ledger sound, does it still hold a state seen before, and
acknowledging a loss so that writing can go on."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.errors import BadInput, LedgerError
from arena.texts import counted


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="check the ledger's integrity, every hash chain and every seal"
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--head",
        action="append",
        default=[],
        metavar="DIGEST",
        help="a head digest printed earlier (round close, export): the ledger must still "
        "hold that state (repeatable)",
    )
    p.add_argument(
        "--bundle",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="an exported bundle: it must verify, and the ledger must still hold the state "
        "it was exported from (repeatable)",
    )
    p.add_argument(
        "--accept-loss",
        action="store_true",
        help="record that rows the head file vouched for are gone, so writing can go on "
        "(needs --reason)",
    )
    p.add_argument("--reason", help="why the loss is accepted (with --accept-loss)")
    p.add_argument(
        "--recount",
        action="store_true",
        help="count the vote tallies (what status and a rating session read) again from "
        "the votes and write them anew, then check",
    )
    p.set_defaults(handler=cmd_check)


def _bundle_digests(bundles: list[Path]) -> tuple[list[str], list[str]]:
    """The head digests the bundles were exported at, and the bundles' own problems."""
    from arena.bundle.verify import verify_bundle

    digests, problems = [], []
    for path in bundles:
        report = verify_bundle(path)
        problems += [f"bundle {path}: {line}" for line in report.problems]
        digest = report.ledger_head
        if digest is None:
            problems.append(f"bundle {path}: records no head digest (exported before seals)")
        else:
            digests.append(digest)
    return digests, problems


def cmd_check(args: argparse.Namespace) -> int:
    from arena.ledger.integrity import check

    if args.accept_loss != bool(args.reason):
        raise BadInput("--accept-loss and --reason go together", field="--reason")
    if args.accept_loss:
        return _accept_loss(args)
    if args.recount:
        from arena.ledger import summaries

        with open_ledger(args) as ledger:
            summaries.write_tallies_anew(ledger)
    digests, problems = _bundle_digests(args.bundle)
    with open_ledger(args, readonly=True) as ledger:
        problems = check(ledger, (*args.head, *digests)) + problems
        newest = ledger.head_digest()
    if args.json:
        output.emit_json(
            {
                "ledger": str(ledger.path),
                "ok": not problems,
                "problems": problems,
                "head": None if newest is None else newest.hash,
            }
        )
    elif problems:
        for line in problems:
            print(line)
    else:
        print(f"{ledger.path}: ok (integrity, foreign keys, every hash chain and seal)")
        print(f"head digest: {newest}")
    if problems:
        raise LedgerError(f"{counted(len(problems), 'problem')} found in {ledger.path}")
    return 0


def _accept_loss(args: argparse.Namespace) -> int:
    from arena.ledger.integrity import check

    with open_ledger(args) as ledger:
        problems = check(ledger)
        lost = ledger.behind()
        other = [p for p in problems if p not in lost]
        if other:
            raise LedgerError(
                "the ledger has problems beyond lost rows; --accept-loss acknowledges only "
                "a loss:\n" + "\n".join(other)
            )
        if not lost:
            print(f"{ledger.path}: nothing is lost; nothing was recorded")
            return 0
        sealed = ledger.accept_loss(args.reason, lost)
    print("\n".join(lost))
    print(f"loss accepted in commit {sealed.seq} ({json.dumps(args.reason)}); head file restarted")
    print(f"head digest: {sealed}")
    return 0
