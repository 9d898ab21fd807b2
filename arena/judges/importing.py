"""`arena judges import`: a judge's verdicts stored from one source, in one transaction.

A source is a verdict file in one of ``verdict_files.READERS``' formats, or a colleague's
bundle that ``arena.bundle.colleague`` has verified and read. Its sha256 is recorded with
each verdict and once in ``judge_sources`` with its format (and a bundle's signer); a source
already imported for the judge adds nothing. A verdict is known by its case, its pair as
shown and its game: one given twice in a source, or otherwise than an earlier source of the
judge gave it, is refused; one an earlier source gave alike is not stored again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.clock import now_iso
from arena.errors import BadInput
from arena.judges.verdict_files import BASELINE, READERS, Options, Read
from arena.ledger import Ledger, catalog, judge_runs, judge_store, soundness
from arena.ledger.judge_store import VerdictKey
from arena.records import name_problem
from arena.texts import counted

FORMATS = tuple(READERS)
KINDS = ("human", "model")


@dataclass(frozen=True)
class JudgeImportReport:
    family: str
    judge: str
    records: int
    verdicts_added: int
    skipped: int  # verdicts the source left undecided (an error game, a -1 score, a skip)
    source_sha256: str
    # Verdicts an earlier source of the judge gave alike (a colleague's later bundle carries
    # the votes of the earlier one): not stored twice.
    already_stored: int = 0
    imported_before: bool = False  # this very source (its sha256) was imported for the judge

    def summary(self) -> str:
        """What the import did, in one line (the command and the window say it alike)."""
        notes = [
            f", {self.skipped} without a verdict skipped" if self.skipped else "",
            f", {self.already_stored} already stored from an earlier source"
            if self.already_stored
            else "",
            " (imported for this judge before)" if self.imported_before else "",
        ]
        added = f"{counted(self.verdicts_added, 'verdict')} added from "
        added += counted(self.records, "record")
        return f"{self.judge}: {added}{''.join(notes)}"


@dataclass(frozen=True)
class Source:
    """Where verdicts come from: ``path`` names it in errors, ``sha256`` in the ledger."""

    path: str
    sha256: str
    format: str
    signer: str | None = None  # a bundle's: the fingerprint its signature was checked against


def check_judge(ledger: Ledger, family: str, judge: str, kind: str) -> None:
    """Refuse a family, judge name or kind that no import may use."""
    if catalog.get_family(ledger, family) is None:
        raise catalog.no_such_family(ledger, family)
    if not judge or judge == "rater":
        raise BadInput("a judge needs a name other than 'rater'", field="--judge")
    problem = name_problem(judge)
    if problem is not None:
        raise BadInput(f"a judge's name {problem}", field="--judge")
    if kind not in KINDS:
        raise BadInput(f"expected one of {', '.join(KINDS)}", field="--kind")
    if judge_runs.stored_judge(ledger, family, judge) is not None:
        raise BadInput(
            f"judge {judge!r} is run from Arena (`arena judges run`); imported verdicts take "
            "another name",
            field="--judge",
        )
    known = judge_store.judge_kind(ledger, family, judge)
    if known is not None and known != kind:
        raise BadInput(f"judge {judge!r} is already a {known} judge", field="--kind")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_options(fmt: str, options: Options) -> None:
    """Options that belong to one format are refused with the others."""
    given = {
        "--column": (options.column is not None, ("pandalm",)),
        "--baseline": (options.baseline != BASELINE, ("arena-hard",)),
        "--turns": (options.first_turn, ("fastchat-pair", "fastchat-single")),
    }
    for flag, (set_, formats) in given.items():
        if set_ and fmt not in formats:
            raise BadInput(f"only with --format {' or '.join(formats)}", field=flag)


def import_judge(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    judge: str,
    kind: str,
    fmt: str = "native",
    options: Options | None = None,
) -> JudgeImportReport:
    """Read ``path`` as ``fmt`` and store its verdicts as ``judge``'s, all or none."""
    options = options or Options()
    check_judge(ledger, family, judge, kind)
    if fmt not in FORMATS:
        raise BadInput(f"expected one of {', '.join(FORMATS)}", field="--format")
    check_options(fmt, options)
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    source = Source(str(path), _sha256(path), fmt)
    return store_verdicts(
        ledger, READERS[fmt](path, options), family=family, judge=judge, kind=kind, source=source
    )


