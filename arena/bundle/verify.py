"""`arena verify`: recheck every hash of a bundle and refit the round from it alone."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from arena.bundle import judges_check, recheck, settings_check, signing
from arena.bundle.export import FORMAT, MANIFEST, MANIFEST_HASH, read_bundle
from arena.bundle.flag_rows import check_flags
from arena.bundle.report import Stop, VerifyReport, lines
from arena.bundle.signing import SIGNATURE
from arena.errors import BadInput
from arena.ledger import chain
from arena.ledger.guards import APPEND_ONLY
from arena.records import (
    SystemDescriptor,
    output_id,
)
from arena.rounds.comparison_table import Comparison, Comparisons
from arena.rounds.model import Recorded
from arena.rounds.scoring import fitted_weights

_FIELDS = {f.name for f in dataclasses.fields(Comparison)}


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
    except Stop as stop:
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
    else:
        report.signer_checked = signer is not None


def _check_hashes(files: dict[str, bytes], report: VerifyReport) -> dict[str, Any]:
    if MANIFEST not in files or MANIFEST_HASH not in files:
        raise Stop(f"{MANIFEST} or {MANIFEST_HASH} is missing")
    digest = hashlib.sha256(files[MANIFEST]).hexdigest()
    if files[MANIFEST_HASH] != f"{digest}  {MANIFEST}\n".encode():
        raise Stop(f"{MANIFEST} does not match {MANIFEST_HASH} (one of them was changed)")
    try:
        manifest = json.loads(files[MANIFEST])
        listed = dict(manifest["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise Stop(f"{MANIFEST}: unreadable ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise Stop(f"{MANIFEST}: not an Arena round bundle")
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
        raise Stop("the files do not match their hashes; nothing else was checked")
    return manifest


def _verify(files: dict[str, bytes], report: VerifyReport) -> None:
    manifest = _check_hashes(files, report)
    report.round = manifest["round"]
    head = manifest.get("ledger_head")
    report.ledger_head = head.get("hash") if isinstance(head, dict) else None
    family = manifest["family"]["name"]
    board = json.loads(files["board.json"])
    votes = lines(files["votes.jsonl"], "votes.jsonl")
    retractions = lines(files["retractions.jsonl"], "retractions.jsonl")
    chains = [("votes", votes), ("retractions", retractions)]
    if "events.jsonl" in files:
        chains.append(("events", lines(files["events.jsonl"], "events.jsonl")))
    for table, rows in chains:
        report.problems += chain.verify_rows(table, APPEND_ONLY[table], rows)
    heads = board["chain_heads"]
    for table, rows in chains:
        last = rows[-1]["hash"] if rows else chain.GENESIS_HASH
        if last != heads[table]["hash"]:
            report.problems.append(f"{table}.jsonl: does not end at the head recorded at closing")
    for row in lines(files["systems.jsonl"], "systems.jsonl"):
        if SystemDescriptor(**row["descriptor"]).system_id != row["system_id"]:
            report.problems.append(
                f"systems.jsonl: {row['label']}: id is not the hash of its descriptor"
            )
    for row in lines(files["outputs.jsonl"], "outputs.jsonl"):
        if hashlib.sha256(row["text"].encode("utf-8")).hexdigest() != row["content_hash"]:
            report.problems.append(
                f"outputs.jsonl: {row['output_id']}: text does not match its content hash"
            )
        if output_id(family, row["case_id"], row["system_id"], row["sample"]) != row["output_id"]:
            report.problems.append(
                f"outputs.jsonl: {row['output_id']}: id does not match its case, system and sample"
            )
    case_rows = lines(files["cases.jsonl"], "cases.jsonl")
    cases = {c["case_id"]: c["category"] for c in case_rows}
    rows = lines(files["comparisons.jsonl"], "comparisons.jsonl")
    comparisons = [Comparison(**{k: v for k, v in r.items() if k in _FIELDS}) for r in rows]
    for c in comparisons:
        if cases.get(c.case_id) != c.category:
            report.problems.append(
                f"comparisons.jsonl: case {c.case_id} is not in cases.jsonl with that category"
            )
    recheck.check_votes(comparisons, votes, retractions, report)
    if "trials.jsonl" in files:
        recheck.check_trials(files, report)
    if "flags.jsonl" in files:
        report.problems += check_flags(
            lines(files["flags.jsonl"], "flags.jsonl"), dict(chains).get("events", [])
        )
    if "gates.jsonl" in files:
        state = recheck.bundle_state(files, manifest, case_rows, dict(chains)["events"])
        recheck.check_settlement(state, manifest, comparisons, report)
        judges_check.check_judges(files, manifest, state, comparisons, report)
        report.problems += settings_check.problems(files, manifest, board, state)
    elif any(c.source == "judge" for c in comparisons) or "judges.jsonl" in files:
        report.problems.append("judges' verdicts in a bundle without the family's gate verdicts")
    settings = Recorded.from_json(manifest["settings"]).settings
    weights = np.array([r["fitted_weight"] for r in rows], dtype=float)
    columns = Comparisons.from_records(comparisons)
    if not np.allclose(weights, fitted_weights(columns, settings), rtol=0, atol=1e-12):
        report.problems.append("comparisons.jsonl: weights do not follow the round's weighting")
    if "receipts.jsonl" in files:
        recheck.regrade(files, board, settings, report)
    else:
        design = recheck.design(files, votes, columns, report)
        recheck.refit(columns, weights, board, manifest, settings, report, design)
