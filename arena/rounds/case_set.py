"""The case set of a round: the cases in force, by hash, and how they differ from the
last round's.

A family keeps its cases, but new ones may be imported after rounds were closed and a
case may be retired: each round records its case set (``case_set``) so a reader of two
rounds sees that their boards rest on different cases, and which.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from arena.canonical import content_hash, sha256_hex
from arena.records import Case, CaseId
from arena.rounds.round_records import CaseSet

if TYPE_CHECKING:
    from arena.rounds.model import Round


def case_set_hash(cases: Iterable[Case]) -> str:
    """sha256 of the canonical JSON of each case's id, category and prompt hash, by id:
    the same cases give the same hash in any ledger, whatever order they came in."""
    return content_hash(
        [[c.case_id, c.category, sha256_hex(c.prompt)] for c in sorted(cases, key=_by_id)]
    )


def _by_id(case: Case) -> str:
    return case.case_id


def case_set(cases: Iterable[Case], previous: Round | None) -> tuple[CaseSet, list[CaseId]]:
    """The record of ``cases`` (those in force), and their ids: ``since`` the last round
    of the family (None for its first), ``added`` and ``retired`` the cases it lacked and
    those it had that are not in force now (None when that round did not record its
    cases)."""
    cases = list(cases)
    ids = sorted(c.case_id for c in cases)
    before = None if previous is None else previous.case_ids
    record = CaseSet(
        case_set_hash(cases),
        len(ids),
        None if previous is None else previous.round_id,
        None if before is None else tuple(sorted(set(ids) - set(before))),
        None if before is None else tuple(sorted(set(before) - set(ids))),
    )
    return record, ids


def restated(record: CaseSet, earlier: str) -> CaseSet:
    """The case set of a round restating ``earlier`` (closed on the same inputs)."""
    return dataclasses.replace(record, since=earlier, added=(), retired=())


def describe(record: CaseSet) -> str:
    """``12 cases (hash 1a2b3c4d5e6f); since round 9f8e7d6c5b4a: 2 added (t7, t8), 1
    retired (t3)``."""
    text = f"{record.cases} cases (hash {record.hash[:12]})"
    if record.since is None:
        return text + "; the family's first round"
    since = f"since round {record.since[:12]}"
    if record.added is None or record.retired is None:
        return f"{text}; {since}, which did not record its cases"
    changes = [
        f"{len(ids)} {key} ({_few(ids)})"
        for key, ids in (("added", record.added), ("retired", record.retired))
        if ids
    ]
    return f"{text}; {since}: " + (", ".join(changes) or "the same cases")


def _few(ids: tuple[str, ...], shown: int = 5) -> str:
    more = len(ids) - shown
    return ", ".join(ids[:shown]) + (f" and {more} more" if more > 0 else "")
