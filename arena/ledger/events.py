"""Events: retiring a case, removing an output, flagging a presentation."""

from __future__ import annotations

from typing import Literal

from arena.clock import now_iso
from arena.ledger import catalog, chain
from arena.ledger.connection import Ledger
from arena.ledger.voting import new_id
from arena.records import CaseId, Output, OutputId

EventKind = Literal["retire_case", "remove_output", "flag"]


def add_event(ledger: Ledger, family: str, kind: EventKind, *, case_id: str | None = None,
              output_id: str | None = None, presentation_id: str | None = None,
              note: str = "") -> str:
    event_id = new_id()
    with ledger.atomic():
        chain.append(ledger, "events", {
            "event_id": event_id, "family": family, "kind": kind, "case_id": case_id,
            "output_id": output_id, "presentation_id": presentation_id, "note": note,
            "at": now_iso(),
        })
    return event_id


def retired_cases(ledger: Ledger, family: str) -> set[CaseId]:
    return {CaseId(r["case_id"]) for r in ledger.db["events"].rows_where(
        "family = ? AND kind = 'retire_case'", [family], select="case_id")}


def outputs_in_force(ledger: Ledger, family: str) -> list[Output]:
    """The outputs of ``family`` not removed and not on a retired case, in import order."""
    retired = retired_cases(ledger, family)
    removed = removed_outputs(ledger, family)
    return [o for o in catalog.outputs(ledger, family)
            if o.case_id not in retired and o.output_id not in removed]


def removed_outputs(ledger: Ledger, family: str) -> set[OutputId]:
    return {OutputId(r["output_id"]) for r in ledger.db["events"].rows_where(
        "family = ? AND kind = 'remove_output'", [family], select="output_id")}
