"""Storing cases read from a file (``case_files``), with their turns, reference and
metadata: `arena case import`, and the tasks of `arena import --format swebench --tasks`."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from arena.errors import BadInput
from arena.gates.case_language import detect_case_language
from arena.intake.readers.case_files import ParsedCase
from arena.ledger import Ledger, catalog, roster
from arena.records import Case, CaseId, Family


def store_cases(
    ledger: Ledger, family: Family, parsed: Iterable[ParsedCase], path: Path
) -> tuple[int, int]:
    """Store each case (inside the caller's transaction); (records read, cases added)."""
    records = added = 0
    seen: dict[str, int] = {}
    for case in parsed:
        records += 1
        if case.case_id in seen:
            raise BadInput(
                f"case {case.case_id!r} is already on line {seen[case.case_id]}",
                path=str(path),
                line=case.line,
                field="id",
            )
        seen[case.case_id] = case.line
        try:
            added += _store(ledger, family, case)
        except BadInput as exc:
            raise BadInput(exc.message, path=str(path), line=case.line, field=exc.field) from None
    return records, added


def _store(ledger: Ledger, family: Family, parsed: ParsedCase) -> bool:
    case = Case(
        family.name, CaseId(parsed.case_id), parsed.category, parsed.prompt, parsed.language
    )
    old = catalog.get_case(ledger, family.name, case.case_id)
    if old is None and case.language is None:
        # As an import of outputs does: a prompt confidently in another language expects it.
        detected = detect_case_language(case.prompt, family.language)
        if detected is not None:
            case = dataclasses.replace(
                case, detected_language=detected[0], language_evidence=detected[1]
            )
    new = catalog.add_case(ledger, case)
    details = roster.CaseDetails(parsed.turns, parsed.reference, parsed.metadata)
    # A case an import of outputs made gets its details too; it is not a new case.
    roster.add_case_details(ledger, family.name, parsed.case_id, details)
    return new
