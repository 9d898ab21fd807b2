"""Importing a file of outputs into a family: one transaction, all or nothing."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.decisions import decisions
from arena.errors import BadInput
from arena.family_state import with_decided_languages
from arena.gates.case_language import detect_case_language
from arena.gates.screening import Fingerprints
from arena.intake import gate_pool
from arena.intake.case_rows import store_cases
from arena.intake.families import unknown_family
from arena.intake.family_settings import FamilySettings, check_unchanged, merged_settings
from arena.intake.imported_trials import ImportedTrials, untested_warning
from arena.intake.readers import DEFAULT_KINDS, READERS, ParsedOutput, ReadOptions
from arena.intake.readers.case_files import read_swebench_tasks
from arena.intake.readers.sniff import with_hint
from arena.ledger import Ledger, bulk, catalog, events, soundness, verdicts
from arena.ledger.voting import new_id
from arena.records import (
    Case,
    CaseId,
    Family,
    Output,
    OutputId,
    SystemDescriptor,
    SystemId,
    TrialResult,
    output_id,
)


@dataclass(frozen=True)
class ImportReport:
    family: str
    records: int
    outputs_added: int
    cases_added: int
    systems_added: int
    family_created: bool
    # Imported trials added (a report's results), and what the reader found worth saying.
    trials_added: int = 0
    notes: tuple[str, ...] = ()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def import_file(
    ledger: Ledger,
    path: Path,
    *,
    family: str,
    fmt: str,
    settings: FamilySettings | None = None,
    options: ReadOptions | None = None,
    workers: int | None = None,
    create: bool = True,
    require_sound: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Read ``path`` and add its outputs to ``family``, screening each new one with every gate.

    Any bad record changes nothing: the whole import is one transaction. ``workers``:
    how many worker processes gate the outputs beside this one (None: one per core
    for a large file, none for a small one; ``gate_pool.workers_for``). The ledger
    gets the same rows either way. Without ``create`` a family that does not exist
    is refused (`arena import` without --create) instead of made with ``settings``.
    With ``require_sound``, a family whose rows no longer match their chains and seals
    is refused first (the window imports so). ``progress(1)`` is called after each
    record read; what it raises ends the import, which then changes nothing.
    """
    if fmt not in READERS:
        raise BadInput(f"unknown format {fmt!r}; one of {', '.join(READERS)}", field="--format")
    if not path.is_file():
        raise BadInput("no such file", path=str(path))
    if not create and catalog.get_family(ledger, family) is None:
        raise unknown_family(ledger, family)
    if require_sound:
        soundness.require_sound(ledger, family, soundness.FILL)
    count = gate_pool.workers_for(path.stat().st_size, workers)
    settings, notes = settings or FamilySettings(), list[str]()
    options = dataclasses.replace(options or ReadOptions(), note=notes.append)
    with gate_pool.Gating(count) as gating, bulk.import_cache(ledger), ledger.atomic():
        if (
            settings.kind is None
            and fmt in DEFAULT_KINDS
            and not catalog.get_family(ledger, family)
        ):
            settings = dataclasses.replace(settings, kind=DEFAULT_KINDS[fmt])
        run = _Import(ledger, path, family, settings, gating)
        try:
            for parsed in READERS[fmt](path, options):
                run.add(parsed)
                if progress is not None:
                    progress(1)
        except BadInput as exc:
            if not run.counts["records"]:  # not one record read: perhaps another format
                raise with_hint(exc, path, fmt) from None
            run.check()  # a record read before the bad one may be refused first
            raise
        run.finish(fmt)
        if fmt == "swebench" and options.tasks is not None and run.family is not None:
            # Every task is a case, so one a run did not answer counts against it.
            tasks = read_swebench_tasks(options.tasks, options)
            run.counts["cases"] += store_cases(ledger, run.family, tasks, options.tasks)[1]
    notes += run.untested_note()
    return dataclasses.replace(run.report(), notes=tuple(notes))


def _only_result_differs(old: Output, new: Output, parsed: ParsedOutput) -> bool:
    """A result is not content: a record whose trial carries another result, or that says
    none, finds its stored output again (the stored result stays; the trial has the say)."""
    if parsed.trial_result is None and new.test_result is not None:
        return False
    return dataclasses.replace(new, test_result=old.test_result) == old


# Records are checked, stored and gated a batch at a time: one query and one insert
# per batch rather than per record, and few outputs in memory however big the file.
_BATCH_OUTPUTS = 256
_BATCH_CHARS = 1 << 19
# The cases kept in memory to check records against; beyond this they are looked
# up again, a batch at a time.
_CASES_KEPT = 10_000


