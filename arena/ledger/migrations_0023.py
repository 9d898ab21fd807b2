"""Migration 0023: where each judge's verdicts came from.

``judge_sources`` holds one row per file imported for a judge: its sha256, the format it
was read as and, for a colleague's bundle, the fingerprint of the key that signed it (the
one ``--signer`` named and ``arena verify`` checked). It only grows. Sources imported
before it have no row: their verdicts still name them by sha256 (``judge_store``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

JUDGE_SOURCE_TABLES: dict[str, str] = {"judge_sources": "seq"}


@migrations(name="0023_judge_sources")
def _judge_sources(db: Database) -> None:
    run_script(
        db,
        """
        CREATE TABLE judge_sources (
            seq INTEGER PRIMARY KEY,
            family TEXT NOT NULL REFERENCES families(name),
            judge TEXT NOT NULL,
            source_sha256 TEXT NOT NULL,
            format TEXT NOT NULL,
            signer TEXT,
            imported_at TEXT NOT NULL,
            CHECK ((format = 'bundle') = (signer IS NOT NULL)),
            UNIQUE (family, judge, source_sha256)
        );
        """,
    )
    seal_new_tables(db, JUDGE_SOURCE_TABLES)
    set_version(db, 23)
