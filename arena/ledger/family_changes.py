"""Changes to a family after it was created: settings, reference, label, archived state.

A family's row keeps what it was created with and is never rewritten; each change is a
row of ``family_changes`` (append-only, sealed like every table). What is in force is
the row overlaid with the newest change of each setting (``in_force``); ``catalog``
returns families that way, so the gates, rounds and status read the settings in force.
The repeat settings (how often and how far apart repeats come back) and the pair choice
are read apart by the rating session (``repeat_settings``, ``pair_choice``), whether a
tests family may mix agents by status and round close (``mixed_harness``): the gates
never read them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from arena.clock import now_iso
from arena.ledger.connection import Ledger
from arena.ledger.migrations_0013 import FAMILY_SETTINGS
from arena.ledger.migrations_0015 import REPEAT_SETTINGS
from arena.ledger.migrations_0021 import PAIR_SETTING
from arena.ledger.migrations_0024 import MIXED_HARNESS
from arena.ledger.migrations_0027 import CHANGEABLE, UNSURE_FIRST
from arena.ledger.voting import new_id
from arena.records import MIXED_HARNESS_CHOICES, Family, SystemId


@dataclass(frozen=True)
class FamilyChange:
    """One change: ``setting`` set to ``value`` (JSON: a string, a number or a boolean)."""

    seq: int
    change_id: str
    family: str
    setting: str
    value: Any
    actor: str
    reason: str
    at: str

    def as_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id,
            "setting": self.setting,
            "value": self.value,
            "actor": self.actor,
            "reason": self.reason,
            "at": self.at,
        }


@dataclass(frozen=True)
class Listing:
    """How a family is listed: its label (the name unless renamed) and whether archived."""

    label: str
    archived: bool = False


def add_change(
    ledger: Ledger,
    family: str,
    setting: str,
    value: Any,
    *,
    actor: str = "rater",
    reason: str = "",
) -> str:
    """Append one change; call inside ``ledger.atomic()`` to join a larger write."""
    if setting not in CHANGEABLE:
        raise ValueError(f"setting: {setting!r} is not one of {', '.join(CHANGEABLE)}")
    change_id = new_id()
    with ledger.atomic():
        ledger.conn.execute(
            "INSERT INTO family_changes (change_id, family, setting, value, actor, reason, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                change_id,
                family,
                setting,
                json.dumps(value, ensure_ascii=False),
                actor,
                reason,
                now_iso(),
            ],
        )
    return change_id


def changes(ledger: Ledger, family: str | None = None) -> list[FamilyChange]:
    """The changes of ``family`` (of every family when None), oldest first."""
    where, params = ("WHERE family = ?", [family]) if family is not None else ("", [])
    rows = ledger.conn.execute(
        "SELECT seq, change_id, family, setting, value, actor, reason, at "
        f"FROM family_changes {where} ORDER BY seq",
        params,
    )
    return [
        FamilyChange(seq, cid, fam, setting, json.loads(value), actor, reason, at)
        for seq, cid, fam, setting, value, actor, reason, at in rows
    ]


def by_family(ledger: Ledger) -> dict[str, list[FamilyChange]]:
    found: defaultdict[str, list[FamilyChange]] = defaultdict(list)
    for change in changes(ledger):
        found[change.family].append(change)
    return found


def _newest(found: Iterable[FamilyChange]) -> dict[str, Any]:
    newest: dict[str, Any] = {}
    for change in found:
        newest[change.setting] = change.value
    return newest


def repeat_settings(ledger: Ledger, family: str) -> dict[str, Any]:
    """The repeat settings changed for ``family`` (``REPEAT_SETTINGS``), newest value each;
    a setting never changed is absent (the scheduler's default holds)."""
    newest = _newest(changes(ledger, family))
    return {k: v for k, v in newest.items() if k in REPEAT_SETTINGS}


def _newest_value(ledger: Ledger, family: str, setting: str) -> Any:
    """The newest value recorded for ``setting`` of ``family``, or None when it has none."""
    row = ledger.conn.execute(
        "SELECT value FROM family_changes WHERE family = ? AND setting = ? "
        "ORDER BY seq DESC LIMIT 1",
        [family, setting],
    ).fetchone()
    return None if row is None else json.loads(row[0])


def pair_choice(ledger: Ledger, family: str) -> str | None:
    """The pair choice recorded for ``family`` (the newest), or None when it has none."""
    value = _newest_value(ledger, family, PAIR_SETTING)
    return None if value is None else str(value)


def unsure_first(ledger: Ledger, family: str) -> str:
    """Whether the rater's pairs may favour items a run judge is unsure of (``on``: it
    applies only when the family has a run judge) or not (``off``, the default: at 4 times
    as often the weights cost more rater votes than they save, benchmarks/ppi_simulation.py)."""
    value = _newest_value(ledger, family, UNSURE_FIRST)
    return "off" if value is None else str(value)


def mixed_harness(ledger: Ledger, family: str) -> str:
    """Whether a tests family's systems may differ in harness or turn budget: ``report``
    (the default: status, round close and the board say so) or ``allow``."""
    value = _newest_value(ledger, family, MIXED_HARNESS)
    return MIXED_HARNESS_CHOICES[0] if value is None else str(value)


def in_force(
    ledger: Ledger, family: Family, found: Iterable[FamilyChange]
) -> tuple[Family, Listing]:
    """``family`` (as created) with the newest of each change in ``found`` applied.

    A reference is stored as the system id when the family had the system, else as the
    label it was given (``arena family create --reference``): it names the system with
    that label once the family has it, and nothing (no reference) until then.
    """
    newest = _newest(found)
    settings = {k: v for k, v in newest.items() if k in FAMILY_SETTINGS}
    if "reference" in settings:
        settings["reference"] = resolve_reference(ledger, family.name, settings["reference"])
    listing = Listing(str(newest.get("label") or family.name), bool(newest.get("archived")))
    return replace(family, **settings), listing


def resolve_reference(ledger: Ledger, family: str, value: str | None) -> SystemId | None:
    """The system of ``family`` that ``value`` (an id, or a label) names, or None."""
    if value is None:
        return None
    row = ledger.conn.execute(
        "SELECT s.system_id FROM systems s WHERE (s.system_id = ? OR s.label = ?) AND "
        "EXISTS (SELECT 1 FROM outputs o WHERE o.family = ? AND o.system_id = s.system_id)",
        [value, value, family],
    ).fetchall()
    return SystemId(row[0][0]) if len(row) == 1 else None