@dataclass
class _Batch:
    """Records read and not yet checked against the ledger, with their outputs."""

    records: list[tuple[ParsedOutput, Output]] = field(default_factory=list)
    chars: int = 0


class _Import:
    """The state of one import while its transaction is open."""

    def __init__(
        self,
        ledger: Ledger,
        path: Path,
        family: str,
        settings: FamilySettings,
        gating: gate_pool.Gating,
    ):
        self.ledger = ledger
        self.path = path
        self.name = family
        self.settings = settings
        self.gating = gating
        self.import_id = new_id()
        self.family = catalog.get_family(ledger, family)
        self.created = False
        self.reference: tuple[str, int] | None = None
        self.first: ParsedOutput | None = None
        self.fingerprint: Fingerprints | None = None
        self.counts = {"records": 0, "outputs": 0, "cases": 0, "systems": 0}
        # New outputs that came with a test result (tested families warn when none did).
        self.with_results = 0
        # label -> (descriptor, system id) within this file, checked against the ledger.
        self.labels: dict[str, tuple[SystemDescriptor, SystemId]] = {}
        self.batch = _Batch()
        # Fingerprint of what the gates read, per output sent to be gated.
        self.marks: dict[OutputId, str] = {}
        # Cases met, as stored and as the gates read them (the rater's language in force).
        self.cases: dict[CaseId, tuple[Case, Case]] = {}
        self.decided = decisions(events.family_events(ledger, family))
        self.trials = ImportedTrials(ledger, family)

    def _bad(self, line: int, field: str, message: str) -> BadInput:
        return BadInput(message, path=str(self.path), line=line, field=field)

    def _open_family(self, parsed: ParsedOutput) -> Family:
        merged = merged_settings(self.settings, parsed, self.path)
        if self.family is not None:
            check_unchanged(self.family, merged, self.path, parsed.line, self.ledger)
            return self.family
        reference = merged.pop("reference", None)
        if reference is not None:
            self.reference = (reference, parsed.line)
        family = Family(name=self.name, **merged)
        catalog.add_family(self.ledger, family)
        self.created = True
        return family

    def add(self, parsed: ParsedOutput) -> None:
        """Check what a record says of its family and system; its case and output
        are checked with the rest of its batch."""
        self.counts["records"] += 1
        if parsed.family.get("name", self.name) != self.name:
            raise self._bad(
                parsed.line,
                "family",
                f"record is for family {parsed.family['name']!r}, importing into {self.name!r}",
            )
        if self.first is None:
            try:
                self.family = self._open_family(parsed)
            except BadInput as exc:
                raise self._at(exc, parsed.line) from None
            self.fingerprint = Fingerprints(self.family)
            self.first = parsed
        elif len(parsed.family) > 1 and parsed.family != self.first.family:
            raise self._bad(
                parsed.line,
                "family",
                f"family settings differ from those on line {self.first.line}",
            )
        system_id = self._system(parsed)
        output = Output(
            output_id=output_id(self.name, parsed.case_id, system_id, parsed.sample),
            family=self.name,
            case_id=CaseId(parsed.case_id),
            system_id=system_id,
            sample=parsed.sample,
            text=parsed.text,
            test_result=parsed.test_result,
            **parsed.details(),
        )
        self.batch.records.append((parsed, output))
        self.batch.chars += len(parsed.text)
        if len(self.batch.records) >= _BATCH_OUTPUTS or self.batch.chars >= _BATCH_CHARS:
            self._store_batch()

    def _at(self, exc: BadInput, line: int) -> BadInput:
        if exc.path is not None:
            return exc
        return BadInput(exc.message, path=str(self.path), line=line, field=exc.field)

    def _system(self, parsed: ParsedOutput) -> SystemId:
        """The record's system, stored when new; its label names one system in the family."""
        known = self.labels.get(parsed.label)
        if known is not None and known[0] == parsed.descriptor:
            return known[1]
        system_id, new_system = catalog.add_system(self.ledger, parsed.label, parsed.descriptor)
        self.counts["systems"] += new_system
        if known is not None and known[1] == system_id:
            return system_id
        if known is not None:
            raise self._bad(
                parsed.line,
                "system.label",
                f"label {parsed.label!r} names two different system descriptors in this file",
            )
        try:
            catalog.check_label(self.ledger, self.name, parsed.label, system_id)
        except BadInput as exc:
            raise self._at(exc, parsed.line) from None
        self.labels[parsed.label] = (parsed.descriptor, system_id)
        return system_id

    def check(self) -> None:
        """Check the records read so far against the ledger (raising for the first bad one)."""
        self._store_batch()

    def _store_batch(self) -> None:
        """Check the batch's cases and outputs, store the new ones and send them to be gated."""
        records, self.batch = self.batch.records, _Batch()
        if not records:
            return
        assert self.family is not None and self.fingerprint is not None
        if len(self.cases) > _CASES_KEPT:
            self.cases.clear()
            self.fingerprint = Fingerprints(self.family)
        missing = {output.case_id for _, output in records} - self.cases.keys()
        stored_cases = bulk.stored_cases(self.ledger, self.name, missing) if missing else {}
        stored = bulk.stored_outputs(self.ledger, [output.output_id for _, output in records])
        new_cases: list[Case] = []
        new_outputs: list[tuple[Output, str]] = []
        to_gate: list[tuple[Output, Case]] = []
        tried: list[tuple[Output, TrialResult, str]] = []
        for parsed, output in records:
            try:
                case = self._case(parsed, stored_cases, new_cases)
                old = stored.get(output.output_id)
                if parsed.trial_result is not None:
                    tried.append((output, parsed.trial_result, parsed.trial_reason))
                if old is not None:
                    if old != output and not _only_result_differs(old, output, parsed):
                        raise BadInput(
                            f"sample {output.sample} of this system on case {output.case_id!r} "
                            "is already in the ledger with different content; outputs are never "
                            "overwritten (give the new one another sample index or system "
                            "descriptor)",
                            field="output",
                        )
                    continue
            except BadInput as exc:
                raise self._at(exc, parsed.line) from None
            stored[output.output_id] = output
            self.with_results += parsed.test_result is not None or parsed.trial_result is not None
            digest = output.content_hash  # a property that hashes the text: once, not twice
            new_outputs.append((output, digest))
            to_gate.append((output, case))
            self.marks[output.output_id] = self.fingerprint(output, case, digest)
        bulk.add_cases(self.ledger, new_cases)
        bulk.add_outputs(self.ledger, new_outputs, self.import_id)
        self.trials.add(tried)
        self.counts["cases"] += len(new_cases)
        self.counts["outputs"] += len(new_outputs)
        if to_gate:
            self.gating.submit(self.family, to_gate)
        self._record(self.gating.ready())

    def _case(self, parsed: ParsedOutput, stored: dict[CaseId, Case], new: list[Case]) -> Case:
        """The record's case as the gates read it (the rater's language in force).

        A new case without a language of its own gets the one its prompt is
        confidently written in, if that is not the family's (with the evidence).
        """
        assert self.family is not None
        case_id = CaseId(parsed.case_id)
        given = Case(self.name, case_id, parsed.category, parsed.prompt, parsed.language)
        known = self.cases.get(case_id)
        if known is not None:
            catalog.check_same_case(known[0], given)
            return known[1]
        found = stored.get(case_id)
        if found is None:
            detected = (
                None
                if given.language is not None
                else detect_case_language(given.prompt, self.family.language)
            )
            if detected is not None:
                given = dataclasses.replace(
                    given, detected_language=detected[0], language_evidence=detected[1]
                )
            new.append(given)
            found = given
        else:
            catalog.check_same_case(found, given)
        gated = with_decided_languages({case_id: found}, self.decided)[case_id]
        self.cases[case_id] = (found, gated)
        return gated

    def _record(self, results: list[tuple[gate_pool.Batch, gate_pool.Verdicts]]) -> None:
        for batch, verdicts_of in results:
            verdicts.record_gate_results(
                self.ledger,
                [
                    (output.output_id, found, self.marks.pop(output.output_id))
                    for (output, _), found in zip(batch, verdicts_of, strict=True)
                ],
            )

    def finish(self, fmt: str) -> None:
        self._store_batch()
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
        self._record(self.gating.drain())
        catalog.record_import(
            self.ledger,
            {
                "import_id": self.import_id,
                "family": self.name,
                "path": str(self.path),
                "format": fmt,
                "file_sha256": file_sha256(self.path),
                "records": self.counts["records"],
                "added": self.counts["outputs"],
            },
        )

    def untested_note(self) -> list[str]:
        """A tested family's new outputs without a single test result: say what follows."""
        return untested_warning(self.family, self.counts["outputs"], self.with_results)

    def report(self) -> ImportReport:
        c = self.counts
        return ImportReport(
            self.name,
            c["records"],
            c["outputs"],
            c["cases"],
            c["systems"],
            self.created,
            self.trials.added,
        )
