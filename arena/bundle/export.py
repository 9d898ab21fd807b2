"""The exported round ledger: a folder (or .zip) that anyone can check and refit.

Files: ``manifest.json`` (round, family, settings, software version and the
sha256 of every other file), ``manifest.sha256`` (the manifest's own hash),
``board.json`` (board, categories, summary), ``comparisons.jsonl`` (every
comparison and vote with its weight and status), ``votes.jsonl`` and
``retractions.jsonl`` (the family's hash chains up to the close),
``outputs.jsonl`` (every output a comparison refers to, by content hash),
``systems.jsonl`` and ``cases.jsonl``; for a graded family also
``receipts.jsonl`` (one receipt per run and task) and ``suites.jsonl`` (the
manifests as written).

A voted family's bundle (format 2) holds every output of the family as it
stood at closing, the gate results then in force (``gates.jsonl``) and the
events chain (``events.jsonl``: the rater's corrections), so that verify can
settle the family again and check every settled comparison and vote status;
and, when the rater flagged pairs, ``flags.jsonl`` (each flag with its case, the
pair as seen, its note and what was done about it by the close). A round pooled with
judges adds ``judges.jsonl``: every verdict of those judges from the sources the round
records, so that verify can rebuild the judges' comparisons and their weights; and, when
some votes' pairs were drawn first for a run judge's doubt (``arena.pairs.unsure``),
``draws.jsonl``: each vote's presentation, the probability its case was drawn with and
among how many candidates, from which verify weighs the votes again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena import __version__, family_state
from arena.bundle.flag_rows import flag_rows
from arena.bundle.signing import SIGNATURE, load_or_create_key, sign
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, chain, draws, judge_store, run_store, soundness, verdicts
from arena.ledger import round_store as stored_rounds
from arena.records import Output
from arena.rounds.model import Round

# A bundle's files are named like these: no folders, no "..", nothing hidden.
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
FORMAT = "arena-round-bundle"
FORMAT_VERSION = 2
MANIFEST = "manifest.json"
MANIFEST_HASH = "manifest.sha256"


def _jsonl(rows: Iterable[dict[str, Any]]) -> bytes:
    return "".join(
        json.dumps(r, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n" for r in rows
    ).encode("utf-8")


def _json(value: Any) -> bytes:
    return (
        json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1, allow_nan=False) + "\n"
    ).encode("utf-8")


def _chain(ledger: Ledger, table: str, family: str, heads: dict[str, Any]) -> bytes:
    return _jsonl(chain.rows(ledger, table, family, heads[table]["seq"]))


def _output_row(o: Output) -> dict[str, Any]:
    return {
        "output_id": o.output_id,
        "case_id": o.case_id,
        "system_id": o.system_id,
        "sample": o.sample,
        "content_hash": o.content_hash,
        "text": o.text,
        "is_diff": o.is_diff,
        "finish_reason": o.finish_reason,
        "test_result": o.test_result,
    }


def _outputs(
    ledger: Ledger, found: Round, comparisons: list[dict[str, Any]], receipts: list[dict[str, Any]]
) -> list[Output]:
    """A voted round's outputs: all the family had at closing. A graded round's: its receipts'."""
    if not receipts and found.marks is not None:
        return catalog.outputs(ledger, found.family, up_to=found.marks["outputs"])
    used = {c[k] for c in comparisons for k in ("output_a", "output_b")}
    used |= {r["output_id"] for r in receipts if r["output_id"]}
    return [o for o in catalog.outputs(ledger, found.family) if o.output_id in used]


def _pooled_verdicts(ledger: Ledger, found: Round) -> list[dict[str, Any]]:
    """The verdicts a pooled round fitted: its judges', from the sources it records."""
    sources = {(j.judge, s.sha256) for j in found.judges or () for s in j.sources}
    return [
        row
        for row in judge_store.verdict_rows(ledger, found.family, found.pooled)
        if (row["judge"], row["source_sha256"]) in sources
    ]


