"""`arena verify`: recheck every hash of a bundle and refit the round from it alone."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.bundle import signing
from arena.bundle.export import FORMAT, MANIFEST, MANIFEST_HASH, read_bundle
from arena.bundle.signing import SIGNATURE
from arena.decisions import decisions
from arena.errors import BadInput
from arena.family_state import FamilyState, with_decided_languages
from arena.ledger import chain
from arena.ledger.schema import APPEND_ONLY
from arena.records import (
    Case,
    Event,
    Family,
    GateResult,
    Output,
    SystemDescriptor,
    output_id,
)
from arena.rounds.comparisons import (
    Y_OF_CHOICE,
    Comparison,
    Comparisons,
    settled_comparisons,
    settled_output_pairs,
    vote_status,
)
from arena.rounds.model import RoundSettings
from arena.rounds.scoring import BoardFit, fit_board, fitted_weights, summary

POINTS_TOLERANCE = 0.01
_FIELDS = {f.name for f in dataclasses.fields(Comparison)}


@dataclass
class VerifyReport:
    problems: list[str] = field(default_factory=list)
    round: str | None = None
    systems: int = 0
    largest_difference: float = 0.0
    # The signing key's fingerprint (None: unsigned or unreadable signature).
    signer: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


class _Stop(Exception):
    """A problem after which nothing further can be checked."""


def _lines(data: bytes, name: str) -> list[dict[str, Any]]:
    # JSON Lines end at "\n" only: str.splitlines() would also split inside strings
    # at U+2028, U+0085, \v, \f and the like, which JSON writes raw.
    try:
        return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _Stop(f"{name}: unreadable ({exc})") from None


def verify_bundle(
    path: Path, *, allow_unsigned: bool = False, signer: str | None = None
) -> VerifyReport:
    """Check a bundle from its files alone; ``signer`` names the fingerprint required."""
    report = VerifyReport()
    try:
        files = read_bundle(path)
    except (
        BadInput,
        OSError,
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as exc:
        # RuntimeError and NotImplementedError: a changed header asks for encryption
        # or a compression method that zipfile refuses.
        report.problems.append(f"{path}: not a readable bundle ({exc})")
        return report
    _check_signature(files, report, allow_unsigned=allow_unsigned, signer=signer)
    try:
        _verify(files, report)
    except _Stop as stop:
        report.problems.append(str(stop))
    except (
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        RecursionError,
        UnicodeDecodeError,
        BadInput,
    ) as exc:
        # Only reachable when the hashes match files that are not what Arena writes:
        # a bundle forged and rehashed.
        report.problems.append(
            f"the bundle's content is not what Arena writes ({type(exc).__name__}: {exc})"
        )
    return report


def _check_signature(
    files: dict[str, bytes], report: VerifyReport, *, allow_unsigned: bool, signer: str | None
) -> None:
    """The signature first: every other file is bound to the manifest by its hash."""
    if SIGNATURE not in files:
        if not allow_unsigned or signer is not None:
            report.problems.append(
                f"{SIGNATURE} is missing: the bundle is unsigned (give "
                "--allow-unsigned to check the rest anyway)"
            )
        return
    signed = signing.check(files.get(MANIFEST, b""), files[SIGNATURE])
    report.signer = signed.signer
    if not signed.valid:
        report.problems.append(signed.problem)
    elif signer is not None and signed.signer != signer:
        report.problems.append(f"{SIGNATURE}: signed by {signed.signer}, not by {signer}")


def _check_hashes(files: dict[str, bytes], report: VerifyReport) -> dict[str, Any]:
    if MANIFEST not in files or MANIFEST_HASH not in files:
        raise _Stop(f"{MANIFEST} or {MANIFEST_HASH} is missing")
    digest = hashlib.sha256(files[MANIFEST]).hexdigest()
    if files[MANIFEST_HASH] != f"{digest}  {MANIFEST}\n".encode():
        raise _Stop(f"{MANIFEST} does not match {MANIFEST_HASH} (one of them was changed)")
    try:
        manifest = json.loads(files[MANIFEST])
        listed = dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise _Stop(f"{MANIFEST}: unreadable ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise _Stop(f"{MANIFEST}: not an Arena round bundle")
    problems = [
        f"{name}: not listed in the manifest"
        for name in sorted(set(files) - set(listed) - {MANIFEST, MANIFEST_HASH, SIGNATURE})
    ]
    for name, expected in sorted(listed.items()):
        if name not in files:
            problems.append(f"{name}: listed in the manifest but missing")
        elif hashlib.sha256(files[name]).hexdigest() != expected:
            problems.append(f"{name}: sha256 differs from the manifest (changed)")
    if problems:
        report.problems += problems
        raise _Stop("the files do not match their hashes; nothing else was checked")
    return manifest


def _verify(files: dict[str, bytes], report: VerifyReport) -> None:
    manifest = _check_hashes(files, report)
    report.round = manifest["round"]
    family = manifest["family"]["name"]
    board = json.loads(files["board.json"])
    votes = _lines(files["votes.jsonl"], "votes.jsonl")
    retractions = _lines(files["retractions.jsonl"], "retractions.jsonl")
    chains = [("votes", votes), ("retractions", retractions)]
    if "events.jsonl" in files:
        chains.append(("events", _lines(files["events.jsonl"], "events.jsonl")))
    for table, rows in chains:
        report.problems += chain.verify_rows(table, APPEND_ONLY[table], rows)
    heads = board["chain_heads"]
    for table, rows in chains:
        last = rows[-1]["hash"] if rows else chain.GENESIS_HASH
        if last != heads[table]["hash"]:
            report.problems.append(f"{table}.jsonl: does not end at the head recorded at closing")
    for row in _lines(files["systems.jsonl"], "systems.jsonl"):
        if SystemDescriptor(**row["descriptor"]).system_id != row["system_id"]:
            report.problems.append(
                f"systems.jsonl: {row['label']}: id is not the hash of its descriptor"
            )
    for row in _lines(files["outputs.jsonl"], "outputs.jsonl"):
        if hashlib.sha256(row["text"].encode("utf-8")).hexdigest() != row["content_hash"]:
            report.problems.append(
                f"outputs.jsonl: {row['output_id']}: text does not match its content hash"
            )
        if output_id(family, row["case_id"], row["system_id"], row["sample"]) != row["output_id"]:
            report.problems.append(
                f"outputs.jsonl: {row['output_id']}: id does not match its case, system and sample"
            )
    case_rows = _lines(files["cases.jsonl"], "cases.jsonl")
    cases = {c["case_id"]: c["category"] for c in case_rows}
    rows = _lines(files["comparisons.jsonl"], "comparisons.jsonl")
    comparisons = [Comparison(**{k: v for k, v in r.items() if k in _FIELDS}) for r in rows]
    for c in comparisons:
        if cases.get(c.case_id) != c.category:
            report.problems.append(
                f"comparisons.jsonl: case {c.case_id} is not in cases.jsonl with that category"
            )
    _check_votes(comparisons, votes, retractions, report)
    if "gates.jsonl" in files:
        state = _bundle_state(files, manifest, case_rows, dict(chains)["events"])
        _check_settlement(state, manifest, comparisons, report)
    settings = RoundSettings(
        **{
            k: manifest["settings"][k]
            for k in ("weighting", "cap", "penalty", "base", "threshold", "seed")
        }
    )
    weights = np.array([r["fitted_weight"] for r in rows], dtype=float)
    columns = Comparisons.from_records(comparisons)
    if not np.allclose(weights, fitted_weights(columns, settings), rtol=0, atol=1e-12):
        report.problems.append("comparisons.jsonl: weights do not follow the round's weighting")
    if "receipts.jsonl" in files:
        _regrade(files, board, settings, report)
    else:
        _refit(columns, weights, board, manifest, settings, report)


def _bundle_state(
    files: dict[str, bytes], manifest: dict, case_rows: list[dict], event_rows: list[dict]
) -> FamilyState:
    """The family as the bundle says it stood at closing, the rater's corrections applied."""
    family = Family(**manifest["family"])
    outputs = {
        row["output_id"]: Output(
            output_id=row["output_id"],
            family=family.name,
            case_id=row["case_id"],
            system_id=row["system_id"],
            sample=row["sample"],
            text=row["text"],
            is_diff=row["is_diff"],
            finish_reason=row["finish_reason"],
            test_result=row["test_result"],
        )
        for row in _lines(files["outputs.jsonl"], "outputs.jsonl")
    }
    results = {
        row["output_id"]: tuple(GateResult(**r) for r in row["results"])
        for row in _lines(files["gates.jsonl"], "gates.jsonl")
    }
    decided = decisions(Event.from_row(row) for row in event_rows)
    cases = {
        row["case_id"]: Case(
            family.name,
            row["case_id"],
            row["category"],
            row["prompt"],
            row["language"],
            row["detected_language"],
            row["language_evidence"],
        )
        for row in case_rows
    }
    return FamilyState(family, with_decided_languages(cases, decided), outputs, results, decided)


