"""`arena case import`: a file of cases into a family, without outputs; one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.errors import BadInput
from arena.intake.case_rows import store_cases
from arena.intake.families import unknown_family
from arena.intake.outputs import file_sha256
from arena.intake.readers import ReadOptions
from arena.intake.readers.case_files import CASE_READERS
from arena.ledger import Ledger, catalog
from arena.ledger.voting import new_id

CASE_FORMATS: tuple[str, ...] = tuple(CASE_READERS)


@dataclass(frozen=True)
class CaseImportReport:
    family: str
    records: int
    cases_added: int


def import_cases(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    fmt: str,
    options: ReadOptions | None = None,
) -> CaseImportReport:
    """Add the cases of ``path`` to ``family``. A case already there with the same
    prompt, category, language, turns, reference and metadata is found again; one with
    any of them different is refused, and then nothing of the file is stored."""
    if fmt not in CASE_READERS:
        raise BadInput(
            f"unknown format {fmt!r}; one of {', '.join(CASE_READERS)}", field="--format"
        )
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    with ledger.atomic():
        found = catalog.get_family(ledger, family)
        if found is None:
            raise unknown_family(ledger, family)
        records, added = store_cases(
            ledger, found, CASE_READERS[fmt](path, options or ReadOptions()), path
        )
        if not records:
            raise BadInput("no cases found", path=str(path))
        catalog.record_import(
            ledger,
            {
                "import_id": new_id(),
                "family": family,
                "path": str(path),
                "format": f"cases:{fmt}",
                "file_sha256": file_sha256(path),
                "records": records,
                "added": 0,
            },
        )
    return CaseImportReport(family, records, added)