def store_verdicts(
    ledger: Ledger, reads: Iterable[Read], *, family: str, judge: str, kind: str, source: Source
) -> JudgeImportReport:
    """Check every read against the family and store its verdicts, all or none; never
    into a family whose rows fail their chains or seals (what every import goes through)."""
    check_judge(ledger, family, judge, kind)
    soundness.require_sound(ledger, family, soundness.JUDGE_IMPORT)
    cases = {c.case_id for c in catalog.cases(ledger, family)}
    systems: dict[str, str | None] = {}

    def bad(line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=source.path, line=line, field=field)

    def system(line: int, field: str, name: Any) -> str:
        if not isinstance(name, str) or not name:
            raise bad(line, field, "expected a system label or id")
        if name not in systems:
            found = catalog.find_system(ledger, name, family)
            systems[name] = None if found is None else found.system_id
        found_id = systems[name]
        if found_id is None:
            raise bad(line, field, f"no system {name!r} in family {family!r}")
        return found_id

    before = judge_store.source_imported(ledger, family, judge, source.sha256)
    stored = {} if before else judge_store.stored_verdicts(ledger, family, judge)
    seen: dict[VerdictKey, tuple[int, str | None]] = {}
    rows, records, skipped, already, at = [], set(), 0, 0, now_iso()
    for read in reads:
        case_field, left_field, right_field = read.fields
        records.add((read.line, read.place))  # one line may hold several records
        case = read.case
        if isinstance(case, bool) or not isinstance(case, (str, int)) or str(case) not in cases:
            raise bad(read.line, case_field, f"no case {case!r} in family {family!r}")
        left_id = system(read.line, left_field, read.left)
        if read.right is None:  # a line naming one system: checked, no verdict
            continue
        right_line = -read.game if read.game < 1 else read.line
        right_id = system(right_line, right_field, read.right)
        if left_id == right_id:
            raise bad(right_line, right_field, "a system cannot be judged against itself")
        key = (str(case), left_id, right_id, read.game)
        if key in seen:
            line, winner = seen[key]
            same = "the same verdict as" if winner == read.winner else "contradicts"
            raise bad(read.line, "(record)", f"{same} line {line} ({_named(read)})")
        seen[key] = (read.line, read.winner)
        if read.winner is None:
            skipped += 1
            continue
        if key in stored:
            winner, sha256, line = stored[key]
            if winner != read.winner:
                raise bad(
                    read.line,
                    "(record)",
                    f"contradicts {judge!r}'s verdict {winner!r} from source {sha256[:12]} "
                    f"(line or array place {line}) ({_named(read)})",
                )
            already += 1
            continue
        rows.append(
            {
                "family": family,
                "judge": judge,
                "kind": kind,
                "case_id": str(case),
                "left_system": left_id,
                "right_system": right_id,
                "winner": read.winner,
                "game": read.game,
                "source_sha256": source.sha256,
                # An element of a one-line JSON array shares its line: its place names it.
                "source_line": read.place or read.line,
                "imported_at": at,
            }
        )
    if not records:
        raise BadInput("no verdicts: the source holds no records", path=source.path)
    if not (rows or already or before):
        raise BadInput(
            f"no verdicts: its {counted(len(records), 'record')} "
            f"{'leaves' if len(records) == 1 else 'leave'} every pair undecided",
            path=source.path,
        )
    if rows and not before:
        recorded = {"family": family, "judge": judge, "source_sha256": source.sha256}
        recorded |= {"format": source.format, "imported_at": at}
        with ledger.atomic():
            judge_store.add_source(ledger, {**recorded, "signer": source.signer})
            judge_store.add_verdicts(ledger, rows)
    added = 0 if before else len(rows)
    return JudgeImportReport(
        family, judge, len(records), added, skipped, source.sha256, already, before
    )


def _named(read: Read) -> str:
    """A verdict's case, pair and game as the source names them."""
    return f"case {read.case!r}, {read.left!r} against {read.right!r}, game {read.game}"