def _check_settlement(
    state: FamilyState, manifest: dict, comparisons: list[Comparison], report: VerifyReport
) -> None:
    """Settle the family again from the bundle: every settled comparison and vote status."""
    if manifest["settings"].get("events") != state.decisions.record():
        report.problems.append(
            "manifest.json: the round's corrections differ from those events.jsonl puts in force"
        )
    expected = settled_comparisons(state)
    published = [c for c in comparisons if c.source == "settled"]
    if published != expected:
        key = {(c.output_a, c.output_b) for c in expected}
        invented = [c for c in published if (c.output_a, c.output_b) not in key]
        report.problems.append(
            f"comparisons.jsonl: the settled comparisons are not those the rules give "
            f"({len(published)} published, {len(expected)} settled again"
            + (f", {len(invented)} not settled by any rule" if invented else "")
            + ")"
        )
    pairs = settled_output_pairs(state)
    for c in comparisons:
        if c.source != "vote":
            continue
        again = vote_status(state, c.case_id, c.output_a, c.output_b, c.repeat_of, pairs)
        if (c.status, c.reason) != again:
            report.problems.append(
                f"comparisons.jsonl: vote {c.vote_id} is {c.status} "
                f"({c.reason}); the rules make it {again[0]} ({again[1]})"
            )


