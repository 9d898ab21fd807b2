"""Migration 0020: cases that exist before any output, and the systems a family collects.

``case_details`` holds what `arena case import` reads of a case beyond its prompt: its
turns (a multi-turn case is asked turn by turn), its reference answer and its metadata.
``family_systems`` lists the systems `arena systems add` gave a family, so `arena
collect` knows whom to ask before any of them has an output. Both only grow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

COLLECTING_TABLES: dict[str, str] = {"case_details": "seq", "family_systems": "seq"}


@migrations(name="0020_collecting")
def _collecting(db: Database) -> None:
    run_script(
        db,
        """
        CREATE TABLE case_details (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL,
            case_id TEXT NOT NULL,
            turns TEXT NOT NULL,
            reference TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            FOREIGN KEY (family, case_id) REFERENCES cases(family, case_id),
            UNIQUE (family, case_id)
        );
        CREATE TABLE family_systems (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            system_id TEXT NOT NULL REFERENCES systems(system_id),
            label TEXT NOT NULL,
            added_at TEXT NOT NULL,
            UNIQUE (family, system_id)
        );
        CREATE INDEX family_systems_by_label ON family_systems(family, label);
        """,
    )
    seal_new_tables(db, COLLECTING_TABLES)
    set_version(db, 20)
