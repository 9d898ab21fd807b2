"""`arena gate`: run the gates again and show their failures, and the cases in doubt."""

from __future__ import annotations

import argparse
import dataclasses

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.errors import BadInput
from arena.records import GATES
from arena.texts import counted


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gate", help="re-run the gates and print the failures per gate and system")
    p.add_argument("--family", help="only this family")
    p.add_argument(
        "--list",
        action="store_true",
        help="list every failing output (case, system, gate, reason, its text) and the cases "
        "whose language is in doubt",
    )
    p.add_argument("--gate", choices=GATES, help="with --list: only this gate")
    p.add_argument("--system", metavar="LABEL", help="with --list: only this system")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_gate)


def cmd_gate(args: argparse.Namespace) -> int:
    from arena import family_state
    from arena.gates.screening import EXCERPT_CHARS, failures, rerun
    from arena.ledger import catalog

    if (args.gate or args.system) and not args.list:
        raise BadInput("--gate and --system go with --list", field="--list")
    with open_ledger(args) as ledger:
        chosen = [f for f in catalog.families(ledger) if args.family in (None, f.name)]
        if args.family and not chosen:
            raise catalog.no_such_family(ledger, args.family)
        summaries, found, doubts = [], [], []
        for family in chosen:
            with output.gates_bar(catalog.count_outputs(ledger, family.name), family.name) as bar:
                state = family_state.load(ledger, family.name)
                summaries.append(rerun(ledger, state, progress=bar))
            if args.list:
                state = family_state.load(ledger, family.name)
                found += failures(ledger, state, gate=args.gate, system=args.system)
                doubts += [
                    {
                        "family": family.name,
                        **dataclasses.asdict(d),
                        "prompt": state.cases[d.case_id].prompt[:EXCERPT_CHARS],
                    }
                    for d in state.in_doubt.values()
                ]
    if args.list:
        _print_failures(found, doubts, args.json)
    elif args.json:
        output.emit_json({"families": [s.as_json() for s in summaries]})
    else:
        _print_summaries(summaries)
    return 0


def _print_summaries(summaries: list) -> None:
    for s in summaries:
        print(
            f"{s.name}: {s.failed} of {s.outputs} outputs fail a gate"
            + (f" ({s.changed} results changed since last run)" if s.changed else "")
        )
        if s.in_doubt:
            print(
                f"{s.name}: {counted(len(s.in_doubt), 'case in doubt', 'cases in doubt')}: "
                "most answers are in another "
                "language, so their Language verdicts settle nothing (`arena gate --list`)"
            )
        rows = [
            [label, *(counts[g] for g in GATES)] for label, counts in sorted(s.by_system.items())
        ]
        rows.append(["all systems", *(s.by_gate[g] for g in GATES)])
        print(output.table(["system", *GATES], rows))
        print()


def _print_failures(found: list, doubts: list[dict], as_json: bool) -> None:
    from arena.gates.screening import FailureCounts

    if as_json:
        output.emit_json({"failures": [f.as_json() for f in found], "cases_in_doubt": doubts})
        return
    for d in doubts:
        where = f"{d['case_id']} --family {d['family']}"
        print(
            f"{d['family']}  case {d['case_id']} in doubt: {d['outputs']} of {d['of']} answers "
            f"with a Language verdict are in {d['language']}: does the prompt ask for "
            f"{d['language']}?\n    «{output.one_line(d['prompt'])}»\n"
            f"    `arena case set-language {where} --language {d['language']}`, or "
            f"`arena case confirm-language {where}`"
        )
    for f in found:
        aside = {
            "overruled": f" [overruled by event {(f.overruled_by or '')[:12]}]",
            "in_doubt": " [in doubt: settles nothing until the case's language is decided]",
        }.get(f.status, "")
        print(
            f"{f.family}  case {f.case_id}  {f.system}  {f.gate}  output {f.output_id[:12]}"
            f"{aside}\n    {f.reason}\n    «{output.one_line(f.excerpt)}»"
        )
    print(
        FailureCounts.of(found).text(len(doubts))
        + ("; overrule one with `arena overrule OUTPUT --gate G --reason TEXT`" if found else "")
    )
