"""`arena export` (a signed bundle, or battles), `arena verify` and `arena key`."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.texts import counted


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("export", help="write a round's bundle (folder or .zip) for others")
    e.add_argument("round", nargs="?", help="round id or prefix (default: the newest)")
    e.add_argument("--family", help="the newest round of this family")
    e.add_argument("--out", type=Path, required=True, help="a new folder, or a file ending .zip")
    e.add_argument(
        "--format",
        choices=("bundle", "battles"),
        default="bundle",
        help="bundle (signed, for `arena verify`; default) or battles (FastChat/LMArena JSON)",
    )
    e.set_defaults(handler=cmd_export)

    f = sub.add_parser("verify", help="recheck a bundle's signature and hashes and refit it")
    f.add_argument("bundle", type=Path, help="the bundle folder or .zip")
    f.add_argument(
        "--signer",
        metavar="FINGERPRINT",
        help="require this signer (as `arena key` prints it on the rater's machine)",
    )
    f.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="check an unsigned bundle instead of refusing it",
    )
    f.add_argument("--json", action="store_true", help="print the result as JSON")
    f.set_defaults(handler=cmd_verify)

    k = sub.add_parser("key", help="the fingerprint of your signing key (made on first use)")
    k.add_argument("--json", action="store_true", help="print the result as JSON")
    k.set_defaults(handler=cmd_key)


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "battles":
        return _export_battles(args)
    from arena.bundle.export import export_round
    from arena.bundle.signing import fingerprint, load_or_create_key

    key = load_or_create_key()
    with open_ledger(args, readonly=True) as ledger:
        found = export_round(ledger, args.out, round_id=args.round, family=args.family, key=key)
        head = ledger.head_digest()
    print(
        f"round {found.round_id[:12]} of {found.family} written to {args.out}, signed by "
        f"{fingerprint(key.public_key())}"
    )
    print(f"head digest: {head}  (`arena check --bundle {args.out}` proves it is still held)")
    return 0


def _export_battles(args: argparse.Namespace) -> int:
    from arena.bundle.battles_out import export_battles

    with open_ledger(args, readonly=True) as ledger:
        found, count = export_battles(ledger, args.out, round_id=args.round, family=args.family)
    print(f"{count} battles of round {found.round_id[:12]} of {found.family} written to {args.out}")
    return 0


def cmd_key(args: argparse.Namespace) -> int:
    from arena.bundle.signing import fingerprint, load_or_create_key
    from arena.paths import default_key_path

    path = default_key_path()
    signer = fingerprint(load_or_create_key(path).public_key())
    if args.json:
        output.emit_json({"fingerprint": signer, "path": str(path)})
    else:
        print(f"{signer}  (private key: {path}; give others the fingerprint, never the key)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from arena.bundle.verify import verify_bundle
    from arena.errors import LedgerError

    report = verify_bundle(args.bundle, allow_unsigned=args.allow_unsigned, signer=args.signer)
    if args.json:
        output.emit_json(
            {
                "bundle": str(args.bundle),
                "round": report.round,
                "ok": report.ok,
                "signer": report.signer,
                "signer_checked": report.signer_checked,
                "signer_note": report.signer_note,
                "systems": report.systems,
                "largest_difference": report.largest_difference,
                "intervals": report.intervals,
                "judges": report.judges,
                "problems": report.problems,
            }
        )
    elif report.ok:
        signed = f"signed by {report.signer}" if report.signer else "unsigned"
        print(
            f"{args.bundle}: ok ({signed}): every hash matches and the refit reproduces the "
            f"points of {counted(report.systems, 'system')} (largest difference "
            f"{report.largest_difference:.2g})"
            + (
                f"; {report.intervals} intervals of points bootstrapped again agree"
                if report.intervals
                else ""
            )
            + (f"; pooled with judges {', '.join(report.judges)}" if report.judges else "")
        )
        if report.signer_note:
            print(report.signer_note)
    else:
        for line in report.problems:
            print(line)
    if not report.ok:
        raise LedgerError(
            f"{args.bundle}: {counted(len(report.problems), 'problem')}; do not trust it"
        )
    return 0
