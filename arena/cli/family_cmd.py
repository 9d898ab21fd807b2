"""`arena family`: create a family, change its settings, rename, archive, show, list."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.records import MIXED_HARNESS_CHOICES, PAIR_CHOICES, VOTED_KINDS

KINDS = ("votes", "tests", "tests_then_votes")


# Each setting's flag, its argparse keywords, its help, and the default `create` names.
_SETTINGS: tuple[tuple[str, dict[str, Any], str, str | None], ...] = (
    ("--kind", {"choices": KINDS}, "the family's kind", "votes"),
    ("--language", {}, "BCP 47 language answers are expected in, e.g. en, ja, zh-Hans", "en"),
    ("--min-chars", {"type": int}, "Length gate: fewest characters allowed", "1"),
    ("--max-chars", {"type": int}, "Length gate: most characters allowed", "20000"),
    ("--aspect", {}, "the skill this family measures (groups families in lists)", None),
    ("--reference", {"metavar": "SYSTEM"}, "the anchor system (label or id)", None),
    (
        "--repeat-share",
        {"type": float, "metavar": "SHARE"},
        "share of votes shown again later, sides swapped, to measure consistency",
        "0.1",
    ),
    (
        "--repeat-gap",
        {"type": int, "metavar": "PAIRS"},
        "other pairs shown, at least, before a repeat within a session",
        "30",
    ),
    (
        "--repeat-minutes",
        {"type": float, "metavar": "MINUTES"},
        "minutes, at least, from a vote to its repeat, in any session",
        "20",
    ),
    (
        "--pairs",
        {"choices": PAIR_CHOICES},
        "once every system pair has a vote, ask next about the one of most use to the "
        "order (adaptive) or the least voted (coverage); from the next rating session",
        "adaptive",
    ),
    (
        "--unsure-first",
        {"choices": ("on", "off")},
        "with a run judge (`arena judges run`), draw the case within each system pair more "
        "often where the judge is unsure (its two orders disagree, or it said tie), with "
        "recorded probabilities the prediction-powered round uses; from the next rating "
        "session",
        "on",
    ),
    (
        "--mixed-harness",
        {"choices": MIXED_HARNESS_CHOICES},
        "tests families: systems run under different harnesses or turn budgets are "
        "reported by status, round close and the board (report), or accepted (allow)",
        "report",
    ),
)


def _settings_options(p: argparse.ArgumentParser, *, new: bool) -> None:
    for flag, keywords, text, default in _SETTINGS:
        shown = f" (default {default})" if new and default is not None else ""
        p.add_argument(flag, help=text + shown, **keywords)


def register(sub: argparse._SubParsersAction) -> None:
    family = sub.add_parser(
        "family", help="create a family, change its settings, rename, archive, show, list"
    )
    fsub = family.add_subparsers(dest="family_command", metavar="ACTION", required=True)
    p = fsub.add_parser("create", help="create an empty family to import outputs into")
    p.add_argument("name", metavar="NAME", help="the family's name (its id in every command)")
    _settings_options(p, new=True)
    _json(p, _create)

    p = fsub.add_parser(
        "set", help="change settings (recorded; in force from the next gate run and round)"
    )
    p.add_argument("name", metavar="FAMILY")
    _settings_options(p, new=False)
    p.add_argument("--reason", default="", help="why (kept with the change)")
    p.add_argument(
        "--no-gate",
        action="store_true",
        help="do not run the gates again now (they run at the next `arena gate` or round close)",
    )
    _json(p, _set)

    p = fsub.add_parser("rename", help="change the label lists show (the name stays)")
    p.add_argument("name", metavar="FAMILY")
    p.add_argument("label", metavar="LABEL")
    p.add_argument("--reason", default="", help="why")
    _json(p, _rename)

    for action, text in (
        ("archive", "hide the family from `arena status` and the window's list"),
        ("unarchive", "list an archived family again"),
    ):
        p = fsub.add_parser(action, help=text)
        p.add_argument("name", metavar="FAMILY")
        p.add_argument("--reason", default="", help="why")
        _json(p, _archive)

    p = fsub.add_parser("show", help="a family's settings in force and every change to them")
    p.add_argument("name", metavar="FAMILY")
    _json(p, _show)

    p = fsub.add_parser("list", help="the families, grouped by aspect, with their settings")
    p.add_argument("--all", action="store_true", help="archived families too")
    _json(p, _list)


def _json(parser: argparse.ArgumentParser, handler) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=handler)


def _given(args: argparse.Namespace) -> Any:
    from arena.intake.family_settings import FamilySettings

    return FamilySettings.from_options(args)


def _repeats_text(row: dict[str, Any]) -> str:
    return (
        f"{100 * row['repeat_share']:g}% of votes shown again, at least {row['repeat_gap']} "
        f"pairs later in the session (or in a later one) and {row['repeat_minutes']:g} "
        "minutes later"
    )


def _settings_text(row: dict[str, Any]) -> str:
    text = f"{row['kind']}, {row['language']}, {row['min_chars']}–{row['max_chars']} characters"
    return text + (f", aspect {row['aspect']}" if row["aspect"] else "")


def _create(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from arena.intake.families import create_family, session_settings

    with open_ledger(args) as ledger:
        family = create_family(ledger, args.name, _given(args))
        repeats = session_settings(ledger, family.name)
    row = asdict(family)
    if args.json:
        output.emit_json({**row, "reference": args.reference, **repeats})
    else:
        print(
            f"family {family.name} created ({_settings_text(row)}); import into it with "
            f"`arena import FILE --family {family.name}`"
        )
    return 0


def _set(args: argparse.Namespace) -> int:
    from arena.intake.families import set_family
    from arena.ledger import catalog

    with open_ledger(args) as ledger:
        with output.gates_bar(catalog.count_outputs(ledger, args.name), args.name) as advance:
            result = set_family(
                ledger,
                args.name,
                _given(args),
                reason=args.reason,
                regate=not args.no_gate,
                progress=advance,
            )
    summary = result.regated
    if args.json:
        output.emit_json(
            {
                "family": args.name,
                "changes": result.changes,
                "gates": summary.as_json() if summary is not None else None,
            }
        )
        return 0
    if not result.changes:
        print(f"{args.name}: nothing changed (the settings given are those in force)")
        return 0
    session = result.session or {}
    shown = {**session, "mixed_harness": args.mixed_harness}
    done = ", ".join(
        f"{k} {shown[k] if k in shown else getattr(result.family, k)}" for k in result.changes
    )
    when = [
        "in force from now; the next round records it"
        if any(k not in session for k in result.changes)
        else "",
        "in force from the next rating session"
        if any(k in session for k in result.changes)
        else "",
    ]
    print(f"{args.name}: {done} ({'; '.join(w for w in when if w)})")
    if summary is not None:
        print(
            f"gates run again: {summary.failed} of {summary.outputs} outputs fail a gate "
            f"({summary.changed} results changed)"
        )
    elif args.no_gate:
        print("the gates read it at the next `arena gate` or `arena round close`")
    return 0


def _rename(args: argparse.Namespace) -> int:
    from arena.intake.families import rename_family

    with open_ledger(args) as ledger:
        change = rename_family(ledger, args.name, args.label, reason=args.reason)
    if args.json:
        output.emit_json({"family": args.name, "label": args.label.strip(), "change": change})
    else:
        print(f"{args.name} is listed as {args.label.strip()!r} (its name stays {args.name})")
    return 0


def _archive(args: argparse.Namespace) -> int:
    from arena.intake.families import archive_family

    archived = args.family_command == "archive"
    with open_ledger(args) as ledger:
        change = archive_family(ledger, args.name, archived, reason=args.reason)
    if args.json:
        output.emit_json({"family": args.name, "archived": archived, "change": change})
    elif archived:
        print(
            f"{args.name} archived: hidden from `arena status` and the window's list "
            f"(`arena family unarchive {args.name}` lists it again)"
        )
    else:
        print(f"{args.name} is listed again")
    return 0


def _show(args: argparse.Namespace) -> int:
    from arena.intake.families import describe
    from arena.pairs.settling import TESTED_KINDS

    with open_ledger(args, readonly=True) as ledger:
        shown = describe(ledger, args.name)
    if args.json:
        output.emit_json(shown)
        return 0
    created = shown["created"]
    print(
        f"{shown['name']}"
        + (f" (listed as {shown['label']!r})" if shown["label"] != shown["name"] else "")
    )
    print(f"  settings: {_settings_text(shown)}" + (" — archived" if shown["archived"] else ""))
    reference = shown["reference_label"] or "—"
    if shown["reference_label"] and not shown["reference"]:
        reference += " (once an import brings it)"
    print(f"  reference: {reference}; outputs: {shown['outputs']}")
    print(f"  repeats: {_repeats_text(shown)}")
    if shown["kind"] in VOTED_KINDS:
        print(f"  pairs: {shown['pairs']} (once every system pair has a vote)")
        print(
            f"  unsure first: {shown['unsure_first']} (with a run judge: the cases it is "
            "unsure of come first more often)"
        )
    if shown["kind"] in TESTED_KINDS:
        allowed = shown["mixed_harness"] == "allow"
        print(
            f"  mixed harness: {shown['mixed_harness']} (systems of different harnesses or turn "
            + ("budgets are accepted)" if allowed else "budgets are reported)")
        )
    print(f"  created {created['at']}: {_settings_text(created)}")
    for change in shown["changes"]:
        why = f" ({change['reason']})" if change["reason"] else ""
        value = change["value"]
        shown_value = ("yes" if value else "no") if isinstance(value, bool) else repr(value)
        print(f"  {change['at']}: {change['setting']} → {shown_value} by {change['actor']}{why}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from arena.intake.families import listed

    with open_ledger(args, readonly=True) as ledger:
        rows = listed(ledger, archived=args.all)
    if args.json:
        output.emit_json({"families": rows})
        return 0
    if not rows:
        print("no families: create one with `arena family create NAME --language L`")
        return 0
    headers = ["aspect", "name", "label", "kind", "language", "chars", "reference", "archived"]
    table, previous = [], None
    for r in rows:
        aspect = r["aspect"] or "(no aspect)"
        table.append(
            [
                aspect if aspect != previous else "",
                r["name"],
                r["label"] if r["label"] != r["name"] else "",
                r["kind"],
                r["language"],
                f"{r['min_chars']}–{r['max_chars']}",
                (r["reference"] or "")[:12] or None,
                "yes" if r["archived"] else "",
            ]
        )
        previous = aspect
    print(output.table(headers, table))
    return 0
