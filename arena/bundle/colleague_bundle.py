"""A colleague's signed bundle, verified and read: where bringing their votes in starts,
as a judge's verdicts (``colleague``) or as votes on the board (``colleague_votes``).

The bundle is read once and checked as `arena verify --signer` checks it (``verify_bundle``:
the signature by that key, every hash, the chains, the refit); a bundle with any problem adds
nothing. The rater's own bundle is not a colleague's: one signed by the rater's key, or
holding votes this ledger holds, is refused (pooled, it would count the rater's votes twice).
Systems are matched to this ledger's family by id or else by label, cases by id; whatever is
missing is named before anything is added. The source's sha256 is the manifest's (the one
``manifest.sha256`` holds), the same for a bundle's folder and its .zip.
"""

from __future__ import annotations

import hashlib
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bundle.export import MANIFEST, read_bundle
from arena.bundle.report import Stop, lines
from arena.bundle.signing import fingerprint, load_or_create_key
from arena.bundle.verify import verify_bundle
from arena.errors import BadInput
from arena.ledger import Ledger, catalog, judge_store
from arena.paths import default_key_path

SIDES = ("left_output", "right_output")
_SHOWN = 3  # problems quoted in the refusal; `arena verify` lists them all


@dataclass(frozen=True)
class ColleagueBundle:
    """What a verified bundle holds of its family's votes."""

    path: Path
    signer: str
    sha256: str  # the manifest's
    votes: list[dict[str, Any]]  # votes.jsonl in chain order, the settler's included
    retractions: list[dict[str, Any]]  # retractions.jsonl in chain order
    outputs: dict[str, dict[str, Any]]  # outputs.jsonl by output id
    labels: dict[str, str]  # system id -> label

    def systems(self, vote: dict[str, Any]) -> tuple[str, str]:
        """The colleague's ids of the two systems of ``vote``, as shown (left, right)."""
        left, right = (self.outputs[vote[side]]["system_id"] for side in SIDES)
        return left, right


def is_bundle(path: Path) -> bool:
    """Whether ``path`` is a bundle as ``read_bundle`` reads one: a folder or a .zip file
    holding a manifest (anything else is a vote log)."""
    if path.is_dir():
        return (path / MANIFEST).is_file()
    try:
        with zipfile.ZipFile(path) as archive:
            return MANIFEST in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


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


@contextmanager
def as_arena_writes(path: Path) -> Iterator[None]:
    """Rows of a verified bundle that are not what Arena writes: a bundle forged and signed."""
    try:
        yield
    except (Stop, KeyError, TypeError, ValueError) as exc:
        raise BadInput(
            f"not what Arena writes ({type(exc).__name__}: {exc})", path=str(path)
        ) from None


def read_colleague_bundle(ledger: Ledger, path: Path, signer: str) -> ColleagueBundle:
    """The bundle at ``path``, signed by ``signer`` (not the rater's key), verified and read."""
    _not_your_key(path, signer)
    files = _verified(path, signer)
    with as_arena_writes(path):
        outputs = {o["output_id"]: o for o in lines(files["outputs.jsonl"], "outputs.jsonl")}
        systems = lines(files["systems.jsonl"], "systems.jsonl")
        return ColleagueBundle(
            path,
            signer,
            hashlib.sha256(files[MANIFEST]).hexdigest(),
            lines(files["votes.jsonl"], "votes.jsonl"),
            lines(files.get("retractions.jsonl", b""), "retractions.jsonl"),
            outputs,
            {s["system_id"]: s["label"] for s in systems},
        )


def refuse_held(ledger: Ledger, bundle: ColleagueBundle, vote_ids: list[str]) -> None:
    """Refuse a bundle holding votes this ledger holds: the rater's own, not a colleague's."""
    held = judge_store.votes_held(ledger, vote_ids)
    if held:
        raise BadInput(
            f"{len(held)} of its votes are this ledger's own (vote {held[0][:12]}…): a bundle "
            "of the rater's votes, not a colleague's (pooled, they would count twice); "
            "nothing imported",
            path=str(bundle.path),
        )


def matched(
    ledger: Ledger, family: str, bundle: ColleagueBundle, votes: Iterable[dict[str, Any]]
) -> dict[str, str]:
    """This family's system id for each system of ``votes`` (the colleague's id -> ours),
    after refusing a system or a case of theirs that this family lacks."""
    votes = list(votes)
    with as_arena_writes(bundle.path):
        used = {system for v in votes for system in bundle.systems(v)}
        asked = {str(v["case_id"]) for v in votes}
    found: dict[str, str] = {}
    missing = []
    for system_id in sorted(used):
        label = bundle.labels.get(system_id, system_id)
        ours = catalog.find_system(ledger, system_id, family) or catalog.find_system(
            ledger, label, family
        )
        if ours is None:
            missing.append(f"{label} ({system_id[:12]})")
        else:
            found[system_id] = ours.system_id
    path = str(bundle.path)
    if missing:
        raise BadInput(
            f"no such system in family {family!r}: {', '.join(missing)}; nothing imported",
            path=path,
            field="systems.jsonl",
        )
    absent = sorted(asked - {c.case_id for c in catalog.cases(ledger, family)})
    if absent:
        raise BadInput(
            f"no such case in family {family!r}: {', '.join(absent)}; nothing imported",
            path=path,
            field="cases.jsonl",
        )
    return found
