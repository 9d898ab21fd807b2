"""`arena round close` and `arena round show`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import output
from arena.cli.commands import open_ledger
from arena.errors import BadInput
from arena.texts import counted

# The round's text (and, through it, the rounds, gates and numpy) is imported by the
# commands that print one: every other command, `status` and `--help` among them, goes
# without (0.2 s of CPU).

if TYPE_CHECKING:
    from arena.ledger import Ledger
    from arena.rounds.model import Round


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("round", help="close a round (fit the board) or show one")
    rsub = p.add_subparsers(dest="round_command", metavar="ACTION", required=True)

    c = rsub.add_parser("close", help="re-run the gates, fit the points and store the round")
    c.add_argument("--family", required=True)
    c.add_argument(
        "--weighting",
        choices=("unit", "ledger"),
        default="unit",
        help="unit: every comparison its own weight; ledger: each actor's total "
        "family contribution capped at --cap (default unit)",
    )
    c.add_argument("--cap", type=float, help="the ledger weighting's cap (default 1000)")
    c.add_argument("--penalty", type=float, help="the penalty λ (default 0.01)")
    c.add_argument("--base", type=float, default=1000.0, help="the anchor's points (1000)")
    c.add_argument(
        "--threshold",
        type=float,
        help="decisive votes below which a system is preliminary (default 10)",
    )
    c.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the bootstrap seed of the 95%% intervals: graded runs' and voted boards' (0)",
    )
    c.add_argument(
        "--allow-missing",
        action="store_true",
        help="tests families: close although some outputs have no test result (they count "
        "as failed)",
    )
    c.add_argument(
        "--with-judges",
        metavar="A,B",
        help="pool the rater's votes with these judges' verdicts (a judge weighs at most what "
        "the rater does; docs/judges.md). Default: the rater's votes alone",
    )
    c.add_argument(
        "--raters",
        metavar="A,B",
        help="fit only these raters' votes (the others' are left out, reason other_rater). "
        "Default: every rater's",
    )
    c.add_argument("--json", action="store_true", help="print the round as JSON")
    c.set_defaults(handler=cmd_close)

    s = rsub.add_parser("show", help="the board and summary of a round")
    s.add_argument("round", nargs="?", help="round id or prefix (default: the newest)")
    s.add_argument("--family", help="the newest round of this family")
    s.add_argument("--category", help="the board refitted on one category")
    s.add_argument(
        "--preview",
        action="store_true",
        help="with --family: the fit of the votes so far, stored nowhere (not a round)",
    )
    s.add_argument("--json", action="store_true", help="print the round as JSON")
    s.set_defaults(handler=cmd_show)

    b = sub.add_parser("fit", help="fit point scores to a battles file (no ledger needed)")
    b.add_argument("file", type=Path, help="JSON list or JSON Lines of battles")
    b.add_argument(
        "--format",
        choices=("fastchat-battles", "native"),
        default="fastchat-battles",
        help="fastchat-battles (model_a, model_b, "
        "winner) or native (a, b, y, w); default fastchat-battles",
    )
    b.add_argument("--penalty", type=float, default=0.01, help="the penalty λ (default 0.01)")
    b.add_argument(
        "--anchor",
        metavar="NAME",
        help="the system at --base points (default: the one with the most comparisons)",
    )
    b.add_argument("--base", type=float, default=1000.0, help="the anchor's points (1000)")
    b.add_argument("--json", action="store_true", help="print the board as JSON")
    b.set_defaults(handler=cmd_fit)

    v = sub.add_parser(
        "import-votes", help="import votes cast elsewhere (JSON Lines, or a colleague's bundle)"
    )
    v.add_argument(
        "file",
        type=Path,
        help="the vote log (docs/formats.md), or a colleague's signed bundle (folder or .zip)",
    )
    v.add_argument("--family", required=True, help="the family the votes are on")
    v.add_argument(
        "--signer",
        metavar="FINGERPRINT",
        help="a bundle: the fingerprint of the colleague's key (`arena key` on their machine); "
        "the bundle is imported only if it verifies as signed by it",
    )
    v.add_argument(
        "--rater",
        metavar="NAME",
        dest="colleague",
        help="a bundle: the colleague's name in this ledger, needed when their votes carry the "
        "default name 'rater' or a name taken here; remembered for their key",
    )
    v.add_argument(
        "--api-key-env",
        action="append",
        default=[],
        metavar="VAR",
        help="redact the value of this environment variable (repeatable)",
    )
    v.add_argument("--json", action="store_true", help="print the result as JSON")
    v.set_defaults(handler=cmd_import_votes)


def _names(given: str | None, what: str, option: str) -> tuple[str, ...]:
    """The names of a comma-separated ``option`` (none when it is not given)."""
    names = tuple(name.strip() for name in (given or "").split(",") if name.strip())
    if given is not None and not names:
        raise BadInput(f"name at least one {what}, e.g. {option} A,B", field=option)
    return names


def cmd_close(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from arena.cli.round_text import print_round
    from arena.rounds.closing import close_round
    from arena.rounds.model import RoundSettings

    given = {
        k: getattr(args, k) for k in ("penalty", "threshold", "cap") if getattr(args, k) is not None
    }
    judges = _names(args.with_judges, "judge", "--with-judges")
    raters = _names(args.raters, "rater", "--raters")
    settings = RoundSettings(
        weighting=args.weighting,
        base=args.base,
        seed=args.seed,
        with_judges=judges,
        raters=raters,
        **given,
    )
    with (
        open_ledger(args) as ledger,
        tqdm(desc="gates", unit="output", disable=None, file=sys.stderr, leave=False) as bar,
    ):
        closed = close_round(
            ledger, args.family, settings, progress=bar.update, allow_missing=args.allow_missing
        )
        head = ledger.head_digest()
        keyboard = _keyboard(ledger)
        between = _between(ledger, closed, keyboard)
    digest = None if head is None else head.hash
    if args.json:
        output.emit_json({**public(closed), **between, "head_digest": digest})
        return 0
    print_round(closed, rater=keyboard, between=between.get("between_raters"))
    print(f"head digest: {head}  (`arena check --head {digest}` proves it is still held)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from arena.cli.round_text import print_round
    from arena.rounds.closing import find_round

    if args.preview:
        return _show_preview(args)
    with open_ledger(args, readonly=True) as ledger:
        found = find_round(ledger, args.round, args.family)
        keyboard = _keyboard(ledger)
        between = {} if found is None else _between(ledger, found, keyboard)
    if found is None:
        raise BadInput(
            "no such round"
            + (f" {args.round!r}" if args.round else "")
            + (f" of family {args.family!r}" if args.family else "")
            + "; close one with `arena round close --family NAME`",
            field="round",
        )
    if args.category and args.category not in found.categories:
        raise BadInput(
            f"no category {args.category!r} in this round; one of {', '.join(found.categories)}",
            field="--category",
        )
    if args.json:
        output.emit_json({**public(found, args.category), **between})
    else:
        print_round(found, args.category, rater=keyboard, between=between.get("between_raters"))
    return 0


def _between(ledger: Ledger, found: Round, keyboard: str) -> dict[str, Any]:
    """``{"between_raters": ...}``: the agreement between the raters of a round shared by
    several, on the round's own votes (left-out ones aside), worked out as judges are
    compared (arena.rounds may not import arena.judges: it is done here, from the round's
    stored comparisons). Items are coded in the order the one at the keyboard voted
    them, as on the Judges page, so both read the same κ; {} in a round of one rater."""
    if not found.summary.raters:
        return {}
    from arena.judges.between_raters import between_raters
    from arena.ledger import round_store
    from arena.ledger.judge_store import JudgeVerdict

    named = {r.rater for r in found.summary.raters}
    by_rater: dict[str, list[JudgeVerdict]] = {}
    for row in round_store.items(ledger, found.round_id, "comparison"):
        if row["source"] == "vote" and row["status"] != "left_out" and row["actor"] in named:
            winner = {1.0: "left", 0.0: "right"}.get(row["y"], "tie")
            by_rater.setdefault(row["actor"], []).append(
                JudgeVerdict(
                    row["actor"], row["case_id"], row["system_a"], row["system_b"], winner, 1
                )
            )
    found_between = between_raters(
        by_rater, seed=found.settings.seed, reference=keyboard if keyboard in named else None
    )
    return {} if found_between is None else {"between_raters": found_between}


def _keyboard(ledger: Ledger) -> str:
    """The rater at the keyboard, whose figures a team's round shows first."""
    from arena.rating.raters import DEFAULT_RATER, at_keyboard

    return at_keyboard(ledger) or DEFAULT_RATER


