"""`arena judges import --format bundle`: a colleague's votes, read from their verified bundle.

The bundle is read once and checked as `arena verify --signer` checks it (``verify_bundle``:
the signature by that key, every hash, the chains, the refit); a bundle with any problem adds
nothing. Its votes in force (not retracted, not skips, not the settler's) then become the
judge's verdicts on the pairs as the colleague saw them, ``both_bad`` a tie. Cases are
matched to this ledger's family by id, systems by id or else by label; whatever is missing
is named before anything is added. The source's sha256 is the manifest's (the one
``manifest.sha256`` holds), the same for a bundle's folder and its .zip.

The rater's own bundle is not a colleague's: one signed by the rater's key, or holding votes
this ledger holds, is refused (pooled, it would count the rater's votes twice). A vote's game
is its place among the colleague's votes on that case and pair as shown (1 the first), so a
later bundle of the same colleague, which carries the earlier votes, finds them again.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.bundle.export import MANIFEST, read_bundle
from arena.bundle.report import Stop, lines
from arena.bundle.signing import fingerprint, load_or_create_key
from arena.bundle.verify import verify_bundle
from arena.errors import BadInput
from arena.judges.importing import JudgeImportReport, Source, check_judge, store_verdicts
from arena.judges.verdict_files import Read
from arena.ledger import Ledger, catalog, judge_store
from arena.paths import default_key_path

_WINNER = {"left": "left", "right": "right", "tie": "tie", "both_bad": "tie", "skip": None}
_SIDES = ("left_output", "right_output")
_SHOWN = 3  # problems quoted in the refusal; `arena verify` lists them all


def _verified(path: Path, signer: str) -> dict[str, bytes]:
    """The bundle's files, after the very bytes read passed `arena verify --signer`."""
    try:
        files = read_bundle(path)
    except (BadInput, OSError, ValueError) as exc:
        raise BadInput(f"not a readable bundle ({exc}); nothing imported", path=str(path)) from None
    with tempfile.TemporaryDirectory(prefix="arena-colleague-") as folder:
        for name, data in files.items():
            (Path(folder) / name).write_bytes(data)
        report = verify_bundle(Path(folder), signer=signer)
    if not report.ok:
        more = len(report.problems) - _SHOWN
        shown = "; ".join(report.problems[:_SHOWN])
        rest = f"; {more} more (`arena verify {path} --signer {signer}` lists them)"
        raise BadInput(
            f"refused, nothing imported: {shown}{rest if more > 0 else ''}", path=str(path)
        )
    return files


def _not_your_key(path: Path, signer: str) -> None:
    """Refuse the rater's own key as a colleague's: what it signed are the rater's votes."""
    key = default_key_path()
    # No key yet: the rater has signed nothing (and looking must not make one).
    if key.is_file() and fingerprint(load_or_create_key(key).public_key()) == signer:
        raise BadInput(
            f"--signer {signer} is your own key: a bundle you signed holds your votes, not a "
            "colleague's (pooled, they would count twice); nothing imported",
            path=str(path),
        )


def _rows(files: dict[str, bytes], name: str) -> list[dict[str, Any]]:
    return lines(files.get(name, b""), name)


def _matched(
    ledger: Ledger, family: str, path: str, systems: dict[str, str], used: set[str]
) -> dict[str, str]:
    """This family's system id for each of the colleague's ``used`` systems (id -> label)."""
    found: dict[str, str] = {}
    missing = []
    for system_id in sorted(used):
        label = systems.get(system_id, system_id)
        ours = catalog.find_system(ledger, system_id, family) or catalog.find_system(
            ledger, label, family
        )
        if ours is None:
            missing.append(f"{label} ({system_id[:12]})")
        else:
            found[system_id] = ours.system_id
    if missing:
        raise BadInput(
            f"no such system in family {family!r}: {', '.join(missing)}; nothing imported",
            path=path,
            field="systems.jsonl",
        )
    return found


def import_bundle(
    ledger: Ledger, path: Path, *, family: str, judge: str, kind: str, signer: str
) -> JudgeImportReport:
    """Store the votes of the bundle at ``path``, signed by ``signer``, as ``judge``'s."""
    check_judge(ledger, family, judge, kind)
    _not_your_key(path, signer)
    files = _verified(path, signer)
    try:
        retracted = {r["vote_id"] for r in _rows(files, "retractions.jsonl")}
        shown = {o["output_id"]: o["system_id"] for o in _rows(files, "outputs.jsonl")}
        labels = {s["system_id"]: s["label"] for s in _rows(files, "systems.jsonl")}
        votes, games = [], Counter[tuple[str, str, str]]()
        for line, vote in enumerate(_rows(files, "votes.jsonl"), start=1):
            pair = (str(vote["case_id"]), *(shown[vote[side]] for side in _SIDES))
            games[pair] += 1  # every vote counts, so a later bundle numbers alike
            if vote["actor"] != "settler" and vote["vote_id"] not in retracted:
                votes.append((line, games[pair], vote))
        used = {shown[v[side]] for *_, v in votes for side in _SIDES}
    except (Stop, KeyError, TypeError) as exc:  # verified, so a bundle forged and signed
        raise BadInput(
            f"not what Arena writes ({type(exc).__name__}: {exc})", path=str(path)
        ) from None
    held = judge_store.votes_held(ledger, [v["vote_id"] for *_, v in votes])
    if held:
        raise BadInput(
            f"{len(held)} of its votes are this ledger's own (vote {held[0][:12]}…): a bundle "
            "of the rater's votes, not a colleague's (pooled, they would count twice); "
            "nothing imported",
            path=str(path),
        )
    ours = _matched(ledger, family, str(path), labels, used)
    cases = {c.case_id for c in catalog.cases(ledger, family)}
    absent = sorted({v["case_id"] for *_, v in votes} - cases)
    if absent:
        raise BadInput(
            f"no such case in family {family!r}: {', '.join(absent)}; nothing imported",
            path=str(path),
            field="cases.jsonl",
        )

    def reads() -> Iterator[Read]:
        for line, game, vote in votes:
            left, right = (ours[shown[vote[side]]] for side in _SIDES)
            fields = ("case_id", "left_output", "right_output")
            yield Read(line, game, vote["case_id"], left, right, _WINNER[vote["choice"]], fields)

    sha = hashlib.sha256(files[MANIFEST]).hexdigest()
    source = Source(f"{path}:votes.jsonl", sha, "bundle", signer)
    return store_verdicts(ledger, reads(), family=family, judge=judge, kind=kind, source=source)
