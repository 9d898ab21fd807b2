"""`arena flags`: the rater's flags, with the pair each was raised on and what was done."""

from __future__ import annotations

import argparse

from arena.cli import output
from arena.cli.commands import open_ledger


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "flags", help="list the flags raised while rating: case, pair, note, time, status"
    )
    p.add_argument("--family", help="only this family")
    p.add_argument("--open", action="store_true", help="only the flags still open")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_flags)


def _pair(row: dict) -> str:
    if row["left"] is None or row["right"] is None:
        return "—"
    return f"{row['left']['system']} | {row['right']['system']}"


def cmd_flags(args: argparse.Namespace) -> int:
    from arena.rating.flags import all_flags

    # Read-only: the list works beside an open window.
    with open_ledger(args, readonly=True) as ledger:
        found = all_flags(ledger, args.family)
    rows = [f.as_json() for f in found if f.is_open or not args.open]
    if args.json:
        output.emit_json({"flags": rows})
        return 0
    if not rows:
        where = f" in {args.family}" if args.family else ""
        print(f"no {'open ' if args.open else ''}flags{where}")
        return 0
    print(
        output.table(
            ["flag", "at", "family", "case", "left | right", "status", "note"],
            [
                [
                    r["flag"][:12],
                    r["at"][:16].replace("T", " "),
                    r["family"],
                    r["case_id"],
                    _pair(r),
                    r["status"],
                    output.one_line(r["note"]),
                ]
                for r in rows
            ],
        )
    )
    opened = sum(r["status"] == "open" for r in rows)
    if opened:
        print(
            f"{opened} open: `arena event retract FLAG --reason TEXT` resolves one; "
            "`arena case retire` and `arena output remove` act on its case or outputs"
        )
    return 0
