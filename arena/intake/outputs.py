"""Importing a file of outputs into a family: one transaction, all or nothing."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from arena import gates
from arena.decisions import decisions
from arena.errors import BadInput
from arena.family_state import with_decided_languages
from arena.gates.case_language import detect_case_language
from arena.gates.screening import Fingerprints
from arena.intake.readers import READERS, ParsedOutput, ReadOptions
from arena.ledger import Ledger, catalog, events, verdicts
from arena.ledger.voting import new_id
from arena.records import (
    KINDS,
    Case,
    CaseId,
    Family,
    GateResult,
    Output,
    OutputId,
    SystemId,
    output_id,
)


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
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


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


def _settings(cli: FamilySettings, parsed: ParsedOutput, path: Path) -> dict[str, Any]:
    from_file = {k: v for k, v in parsed.family.items() if k != "name"}
    merged = dict(from_file)
    for key, value in cli.given().items():
        if key in from_file and from_file[key] != value:
            raise BadInput(
                f"--{key.replace('_', '-')} {value!r} disagrees with the file's {from_file[key]!r}",
                path=str(path),
                line=parsed.line,
                field=f"family.{key}",
            )
        merged[key] = value
    if merged.get("kind", "votes") not in KINDS:
        raise BadInput(f"unknown kind {merged['kind']!r}", field="kind")
    return merged


def _check_unchanged(
    family: Family, settings: dict[str, Any], path: Path, line: int, ledger: Ledger
) -> None:
    for key, value in settings.items():
        current = getattr(family, key)
        if key == "reference":
            system = catalog.find_system(ledger, value, family.name)
            if system is not None and system.system_id == current:
                continue
        if current != value:
            raise BadInput(
                f"family {family.name!r} already has {key} {current!r}; a family's "
                f"settings are fixed when it is created",
                path=str(path),
                line=line,
                field=f"family.{key}",
            )


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
    if fmt not in READERS:
        raise BadInput(f"unknown format {fmt!r}; one of {', '.join(READERS)}", field="--format")
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    run = _Import(ledger, path, family, settings or FamilySettings())
    with ledger.atomic():
        for parsed in READERS[fmt](path, options or ReadOptions()):
            try:
                run.add(parsed)
            except BadInput as exc:
                if exc.path is not None:
                    raise
                raise BadInput(
                    exc.message, path=str(path), line=parsed.line, field=exc.field
                ) from None
        run.finish(fmt)
    return run.report()


# Gate results are written in batches so a huge import holds few outputs in memory.
_GATE_BATCH = 500


class _Import:
    """The state of one import while its transaction is open."""

    def __init__(self, ledger: Ledger, path: Path, family: str, settings: FamilySettings):
        self.ledger = ledger
        self.path = path
        self.name = family
        self.settings = settings
        self.import_id = new_id()
        self.family = catalog.get_family(ledger, family)
        self.created = False
        self.reference: tuple[str, int] | None = None
        self.first: ParsedOutput | None = None
        self.gated: list[tuple[OutputId, tuple[GateResult, ...], str]] = []
        self.fingerprint: Fingerprints | None = None
        self.counts = {"records": 0, "outputs": 0, "cases": 0, "systems": 0}
        # label -> system id within this file; labels already checked against the ledger.
        self.labels: dict[str, SystemId] = {}
        self.checked: set[str] = set()
        # Cases met in this import, as stored; the rater's corrections of the family.
        self.cases: dict[CaseId, Case] = {}
        self.decided = decisions(events.family_events(ledger, family))

    def _bad(self, line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=str(self.path), line=line, field=field)

    def _open_family(self, parsed: ParsedOutput) -> Family:
        merged = _settings(self.settings, parsed, self.path)
        if self.family is not None:
            _check_unchanged(self.family, merged, self.path, parsed.line, self.ledger)
            return self.family
        reference = merged.pop("reference", None)
        if reference is not None:
            self.reference = (reference, parsed.line)
        family = Family(name=self.name, **merged)
        catalog.add_family(self.ledger, family)
        self.created = True
        return family

    def add(self, parsed: ParsedOutput) -> None:
        self.counts["records"] += 1
        if parsed.family.get("name", self.name) != self.name:
            raise self._bad(
                parsed.line,
                "family",
                f"record is for family {parsed.family['name']!r}, importing into {self.name!r}",
            )
        if self.first is None:
            self.family = self._open_family(parsed)
            self.fingerprint = Fingerprints(self.family)
            self.first = parsed
        elif len(parsed.family) > 1 and parsed.family != self.first.family:
            raise self._bad(
                parsed.line,
                "family",
                f"family settings differ from those on line {self.first.line}",
            )
        assert self.family is not None and self.fingerprint is not None
        system_id, new_system = catalog.add_system(self.ledger, parsed.label, parsed.descriptor)
        if self.labels.setdefault(parsed.label, system_id) != system_id:
            raise self._bad(
                parsed.line,
                "system.label",
                f"label {parsed.label!r} names two different system descriptors in this file",
            )
        if parsed.label not in self.checked:
            catalog.check_label(self.ledger, self.name, parsed.label, system_id)
            self.checked.add(parsed.label)
        case, new_case = self._case(parsed)
        output = Output(
            output_id=output_id(self.name, parsed.case_id, system_id, parsed.sample),
            family=self.name,
            case_id=case.case_id,
            system_id=system_id,
            sample=parsed.sample,
            text=parsed.text,
            is_diff=parsed.is_diff,
            finish_reason=parsed.finish_reason,
            latency_ms=parsed.latency_ms,
            cost=parsed.cost,
            prompt_tokens=parsed.prompt_tokens,
            completion_tokens=parsed.completion_tokens,
            test_result=parsed.test_result,
        )
        added = catalog.add_output(self.ledger, output, self.import_id)
        if added:
            self.gated.append(
                (
                    output.output_id,
                    gates.evaluate(output, case, self.family),
                    self.fingerprint(output, case),
                )
            )
            if len(self.gated) >= _GATE_BATCH:
                self._flush_gates()
        self.counts["systems"] += new_system
        self.counts["cases"] += new_case
        self.counts["outputs"] += added

    def _case(self, parsed: ParsedOutput) -> tuple[Case, bool]:
        """The case as the gates read it (the rater's language in force), and whether it is new.

        A new case without a language of its own gets the one its prompt is
        confidently written in, if that is not the family's (with the evidence).
        """
        assert self.family is not None
        case_id = CaseId(parsed.case_id)
        given = Case(self.name, case_id, parsed.category, parsed.prompt, parsed.language)
        stored = self.cases.get(case_id) or catalog.get_case(self.ledger, self.name, case_id)
        new = stored is None
        if stored is None:
            detected = (
                None
                if given.language is not None
                else detect_case_language(given.prompt, self.family.language)
            )
            if detected is not None:
                given = dataclasses.replace(
                    given, detected_language=detected[0], language_evidence=detected[1]
                )
            catalog.add_case(self.ledger, given)
            stored = given
        else:
            catalog.check_same_case(stored, given)
        self.cases[case_id] = stored
        return with_decided_languages({case_id: stored}, self.decided)[case_id], new

    def _flush_gates(self) -> None:
        verdicts.record_gate_results(self.ledger, self.gated)
        self.gated = []

    def finish(self, fmt: str) -> None:
        if self.family is None:
            raise BadInput("no records found", path=str(self.path))
        if self.reference is None and self.created and self.settings.reference:
            self.reference = (self.settings.reference, 1)
        if self.reference is not None:
            name, line = self.reference
            system = catalog.find_system(self.ledger, name, self.name)
            if system is None:
                raise self._bad(
                    line,
                    "family.reference",
                    f"reference system {name!r} is not among the imported systems",
                )
            catalog.set_reference(self.ledger, self.name, system.system_id)
        self._flush_gates()
        catalog.record_import(
            self.ledger,
            {
                "import_id": self.import_id,
                "family": self.name,
                "path": str(self.path),
                "format": fmt,
                "file_sha256": _sha256(self.path),
                "records": self.counts["records"],
                "added": self.counts["outputs"],
            },
        )

    def report(self) -> ImportReport:
        c = self.counts
        return ImportReport(
            self.name, c["records"], c["outputs"], c["cases"], c["systems"], self.created
        )
