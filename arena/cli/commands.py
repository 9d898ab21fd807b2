"""The commands of the foundation: init, import, status, demo, check."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arena import cycle_gc
from arena.cli import output
from arena.cli.graded_import_cmd import add_graded_options, cmd_import_graded, refuse_graded_options
from arena.errors import BadInput, NotAvailable
from arena.ledger import Ledger
from arena.paths import default_ledger_path
from arena.texts import counted


def open_ledger(args: argparse.Namespace, *, readonly: bool = False) -> Ledger:
    path = Path(args.ledger).expanduser() if args.ledger else default_ledger_path()
    return Ledger.open(path, readonly=readonly)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create the ledger (or upgrade it) and print where it is")
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("import", help="import outputs into a family (one transaction)")
    p.add_argument("file", type=Path, help="the file to import")
    p.add_argument(
        "--family",
        help="the family to add the outputs to (required; it must exist, see `arena family "
        "create`, unless --create; with --kind graded: default the suite's name)",
    )
    p.add_argument(
        "--format",
        choices=("native", "alpacaeval", "fastchat", "csv", "swebench", "inspect"),
        help="input format (default: from the file name; .jsonl = native; "
        "predictions_for_swebench.json, all_preds.jsonl, preds.json = swebench; with --kind "
        "graded: .json = inspect, an inspect_ai eval log, else native answers)",
    )
    p.add_argument(
        "--questions", type=Path, help="FastChat question.jsonl (default: ../question.jsonl)"
    )
    p.add_argument(
        "--turns",
        choices=("all", "first"),
        help="--format fastchat: judge every turn of a multi-turn question, joined (all, the "
        "default), or the first turn only (first: answers that answer only turn 1 import too)",
    )
    p.add_argument(
        "--report",
        type=Path,
        help="--format swebench: the harness's report (a file, or a folder of per-instance "
        "report.json files; default: the one beside the predictions)",
    )
    p.add_argument(
        "--tasks",
        type=Path,
        help="--format swebench: SWE-bench task records (JSON Lines or a JSON array with "
        "instance_id, problem_statement) giving the case prompts",
    )
    p.add_argument(
        "--create",
        action="store_true",
        help="create the family when it does not exist, with the settings below (without "
        "it an unknown family is refused: see `arena family create`)",
    )
    p.add_argument(
        "--kind",
        choices=("votes", "tests", "tests_then_votes", "graded"),
        help="the kind of a new family (default: tests for --format swebench, else votes)",
    )
    p.add_argument("--language", help="BCP 47 language of the family, e.g. en, zh-Hans, ja")
    p.add_argument("--min-chars", type=int, help="Length gate: fewest characters allowed")
    p.add_argument("--max-chars", type=int, help="Length gate: most characters allowed")
    p.add_argument("--aspect", help="the skill this family measures")
    p.add_argument("--reference", metavar="SYSTEM", help="the anchor system (label or id)")
    p.add_argument(
        "--api-key-env",
        action="append",
        default=[],
        metavar="VAR",
        help="redact the value of this environment variable from everything "
        "imported (repeatable; ARENA_API_KEY and OPENAI_API_KEY always are)",
    )
    p.add_argument(
        "--max-record-mb",
        type=float,
        default=64.0,
        metavar="MB",
        help="refuse a single record larger than this (default 64)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_graded_options(p)
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("status", help="families, their systems, outputs, votes and pairs")
    p.add_argument("--family", help="only this family")
    p.add_argument("--all", action="store_true", help="archived families too")
    p.add_argument(
        "--rater",
        metavar="NAME",
        help="count this rater's votes apart (default: the one remembered at this ledger, "
        "else 'rater')",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("demo", help="build the demo ledger and open the rater window on it")
    p.add_argument("--no-gui", action="store_true", help="only build the demo ledger")
    p.add_argument("--out", type=Path, help="where to write the demo ledger")
    p.set_defaults(handler=cmd_demo)

    p = sub.add_parser("vote", help="open the rater window on a family")
    p.add_argument("--family", required=True, help="the family to vote on")
    p.add_argument(
        "--pairs",
        choices=("adaptive", "coverage"),
        help="once every system pair has a vote, ask next about the one of most use to the "
        "order (adaptive) or the least voted (coverage); recorded as the family's choice "
        "(as `arena family set --pairs`)",
    )
    p.add_argument(
        "--rater",
        metavar="NAME",
        help="who is voting: the votes carry this name (default: the one remembered at this "
        "ledger; the window asks when others have voted in it)",
    )
    p.set_defaults(handler=cmd_vote)


def cmd_init(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        print(f"ledger ready: {ledger.path} (schema version {ledger.pragma('user_version')})")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from arena.intake.outputs import FamilySettings, import_file
    from arena.intake.readers import ReadOptions, guess_format
    from arena.redact import DEFAULT_SECRET_ENVS, Redactor

    if args.kind == "graded":
        return cmd_import_graded(args, open_ledger)
    fmt = args.format or guess_format(args.file)
    swebench = fmt == "swebench"
    refuse_graded_options(args, allowed=("harness", "label") if swebench else ())
    for name in ("report", "tasks"):
        if getattr(args, name) is not None and not swebench:
            raise BadInput("only with --format swebench", field=f"--{name}")
    if args.turns is not None and fmt != "fastchat":
        raise BadInput("only with --format fastchat", field="--turns")

    settings = FamilySettings.from_options(args)
    redactor = Redactor.from_environment(DEFAULT_SECRET_ENVS + tuple(args.api_key_env))
    with open_ledger(args) as ledger, output.progress_bar(args.file, "import") as advance:
        options = ReadOptions(
            redactor=redactor,
            questions=args.questions,
            progress=advance,
            max_record_bytes=int(args.max_record_mb * 2**20),
            report=args.report,
            tasks=args.tasks,
            harness=args.harness,
            label=args.label,
            turns=args.turns or "all",
        )
        report = import_file(
            ledger,
            args.file,
            family=args.family,
            fmt=fmt,
            settings=settings,
            options=options,
            create=args.create,
        )
    if args.json:
        output.emit_json(report.__dict__)
    else:
        created = " (new family)" if report.family_created else ""
        print(
            f"{args.file}: {counted(report.records, 'record')}, "
            f"{counted(report.outputs_added, 'new output')}, "
            f"{counted(report.cases_added, 'new case')}, "
            f"{counted(report.systems_added, 'new system')} "
            f"in {report.family}{created}"
            + (f", {report.trials_added} imported trials" if report.trials_added else "")
        )
        for note in report.notes:
            print(f"  {note}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from arena.rating import raters
    from arena.rating.status import family_status

    # Read-only: status works beside an open window.
    with open_ledger(args, readonly=True) as ledger:
        chosen = raters.at_keyboard(ledger, args.rater)
        rater = chosen or raters.DEFAULT_RATER
        rows = family_status(ledger, args.family, archived=args.all, rater=rater)
    if args.json:
        output.emit_json({"families": rows})
        return 0
    if not rows:
        print(
            "no families yet: create one with `arena family create NAME --language L`, or "
            "import with `arena import FILE --family NAME --create`"
        )
        return 0
    keys: tuple[str, ...] = (
        "name",
        "kind",
        "language",
        "systems",
        "cases",
        "outputs",
        "gate_failures",
        "votes",
        "settled_pairs",
        "pending_pairs",
    )
    # Where someone else voted too, the rater's own votes beside everyone's.
    if any(set(r["votes_by_rater"]) - {rater} for r in rows):
        at = keys.index("votes") + 1
        keys = (*keys[:at], "rater_votes", *keys[at:])
        everyone = len({name for r in rows for name in r["votes_by_rater"]})
        unknown = "" if chosen else ", no one chosen at this ledger yet"
        print(
            f"counted for {rater}{unknown}: rater_votes are {rater}'s own, votes and pairs "
            f"every rater's ({counted(everyone, 'rater')} voted; --rater NAME for another)"
        )
    _print_by_aspect(keys, rows)
    for r in rows:
        if r.get("untested_outputs"):
            print(
                f"{r['name']}: {r['untested_outputs']} outputs have no test result; run "
                f"`arena tests run --family {r['name']}` (a round counts them as failed only "
                "with --allow-missing)"
            )
        if r.get("unanswered_tasks"):
            print(
                f"{r['name']}: {r['unanswered_tasks']} tasks were not answered by some system; "
                "each counts as a failed trial (no output)"
            )
        if r.get("mixed_agents"):
            from arena.rating.one_agent import Agents

            print(Agents.from_json(r["mixed_agents"]).warning(r["name"]))
    return 0


def _print_by_aspect(keys: tuple[str, ...], rows: list[dict]) -> None:
    """One table, or one per aspect when families have aspects; a renamed family shows
    its label beside its name, an archived one (``--all``) says so."""

    def name(r: dict) -> str:
        shown = r["name"] + (f" ({r['label']})" if r["label"] != r["name"] else "")
        return shown + (" [archived]" if r["archived"] else "")

    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["aspect"], []).append(r)
    for i, (aspect, members) in enumerate(groups.items()):
        if len(groups) > 1 or aspect:
            print(("\n" if i else "") + f"aspect: {aspect or '(none)'}")
        print(output.table(keys, [[name(r), *(r[k] for k in keys[1:])] for r in members]))


def _has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def cmd_demo(args: argparse.Namespace) -> int:
    from arena.intake.demo import build_demo, default_demo_path

    path = args.out or default_demo_path()
    if not args.no_gui and not _has_display():
        raise NotAvailable(
            "no display to open the window on: run `xvfb-run -a arena demo`, or "
            "`arena demo --no-gui` to only build the demo ledger"
        )
    report = build_demo(path, replace=args.out is None)
    print(f"demo ledger: {path} ({report})")
    from arena.cli.demo_tests import run_demo_tests

    print(run_demo_tests(path))
    if args.no_gui:
        return 0
    return _window(path, None)


def _window(ledger_path: Path, family: str | None, rater: str | None = None) -> int:
    if not _has_display():
        raise NotAvailable(
            "no display to open the window on: run it under `xvfb-run -a`, or use the "
            "command-line tools (`arena status`, `arena round close`)"
        )
    # The UI is imported only when a window is wanted; its thousands of new objects hold
    # no garbage, so the cycle collector waits meanwhile (a tenth of the window's start).
    with cycle_gc.paused():
        # What the window needs that does not use Qt goes first: once PySide6 is loaded, its
        # import hook reads the source of every module imported after it, looking for its
        # ``__feature__`` (8% of the instructions of importing the window's modules).
        import markdown_it  # noqa: F401
        import pygments.formatters  # noqa: F401
        import pygments.lexers  # noqa: F401
        import unidiff  # noqa: F401

        import arena.rating.session  # noqa: F401
        from arena.ui.app import run

    return run(["arena"], ledger_path=ledger_path, family=family, rater=rater)


def cmd_vote(args: argparse.Namespace) -> int:
    from arena.ledger import catalog
    from arena.rating import raters

    rater = None if args.rater is None else raters.checked(args.rater)
    path = Path(args.ledger).expanduser() if args.ledger else default_ledger_path()
    with Ledger.open(path, readonly=args.pairs is None) as ledger:
        if catalog.get_family(ledger, args.family) is None:
            raise BadInput(f"no family named {args.family!r} in {path}", field="--family")
        if args.pairs is not None:
            from arena.intake.families import set_family
            from arena.intake.family_settings import FamilySettings

            set_family(ledger, args.family, FamilySettings(pairs=args.pairs), reason="arena vote")
    return _window(path, args.family, rater)
