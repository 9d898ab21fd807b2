"""Importing a file of outputs into a family: one transaction, all or nothing."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from arena import gates
from arena.errors import BadInput
from arena.importers import READERS, ParsedOutput, ReadOptions
from arena.ledger import Ledger, catalog
from arena.ledger.voting import new_id
from arena.records import KINDS, Case, CaseId, Family, Output, output_id

SETTINGS = ("kind", "language", "min_chars", "max_chars", "aspect", "reference")


@dataclass(frozen=True)
class FamilySettings:
    """Settings a person gave on the command line; None = not given."""

    kind: str | None = None
    language: str | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    aspect: str | None = None
    reference: str | None = None

    def given(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}


@dataclass(frozen=True)
class ImportReport:
    family: str
    records: int
    outputs_added: int
    cases_added: int
    systems_added: int
    family_created: bool


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _settings(name: str, cli: FamilySettings, parsed: ParsedOutput, path: Path) -> dict[str, Any]:
    from_file = {k: v for k, v in parsed.family.items() if k != "name"}
    merged = dict(from_file)
    for key, value in cli.given().items():
        if key in from_file and from_file[key] != value:
            raise BadInput(f"--{key.replace('_', '-')} {value!r} disagrees with the file's "
                           f"{from_file[key]!r}", path=str(path), line=parsed.line,
                           field=f"family.{key}")
        merged[key] = value
    if merged.get("kind", "votes") not in KINDS:
        raise BadInput(f"unknown kind {merged['kind']!r}", field="kind")
    return merged


def _check_unchanged(family: Family, settings: dict[str, Any], path: Path, line: int,
                     ledger: Ledger) -> None:
    for key, value in settings.items():
        current = getattr(family, key)
        if key == "reference":
            system = catalog.find_system(ledger, value)
            if system is not None and system.system_id == current:
                continue
        if current != value:
            raise BadInput(f"family {family.name!r} already has {key} {current!r}; a family's "
                           f"settings are fixed when it is created", path=str(path), line=line,
                           field=f"family.{key}")


def import_file(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    fmt: str,
    settings: FamilySettings | None = None,
    options: ReadOptions | None = None,
) -> ImportReport:
    """Read ``path`` and add its outputs to ``family``, screening each new one with every gate.

    Any bad record changes nothing: the whole import is one transaction.
    """
    settings = settings or FamilySettings()
    options = options or ReadOptions()
    if fmt not in READERS:
        raise BadInput(f"unknown format {fmt!r}; one of {', '.join(READERS)}", field="--format")
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    counts = {"records": 0, "outputs": 0, "cases": 0, "systems": 0}
    created = False
    target: Family | None = None
    pending_reference: tuple[str, int] | None = None
    new_outputs: list[tuple[Output, Case]] = []
    first_line, first_family = 0, {}
    import_id = new_id()
    with ledger.atomic():
        target = catalog.get_family(ledger, family)
        for parsed in READERS[fmt](path, options):
            counts["records"] += 1
            if parsed.family.get("name", family) != family:
                raise BadInput(f"record is for family {parsed.family['name']!r}, importing into "
                               f"{family!r}", path=str(path), line=parsed.line, field="family")
            if counts["records"] == 1:
                merged = _settings(family, settings, parsed, path)
                if target is None:
                    reference = merged.pop("reference", None)
                    if reference is not None:
                        pending_reference = (reference, parsed.line)
                    target = Family(name=family, **merged)
                    catalog.add_family(ledger, target)
                    created = True
                else:
                    _check_unchanged(target, merged, path, parsed.line, ledger)
                first_line, first_family = parsed.line, parsed.family
            elif parsed.family and parsed.family != first_family and len(parsed.family) > 1:
                raise BadInput(f"family settings differ from those on line {first_line}",
                               path=str(path), line=parsed.line, field="family")
            try:
                case, output, added = _add(ledger, family, parsed, import_id, counts)
            except BadInput as exc:
                raise BadInput(exc.message, path=str(path), line=parsed.line,
                               field=exc.field) from None
            if added:
                new_outputs.append((output, case))
        if target is None:
            raise BadInput("no records found", path=str(path))
        if pending_reference is None and created and settings.reference:
            pending_reference = (settings.reference, 1)
        if pending_reference is not None:
            name, line = pending_reference
            system = catalog.find_system(ledger, name)
            if system is None:
                raise BadInput(f"reference system {name!r} is not among the imported systems",
                               path=str(path), line=line, field="family.reference")
            catalog.set_reference(ledger, family, system.system_id)
            target = replace(target, reference=system.system_id)
        catalog.record_gate_results(
            ledger, ((o.output_id, gates.evaluate(o, c, target)) for o, c in new_outputs))
        catalog.record_import(ledger, {
            "import_id": import_id, "family": family, "path": str(path), "format": fmt,
            "file_sha256": _sha256(path), "records": counts["records"],
            "added": counts["outputs"],
        })
    return ImportReport(family, counts["records"], counts["outputs"], counts["cases"],
                        counts["systems"], created)


def _add(ledger: Ledger, family: str, parsed: ParsedOutput, import_id: str,
         counts: dict[str, int]) -> tuple[Case, Output, bool]:
    system_id, new_system = catalog.add_system(ledger, parsed.label, parsed.descriptor)
    case = Case(family, CaseId(parsed.case_id), parsed.category, parsed.prompt)
    new_case = catalog.add_case(ledger, case)
    output = Output(
        output_id=output_id(family, parsed.case_id, system_id, parsed.sample),
        family=family, case_id=case.case_id, system_id=system_id, sample=parsed.sample,
        text=parsed.text, is_diff=parsed.is_diff, finish_reason=parsed.finish_reason,
        latency_ms=parsed.latency_ms, cost=parsed.cost, prompt_tokens=parsed.prompt_tokens,
        completion_tokens=parsed.completion_tokens, test_result=parsed.test_result,
    )
    added = catalog.add_output(ledger, output, import_id)
    counts["systems"] += new_system
    counts["cases"] += new_case
    counts["outputs"] += added
    return case, output, added