def _regrade(
    files: dict[str, bytes], board: dict, settings: RoundSettings, report: VerifyReport
) -> None:
    """Graded rounds: grade every receipt's output again and recompute every score."""
    from arena.graded.graders import grade
    from arena.graded.runs import score_row
    from arena.graded.suites import Suite, parse_suite

    suites: dict[str, Suite] = {}
    for row in _lines(files["suites.jsonl"], "suites.jsonl"):
        suite = parse_suite(row["manifest"], fmt=row["format"], source="suites.jsonl")
        if suite.manifest_hash != row["suite_hash"]:
            report.problems.append(
                f"suites.jsonl: {row['suite_hash'][:12]}: the manifest does not hash to its id"
            )
        suites[row["suite_hash"]] = suite
    receipts = _lines(files["receipts.jsonl"], "receipts.jsonl")
    by_system: dict[str, list[dict]] = {}
    for r in receipts:
        where = f"receipts.jsonl: {r['system_id'][:12]} {r['task_id']}"
        found = suites.get(r["suite_hash"])
        if found is None:
            report.problems.append(f"{where}: its suite is not in suites.jsonl")
            continue
        try:
            task = found.task(r["task_id"])
        except KeyError:
            report.problems.append(f"{where}: no such task in its suite")
            continue
        if task.input_hash != r["input_hash"]:
            report.problems.append(f"{where}: input hash differs from the suite's task")
        if (
            r["output"] is not None
            and hashlib.sha256(r["output"].encode("utf-8")).hexdigest() != r["output_hash"]
        ):
            report.problems.append(f"{where}: output does not match its hash")
        regraded = grade(
            task,
            r["output"],
            finish_reason=r["finish_reason"],
            timed_out=r["attempt_status"] == "timeout",
        )
        if (regraded.status, regraded.credit, regraded.passed, regraded.parsed_answer) != (
            r["status"],
            r["credit"],
            r["passed"],
            r["parsed_answer"],
        ):
            report.problems.append(
                f"{where}: graded again it gives {regraded.status} "
                f"{regraded.credit}, the receipt says {r['status']} "
                f"{r['credit']}"
            )
        by_system.setdefault(r["system_id"], []).append(r)
    report.systems = len(board["systems"])
    for row in board["systems"]:
        items = by_system.get(row["system"], [])
        if not items:
            report.problems.append(f"board.json: {row['label']} has no receipts")
            continue
        again = score_row(suites[items[0]["suite_hash"]], items, seed=settings.seed)
        for key, value in again.items():
            published = row.get(key)
            if not _close(published, value):
                report.problems.append(
                    f"board.json: {row['label']} {key}: published {published}, recomputed {value}"
                )


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-9)
    return bool(a == b)


