"""Migration 0024: whether a tests family may mix agents (``mixed_harness``: report or
allow) changes by ``family_changes`` rows like its other settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_FAMILY_CHANGES, guard_sql
from arena.ledger.migrations_0013 import family_changes_table
from arena.ledger.migrations_0021 import CHANGEABLE as CHANGEABLE_0021
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# Whether a tests family's systems may differ in harness or turn budget (arena.rating.one_agent).
MIXED_HARNESS = "mixed_harness"
CHANGEABLE: tuple[str, ...] = (*CHANGEABLE_0021, MIXED_HARNESS)


@migrations(name="0024_mixed_harness")
def _mixed_harness(db: Database) -> None:
    """As in 0015: SQLite cannot change a CHECK constraint, so ``family_changes`` is
    rebuilt with its rows copied unchanged (same seq, same values: their seals still
    match), its index and guards re-created. No row is added, so nothing is sealed."""
    run_script(
        db,
        f"""
        {family_changes_table("family_changes_0024", CHANGEABLE)}
        INSERT INTO family_changes_0024 (seq, change_id, family, setting, value, actor,
                                         reason, at)
            SELECT seq, change_id, family, setting, value, actor, reason, at
            FROM family_changes ORDER BY seq;
        DROP TABLE family_changes;
        ALTER TABLE family_changes_0024 RENAME TO family_changes;
        CREATE INDEX family_changes_by_family ON family_changes(family, seq);
        """,
    )
    for table, key in IMMUTABLE_FAMILY_CHANGES.items():
        run_script(db, guard_sql(table, key, chained=False))
    set_version(db, 24)
