"""The rater's corrections: `case`, `output remove`, `overrule` and `event`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from types import ModuleType

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.ledger import Ledger
from arena.records import GATES


def register(sub: argparse._SubParsersAction) -> None:
    case = sub.add_parser(
        "case",
        help="import cases (prompts without outputs), set or confirm the language a case "
        "expects, or retire a case",
    )
    csub = case.add_subparsers(dest="case_command", metavar="ACTION", required=True)
    c = csub.add_parser("set-language", help="the case expects this language (re-runs its gates)")
    c.add_argument("case", metavar="CASE", help="the case id")
    c.add_argument("--family", required=True)
    c.add_argument("--language", required=True, help="BCP 47 tag, e.g. fr, zh-Hans")
    c.add_argument("--reason", default="", help="why (default: the case expects LANGUAGE)")
    _json(c, _set_language)
    c = csub.add_parser(
        "confirm-language",
        help="a case in doubt expects the language it has (its Language verdicts count again)",
    )
    c.add_argument("case", metavar="CASE", help="the case id")
    c.add_argument("--family", required=True)
    c.add_argument("--reason", default="", help="why (default: the case expects its language)")
    _json(c, _confirm_language)
    c = csub.add_parser("retire", help="take a case out of the family (its votes leave the fit)")
    c.add_argument("case", metavar="CASE", help="the case id")
    c.add_argument("--family", required=True)
    c.add_argument("--reason", required=True, help="why")
    _json(c, _retire)

    out = sub.add_parser("output", help="remove an output")
    osub = out.add_subparsers(dest="output_command", metavar="ACTION", required=True)
    o = osub.add_parser("remove", help="take an output out of its family")
    o.add_argument("output", metavar="OUTPUT", help="output id or its first 8+ characters")
    o.add_argument("--reason", required=True, help="why")
    _json(o, _remove)

    o = sub.add_parser("overrule", help="set a gate's failing verdict on an output aside")
    o.add_argument("output", metavar="OUTPUT", help="output id or its first 8+ characters")
    o.add_argument("--gate", required=True, choices=GATES)
    o.add_argument("--reason", required=True, help="why the verdict is wrong")
    _json(o, _overrule)

    event = sub.add_parser("event", help="list the rater's corrections, or undo one")
    esub = event.add_subparsers(dest="event_command", metavar="ACTION", required=True)
    e = esub.add_parser("retract", help="undo an event (writes a retraction)")
    e.add_argument("event", metavar="EVENT", help="event id or its first 8+ characters")
    e.add_argument("--reason", default="", help="why")
    _json(e, _retract)
    e = esub.add_parser("list", help="the events of a family, oldest first")
    e.add_argument("--family", required=True)
    _json(e, _list)


def _json(parser: argparse.ArgumentParser, handler) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=handler)


def _correct(args: argparse.Namespace, call: Callable[[ModuleType, Ledger], str], what: str) -> int:
    """Run one correction of ``arena.rating.corrections`` and say what it did and how to undo it."""
    from arena.rating import corrections  # loads the gates: only when a correction is made

    with open_ledger(args) as ledger:
        event_id = call(corrections, ledger)
    if args.json:
        output.emit_json({"event": event_id})
    else:
        print(f"{what} (event {event_id[:12]}; undo: `arena event retract {event_id[:12]}`)")
    return 0


def _set_language(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.set_case_language(
            ledger, args.family, args.case, args.language, reason=args.reason
        ),
        f"case {args.case} of {args.family} expects {args.language}; its gates were run again",
    )


def _confirm_language(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.confirm_case_language(
            ledger, args.family, args.case, reason=args.reason
        ),
        f"case {args.case} of {args.family} keeps its language; its Language verdicts "
        "settle pairs again",
    )


def _retire(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.retire_case(
            ledger, args.family, args.case, reason=args.reason
        ),
        f"case {args.case} of {args.family} retired",
    )


def _remove(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.remove_output(
            ledger, args.output, reason=args.reason
        ),
        f"output {args.output} removed",
    )


def _overrule(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.overrule(
            ledger, args.output, args.gate, reason=args.reason
        ),
        f"the {args.gate} verdict on output {args.output} is set aside",
    )


def _retract(args: argparse.Namespace) -> int:
    return _correct(
        args,
        lambda corrections, ledger: corrections.retract(ledger, args.event, reason=args.reason),
        f"event {args.event} retracted",
    )


def _list(args: argparse.Namespace) -> int:
    from arena import family_state
    from arena.decisions import event_record
    from arena.ledger import events

    with open_ledger(args, readonly=True) as ledger:
        family_state.load(ledger, args.family)  # refuses an unknown family
        found = events.family_events(ledger, args.family)
    retracted = {e.target_event for e in found if e.kind == "retract"}
    rows = [{**event_record(e), "retracted": e.event_id in retracted} for e in found]
    if args.json:
        output.emit_json({"events": rows})
        return 0
    if not rows:
        print(f"no events in {args.family}")
        return 0
    print(
        output.table(
            ["event", "at", "kind", "about", "actor", "reason"],
            [
                [
                    r["event_id"][:12] + (" (retracted)" if r["retracted"] else ""),
                    r["at"],
                    r["kind"],
                    _about(r),
                    r["actor"],
                    output.one_line(r["reason"]),
                ]
                for r in rows
            ],
        )
    )
    return 0


def _about(row: dict) -> str:
    if row["kind"] == "retract":
        return f"event {row['target_event'][:12]}"
    parts = [
        f"case {row['case_id']}" if "case_id" in row else "",
        f"output {row['output_id'][:12]}" if "output_id" in row else "",
        row.get("gate", ""),
        row.get("language", ""),
    ]
    return " ".join(p for p in parts if p)