def _show_preview(args: argparse.Namespace) -> int:
    from arena.cli.round_text import print_preview
    from arena.rounds.preview import preview

    if args.family is None or args.round is not None:
        raise BadInput(
            "--preview shows a family's votes so far: give --family alone", field="--preview"
        )
    if args.json:
        # JSON is how boards leave Arena; a preview never does.
        raise BadInput("a preview is not a round and is never exported: no --json", field="--json")
    with open_ledger(args, readonly=True) as ledger:
        shown = preview(ledger, args.family)
    if args.category and args.category not in shown.categories:
        raise BadInput(
            f"no category {args.category!r} in the votes so far; one of "
            f"{', '.join(shown.categories)}",
            field="--category",
        )
    print_preview(shown, args.category)
    return 0


def public(found: Round, category: str | None = None) -> dict[str, Any]:
    """The documented `round show --json` view of a stored round (or of a category's refit)."""
    return found.shown_json(category)


def cmd_import_votes(args: argparse.Namespace) -> int:
    from arena.bundle.colleague_bundle import is_bundle
    from arena.intake.votes import import_votes
    from arena.ledger import soundness
    from arena.redact import DEFAULT_SECRET_ENVS, Redactor

    if is_bundle(args.file):
        return _import_bundle_votes(args)
    if args.file.is_dir():
        raise BadInput(
            "a folder without manifest.json: neither a bundle nor a vote log", path=str(args.file)
        )
    for given, option in ((args.signer, "--signer"), (args.colleague, "--rater")):
        if given is not None:
            raise BadInput(
                f"{args.file} is not a bundle (a folder or .zip holding manifest.json): "
                f"{option} goes with a colleague's bundle; a vote log names each vote's rater",
                field=option,
            )
    redactor = Redactor.from_environment(DEFAULT_SECRET_ENVS + tuple(args.api_key_env))
    with open_ledger(args) as ledger, output.progress_bar(args.file, "votes") as advance:
        soundness.require_sound(ledger, args.family, soundness.VOTING)
        report = import_votes(
            ledger, args.file, family=args.family, redactor=redactor, progress=advance
        )
    if args.json:
        output.emit_json(report.__dict__)
    else:
        print(
            f"{args.file}: {counted(report.records, 'vote')} read, {report.votes_added} new, "
            f"{counted(report.sessions_added, 'new session')} in {report.family}"
        )
    return 0


