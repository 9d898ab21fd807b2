"""`arena import FILE --kind graded --suite NAME`: one run's answers, graded as collected."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from arena.cli import output
from arena.errors import BadInput
from arena.ledger import Ledger
from arena.texts import counted

_GRADED_ONLY = (
    "suite",
    "model",
    "label",
    "harness",
    "tier",
    "revision",
    "artifact_digest",
    "quantization",
)


def add_graded_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("graded answers (--kind graded)")
    g.add_argument(
        "--suite",
        help="the suite the answers are for: a suite stored in the ledger (by name or "
        "manifest hash) or the graded family holding it",
    )
    g.add_argument("--model", help="the model that answered (an eval log's eval.model)")
    g.add_argument(
        "--label",
        help="the run's label (default: the model; --format swebench: the harness)",
    )
    g.add_argument(
        "--harness",
        help="what produced the answers (default: inspect_ai/VERSION for an eval log, "
        "else 'imported'; --format swebench: the predictions' folder name)",
    )
    g.add_argument("--tier", help="reference or community (default)")
    g.add_argument("--revision", help="model revision (part of the run's identity)")
    g.add_argument("--artifact-digest", help="digest of the model weights")
    g.add_argument("--quantization", help="quantization of the model")


def refuse_graded_options(args: argparse.Namespace, *, allowed: tuple[str, ...] = ()) -> None:
    """Outside ``--kind graded`` the run options mean nothing (but those ``allowed``, which
    another format reads), and ``--family`` is needed."""
    for name in _GRADED_ONLY:
        if getattr(args, name) is not None and name not in allowed:
            raise BadInput("only with --kind graded", field="--" + name.replace("_", "-"))
    if args.format == "inspect":
        raise BadInput("an inspect_ai eval log is read with --kind graded", field="--format")
    if not args.family:
        raise BadInput("name the family to import into", field="--family")


def cmd_import_graded(
    args: argparse.Namespace, open_ledger: Callable[[argparse.Namespace], Ledger]
) -> int:
    from arena.graded.answer_import import import_answers
    from arena.redact import DEFAULT_SECRET_ENVS, Redactor

    if not args.suite:
        raise BadInput(
            "graded answers are graded against a suite the ledger holds: give --suite NAME "
            "(a suite stored by `arena collect`, or its graded family)",
            field="--suite",
        )
    if args.format not in (None, "native", "inspect"):
        raise BadInput("graded answers are native (JSON Lines) or inspect", field="--format")
    for name in ("questions", "min_chars", "max_chars", "aspect", "reference", "report", "tasks"):
        if getattr(args, name) is not None:
            raise BadInput("not used by graded answers", field="--" + name.replace("_", "-"))
    redactor = Redactor.from_environment(DEFAULT_SECRET_ENVS + tuple(args.api_key_env))
    with open_ledger(args) as ledger:
        report = import_answers(
            ledger,
            args.file,
            suite=args.suite,
            fmt=args.format,
            family=args.family,
            model=args.model,
            label=args.label,
            harness=args.harness,
            tier=args.tier or "community",
            language=args.language or "en",
            revision=args.revision,
            artifact_digest=args.artifact_digest,
            quantization=args.quantization,
            redactor=redactor,
        )
    if args.json:
        output.emit_json(report.__dict__)
    else:
        counts = ", ".join(f"{k} {v}" for k, v in report.status_counts.items())
        print(
            f"{args.file}: {counted(report.answers, 'answer')} to "
            f"{counted(report.tasks, 'task')} of {report.suite} "
            f"graded as {report.label} in {report.family} ({counts}); "
            f"see `arena grade {report.family}`"
        )
    return 0
