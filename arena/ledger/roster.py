"""What collecting reads and adds beside the catalog: a case's turns, reference and
metadata (``case_details``), and the systems a family collects from (``family_systems``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena.clock import now_iso
from arena.errors import BadInput
from arena.ledger.connection import Ledger
from arena.records import CaseId, System, SystemDescriptor, SystemId


@dataclass(frozen=True)
class CaseDetails:
    """A case as `arena case import` read it: the user turns asked in order (one for a
    single-turn case), the reference answer if the file gave one, and its metadata."""

    turns: tuple[str, ...]
    reference: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def add_case_details(ledger: Ledger, family: str, case_id: str, details: CaseDetails) -> bool:
    """Store a case's details once; the same again adds nothing, different ones are refused."""
    old = case_details(ledger, family, [case_id]).get(CaseId(case_id))
    if old is not None:
        if old != details:
            raise BadInput(
                f"case {case_id!r} is already in family {family!r} with other turns, "
                "reference or metadata",
                field="case",
            )
        return False
    ledger.insert(
        "case_details",
        {
            "family": family,
            "case_id": case_id,
            "turns": json.dumps(list(details.turns), ensure_ascii=False),
            "reference": details.reference,
            "metadata": json.dumps(details.metadata, sort_keys=True, ensure_ascii=False),
        },
    )
    return True


def case_details(
    ledger: Ledger, family: str, case_ids: list[str] | None = None
) -> dict[CaseId, CaseDetails]:
    """The details of ``family``'s cases that have them (only ``case_ids`` when given)."""
    sql = "SELECT case_id, turns, reference, metadata FROM case_details WHERE family = ?"
    params: list[object] = [family]
    if case_ids is not None:
        sql += f" AND case_id IN ({', '.join('?' * len(case_ids))})"
        params += case_ids
    return {
        CaseId(case_id): CaseDetails(tuple(json.loads(turns)), reference, json.loads(metadata))
        for case_id, turns, reference, metadata in ledger.conn.execute(sql, params)
    }


def add_family_system(ledger: Ledger, family: str, system_id: SystemId, label: str) -> bool:
    """Give ``family`` a system to collect from; a label names one system in a family."""
    clash = ledger.conn.execute(
        "SELECT system_id FROM family_systems WHERE family = ? AND label = ? AND system_id != ? "
        "UNION SELECT system_id FROM systems WHERE label = ? AND system_id != ? AND system_id "
        "IN (SELECT system_id FROM outputs WHERE family = ?) LIMIT 1",
        [family, label, system_id, label, system_id, family],
    ).fetchone()
    if clash:
        raise BadInput(
            f"label {label!r} already names system {clash[0][:12]}… in family {family!r}; a "
            "changed descriptor is a new system and needs its own label",
            field="label",
        )
    if ledger.conn.execute(
        "SELECT 1 FROM family_systems WHERE family = ? AND system_id = ?", [family, system_id]
    ).fetchone():
        return False
    ledger.insert(
        "family_systems",
        {"family": family, "system_id": system_id, "label": label, "added_at": now_iso()},
    )
    return True


def family_systems(ledger: Ledger, family: str) -> list[System]:
    """The systems added to ``family`` to collect from, under the labels they were added
    with, in the order they were added."""
    rows = ledger.conn.execute(
        "SELECT f.system_id, f.label, s.descriptor FROM family_systems f "
        "JOIN systems s USING (system_id) WHERE f.family = ? ORDER BY f.seq",
        [family],
    )
    return [
        System(SystemId(system_id), label, SystemDescriptor(**json.loads(descriptor)))
        for system_id, label, descriptor in rows
    ]


def output_ids(ledger: Ledger, family: str) -> set[str]:
    """The id of every output ``family`` holds (removed ones too: a removed output is
    not collected again)."""
    return {
        row[0]
        for row in ledger.conn.execute("SELECT output_id FROM outputs WHERE family = ?", [family])
    }