def _check_votes(
    comparisons: list[Comparison], votes: list[dict], retractions: list[dict], report: VerifyReport
) -> None:
    by_id = {v["vote_id"]: v for v in votes}
    retracted = {r["vote_id"] for r in retractions}
    for c in comparisons:
        if c.source != "vote":
            continue
        vote = by_id.get(c.vote_id)
        if vote is None:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} is not in votes.jsonl")
        elif (vote["choice"], vote["left_output"], vote["right_output"]) != (
            c.choice,
            c.output_a,
            c.output_b,
        ) or Y_OF_CHOICE[vote["choice"]] != c.y:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} differs from its row")
        elif c.vote_id in retracted:
            report.problems.append(f"comparisons.jsonl: vote {c.vote_id} was retracted")


def _same(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0, abs_tol=tolerance)


def _compare_board(name: str, published: list[dict], refit: BoardFit, report: VerifyReport) -> None:
    for row in published:
        score = refit.scores.get(row["system"])
        if score is None:
            report.problems.append(f"{name}: {row['label']} is not among the refitted systems")
            continue
        if not _same(row["points"], score.points, POINTS_TOLERANCE) or row["rank"] != score.rank:
            report.problems.append(
                f"{name}: {row['label']} published {row['points']} "
                f"(rank {row['rank']}), refit gives {score.points} "
                f"(rank {score.rank})"
            )
        elif row["points"] is not None:
            report.largest_difference = max(
                report.largest_difference, abs(row["points"] - score.points)
            )


def _refit(
    comparisons: Comparisons,
    weights: np.ndarray,
    board: dict,
    manifest: dict,
    settings: RoundSettings,
    report: VerifyReport,
) -> None:
    systems = [r["system"] for r in sorted(board["systems"], key=lambda r: r["label"])]
    report.systems = len(systems)
    reference = manifest["family"]["reference"]
    fit = fit_board(comparisons, weights, systems, reference=reference, settings=settings)
    _compare_board("board.json", board["systems"], fit, report)
    for category, view in board["categories"].items():
        inside = comparisons.mask("category", category)
        part = fit_board(
            comparisons,
            np.where(inside, weights, 0.0),
            systems,
            reference=reference,
            settings=settings,
        )
        _compare_board(f"board.json category {category}", view["systems"], part, report)
    diff_family = bool(np.any(comparisons["is_diff"]))
    again = summary(
        comparisons,
        weights,
        systems,
        reference=reference,
        settings=settings,
        diff_family=diff_family,
    ).to_json()
    for key, published in board["summary"].items():
        value = again[key]
        if isinstance(published, (int, float)) and isinstance(value, (int, float)):
            if not _same(
                float(published),
                float(value),
                1e-6 if "tau" in key or "agreement" in key else POINTS_TOLERANCE,
            ):
                report.problems.append(f"summary {key}: published {published}, refit {value}")
        elif published != value:
            report.problems.append(f"summary {key}: published {published}, refit {value}")
