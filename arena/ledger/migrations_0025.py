"""Migration 0025: the colleagues whose votes came in from their signed bundles.

``rater_keys`` holds one row per rater whose votes `arena import-votes BUNDLE --signer`
brought in: the fingerprint of the key that signed the bundle, the name the votes carry
in it (``voter``: often the default ``rater``) and the rater's name in this ledger. A
later bundle of the same key finds the same name; no other key brings votes under it.
It only grows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.migrations_0016 import seal_new_tables
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

RATER_KEY_TABLES: dict[str, str] = {"rater_keys": "seq"}


@migrations(name="0025_rater_keys")
def _rater_keys(db: Database) -> None:
    run_script(
        db,
        """
        CREATE TABLE rater_keys (
            seq INTEGER PRIMARY KEY,
            rater TEXT NOT NULL UNIQUE,
            signer TEXT NOT NULL,
            voter TEXT NOT NULL,
            source_sha256 TEXT NOT NULL,
            added_at TEXT NOT NULL,
            CHECK (rater != 'settler'),
            UNIQUE (signer, voter)
        );
        """,
    )
    seal_new_tables(db, RATER_KEY_TABLES)
    set_version(db, 25)