def _import_bundle_votes(args: argparse.Namespace) -> int:
    from arena.bundle.colleague_votes import import_colleague_votes
    from arena.ledger import soundness

    if args.signer is None:
        raise BadInput(
            f"{args.file} is a bundle: give --signer FINGERPRINT, the colleague's key "
            "(`arena key` on their machine), so that it is imported only if they signed it",
            field="--signer",
        )
    with open_ledger(args) as ledger:
        soundness.require_sound(ledger, args.family, soundness.VOTING)
        report = import_colleague_votes(
            ledger, args.file, family=args.family, signer=args.signer, rater=args.colleague
        )
    if args.json:
        output.emit_json({**report.__dict__, "raters": list(report.raters)})
    else:
        print(
            f"{args.file}: {counted(report.records, 'vote')} of {', '.join(report.raters)} "
            f"read (signed by {report.signer}), {report.votes_added} new, "
            f"{counted(report.retractions_added, 'new retraction')}, "
            f"{counted(report.sessions_added, 'new session')} in {report.family}"
        )
        if report.relayed:
            print(
                f"  {counted(report.relayed, 'vote')} the colleague brought from others' "
                "bundles left out: import those from their own bundles"
            )
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    from arena.rounds.anchor_words import anchor_why, unranked_entry
    from arena.rounds.scoring import fit_battles

    board = fit_battles(
        str(args.file), fmt=args.format, penalty=args.penalty, anchor=args.anchor, base=args.base
    )
    if args.json:
        output.emit_json(board)
        return 0
    from arena.rounds.round_records import AnchorFallback

    chosen = board["anchor_fallback"]
    why = anchor_why(
        board["anchor_reason"],
        None if chosen is None else AnchorFallback.from_json(chosen),
        reference=f"--anchor {args.anchor}",
    )
    print(f"anchor: {board['anchor']} ({why}), penalty {board['penalty']:g}")
    ranked = [s for s in board["systems"] if not s["unranked"]]
    print(
        output.table(
            ["rank", "system", "points", "decisive votes"],
            [[s["rank"], s["system"], round(s["points"]), s["decisive_votes"]] for s in ranked],
        )
    )
    others = [s for s in board["systems"] if s["unranked"]]
    if others:
        print("unranked: " + ", ".join(unranked_entry(s["system"], s["status"]) for s in others))
    return 0