def _draws(ledger: Ledger, family: str, comparisons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How the pair of each of the round's votes was drawn (``presentation_draws``), when
    any was drawn other than uniformly within its system pair (``arena.pairs.unsure``);
    else none: the fit weighs every vote 1."""
    voted = {c["vote_id"] for c in comparisons if c["source"] == "vote"}
    rows = [r for r in draws.vote_draw_rows(ledger, family) if r["vote_id"] in voted]
    if all(abs(r["probability"] * r["candidates"] - 1.0) < 1e-12 for r in rows):
        return []
    return rows


def bundle_files(
    ledger: Ledger, round_id: str | None, family: str | None, key: Ed25519PrivateKey
) -> tuple[Round, dict[str, bytes]]:
    """The round and the bytes of every file of its bundle, the manifest signed with ``key``."""
    # Loaded on use: verify reads this module's names, and needs no closing (nor gates).
    from arena.rounds.closing import find_round

    found = find_round(ledger, round_id, family)
    if found is None:
        raise BadInput("no such round; close one with `arena round close`", field="round")
    name = found.family
    # Nothing edited behind the rater's back is signed as theirs.
    soundness.require_sound(ledger, name, soundness.EXPORT)
    heads = found.chain_heads
    comparisons = list(stored_rounds.items(ledger, found.round_id, "comparison"))
    receipts = list(stored_rounds.items(ledger, found.round_id, "receipt"))
    outputs = _outputs(ledger, found, comparisons, receipts)
    fam = catalog.get_family(ledger, name)
    assert fam is not None  # a round exists only for a family
    # A tested family's outputs carry the result of their trial in force at closing.
    trials = family_state.trials_in_force(
        ledger,
        fam,
        {o.output_id: o for o in outputs},
        up_to=(found.marks or {}).get("trials", 0),
    )
    outputs = list(family_state.with_trials({o.output_id: o for o in outputs}, trials).values())
    systems = {o.system_id for o in outputs} | {r["system_id"] for r in receipts}
    shown = found.to_json()
    files = {
        "board.json": _json(
            {
                k: shown[k]
                for k in (
                    "anchor",
                    "systems",
                    "summary",
                    "categories",
                    "fit",
                    "chain_heads",
                    "uncertainty",
                )
                if k in shown  # a board's uncertainty: rounds closed before lack it
            }
        ),
        "comparisons.jsonl": _jsonl(comparisons),
        "votes.jsonl": _chain(ledger, "votes", name, heads),
        "retractions.jsonl": _chain(ledger, "retractions", name, heads),
        "outputs.jsonl": _jsonl(_output_row(o) for o in outputs),
        "systems.jsonl": _jsonl(
            {"system_id": s.system_id, "label": s.label, "descriptor": s.descriptor.canonical()}
            for s in catalog.systems(ledger, name)
            if s.system_id in systems
        ),
        "cases.jsonl": _jsonl(
            {
                "case_id": c.case_id,
                "category": c.category,
                "prompt": c.prompt,
                "language": c.language,
                "detected_language": c.detected_language,
                "language_evidence": c.language_evidence,
            }
            # The cases the family had at closing, as its outputs (older rounds: all).
            for c in catalog.cases(ledger, name, up_to=(found.marks or {}).get("cases"))
        ),
    }
    if receipts:
        # Graded rounds: a receipt per item and the suites to grade them again.
        files["receipts.jsonl"] = _jsonl(receipts)
        files["suites.jsonl"] = _jsonl(
            {"suite_hash": h, "manifest": m[0], "format": m[1]}
            for h in sorted({r["suite_hash"] for r in receipts})
            if (m := run_store.suite_manifest(ledger, h)) is not None
        )
    elif found.marks is not None:
        results = verdicts.gate_results(ledger, name, up_to=found.marks["gate_results"])
        files["gates.jsonl"] = _jsonl(
            {
                "output_id": o.output_id,
                "results": [
                    {"gate": r.gate, "passed": r.passed, "reason": r.reason}
                    for r in results.get(o.output_id, ())
                ],
            }
            for o in outputs
        )
        events = chain.rows(ledger, "events", name, heads["events"]["seq"])
        files["events.jsonl"] = _jsonl(events)
        flags = flag_rows(ledger, name, events)
        if flags:  # the flags made readable: case, pair as seen, note, what was done
            files["flags.jsonl"] = _jsonl(flags)
    if found.judges is not None:
        files["judges.jsonl"] = _jsonl(_pooled_verdicts(ledger, found))
        chosen = _draws(ledger, name, comparisons)
        if chosen:  # some votes' pairs were drawn first for a judge's doubt
            files["draws.jsonl"] = _jsonl(chosen)
    if trials:
        files["trials.jsonl"] = _jsonl(dataclasses.asdict(t) for t in trials.values())
    head = ledger.head_digest()
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": __version__,
        "round": found.round_id,
        "closed_at": found.closed_at,
        "settings": found.recorded_settings(),
        # The settings the round was closed with (they may have changed since).
        "family": dataclasses.asdict(found.family_settings or fam),
        "files": {n: hashlib.sha256(data).hexdigest() for n, data in sorted(files.items())},
        # The ledger's state at export: `arena check --bundle` proves a ledger still holds it.
        "ledger_head": None if head is None else {"seq": head.seq, "hash": head.hash},
    }
    files[MANIFEST] = _json(manifest)
    files[MANIFEST_HASH] = f"{hashlib.sha256(files[MANIFEST]).hexdigest()}  {MANIFEST}\n".encode()
    files[SIGNATURE] = sign(files[MANIFEST], key)
    return found, files


def export_round(
    ledger: Ledger,
    out: Path,
    *,
    round_id: str | None = None,
    family: str | None = None,
    key: Ed25519PrivateKey | None = None,
) -> Round:
    """Write the signed bundle of a round to ``out`` (a folder, or a .zip file).

    The bundle is written under a temporary name beside ``out`` and renamed
    when complete, so a full disk or a crash never leaves a partial bundle
    under the name asked for. ``key`` defaults to the rater's signing key.
    """
    if out.exists():
        raise BadInput("already exists; choose another --out", path=str(out))
    found, files = bundle_files(ledger, round_id, family, key or load_or_create_key())
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        if out.suffix == ".zip":
            _write_synced(partial, zip_bytes(files))
        else:
            partial.mkdir()
            for name, data in files.items():
                _write_synced(partial / name, data)
        os.replace(partial, out)
    except BaseException:
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.unlink(missing_ok=True)
        raise
    return found


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """The one canonical .zip of ``files``: stored, sorted, fixed times and modes.

    Being canonical, it can be rebuilt from its content and compared byte for
    byte, so a change to the container itself is caught too.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in sorted(files.items()):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def read_bundle(path: Path) -> dict[str, bytes]:
    """Every file of a bundle folder or .zip, by name.

    A bundle's .zip is stored, not compressed, with plain file names: anything
    else is refused before a byte is inflated, so a zip bomb or an entry that
    names ``../`` or a folder never gets read.
    """
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if (
                    info.compress_type != zipfile.ZIP_STORED
                    or info.file_size != info.compress_size
                    or not _PLAIN_NAME.fullmatch(info.filename)
                ):
                    raise BadInput(
                        f"entry {info.filename[:80]!r} is not a stored file with a "
                        "plain name, as a bundle's entries are",
                        path=str(path),
                    )
            files = {n: archive.read(n) for n in archive.namelist()}
        if zip_bytes(files) != path.read_bytes():
            raise BadInput(
                "the .zip differs from the canonical bundle layout (changed)", path=str(path)
            )
        return files
    raise BadInput("not a bundle folder or .zip file", path=str(path))
