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
    c = _case_action(csub, "set-language", "the case expects this language (re-runs its gates)")
    c.add_argument("--language", required=True, help="BCP 47 tag, e.g. fr, zh-Hans")
    c.add_argument("--reason", default="", help="why (default: the case expects LANGUAGE)")
    _json(c, _set_language)
    c = _case_action(
        csub,
        "confirm-language",
        "a case in doubt expects the language it has (its Language verdicts count again)",
    )
    c.add_argument("--reason", default="", help="why (default: the case expects its language)")
    _json(c, _confirm_language)
    c = _case_action(csub, "retire", "take a case out of the family (its votes leave the fit)")
    c.add_argument("--reason", required=True, help="why")
    _json(c, _retire)

    out = sub.add_parser("output", help="remove an output")
    osub = out.add_subparsers(dest="output_command", metavar="ACTION", required=True)
    o = _output_action(osub, "remove", "take an output out of its family")
    o.add_argument("--reason", required=True, help="why")
    _json(o, _remove)

    o = _output_action(sub, "overrule", "set a gate's failing verdict on an output aside")
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


def _case_action(
    parent: argparse._SubParsersAction, action: str, text: str
) -> argparse.ArgumentParser:
    """An action on one case: it names the case and its family."""
    c = parent.add_parser(action, help=text)
    c.add_argument("case", metavar="CASE", help="the case id")
    c.add_argument("--family", required=True)
    return c


def _output_action(
    parent: argparse._SubParsersAction, action: str, text: str
) -> argparse.ArgumentParser:
    """An action on one output: it names the output (by its id or a prefix of it)."""
    o = parent.add_parser(action, help=text)
    o.add_argument("output", metavar="OUTPUT", help="output id or its first 8+ characters")
    return o


def _json(parser: argparse.ArgumentParser, handler) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=handler)


# What a correction command calls: the corrections module, the ledger, the arguments.
_Call = Callable[[ModuleType, Ledger, argparse.Namespace], str]


def _correction(call: _Call, what: str) -> Callable[[argparse.Namespace], int]:
    """A command that makes one correction of ``arena.rating.corrections`` and says what it
    did (``what``, filled in from the command's arguments) and how to undo it."""

    def handler(args: argparse.Namespace) -> int:
        from arena.rating import corrections  # loads the gates: only when a correction is made

        with open_ledger(args) as ledger:
            event_id = call(corrections, ledger, args)
        if args.json:
            output.emit_json({"event": event_id})
        else:
            done = what.format_map(vars(args))
            print(f"{done} (event {event_id[:12]}; undo: `arena event retract {event_id[:12]}`)")
        return 0

    return handler


_set_language = _correction(
    lambda corrections, ledger, a: corrections.set_case_language(
        ledger, a.family, a.case, a.language, reason=a.reason
    ),
    "case {case} of {family} expects {language}; its gates were run again",
)
_confirm_language = _correction(
    lambda corrections, ledger, a: corrections.confirm_case_language(
        ledger, a.family, a.case, reason=a.reason
    ),
    "case {case} of {family} keeps its language; its Language verdicts settle pairs again",
)
_retire = _correction(
    lambda corrections, ledger, a: corrections.retire_case(
        ledger, a.family, a.case, reason=a.reason
    ),
    "case {case} of {family} retired",
)
_remove = _correction(
    lambda corrections, ledger, a: corrections.remove_output(ledger, a.output, reason=a.reason),
    "output {output} removed",
)
_overrule = _correction(
    lambda corrections, ledger, a: corrections.overrule(ledger, a.output, a.gate, reason=a.reason),
    "the {gate} verdict on output {output} is set aside",
)
_retract = _correction(
    lambda corrections, ledger, a: corrections.retract(ledger, a.event, reason=a.reason),
    "event {event} retracted",
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
