"""Migration 0015: a family's repeat settings (share, spacing in pairs and in minutes) change
by ``family_changes`` rows like its other settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_FAMILY_CHANGES, guard_sql
from arena.ledger.migrations_0013 import CHANGEABLE as CHANGEABLE_0013
from arena.ledger.migrations_0013 import family_changes_table
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# How often and how far apart repeats come back (arena.pairs.scheduling.RepeatPolicy).
REPEAT_SETTINGS: tuple[str, ...] = ("repeat_share", "repeat_gap", "repeat_minutes")
CHANGEABLE: tuple[str, ...] = CHANGEABLE_0013 + REPEAT_SETTINGS


def widen_family_changes(db: Database, version: int, changeable: tuple[str, ...]) -> None:
    """SQLite cannot change a CHECK constraint, so ``family_changes`` is rebuilt with its
    setting one of ``changeable``: its rows copied unchanged (same seq, same values: their
    seals still match), its index and guards re-created. 0021 and 0024 widen it again."""
    new = f"family_changes_{version:04d}"
    run_script(
        db,
        f"""
        {family_changes_table(new, changeable)}
        INSERT INTO {new} (seq, change_id, family, setting, value, actor,
                                         reason, at)
            SELECT seq, change_id, family, setting, value, actor, reason, at
            FROM family_changes ORDER BY seq;
        DROP TABLE family_changes;
        ALTER TABLE {new} RENAME TO family_changes;
        CREATE INDEX family_changes_by_family ON family_changes(family, seq);
        """,
    )
    for table, key in IMMUTABLE_FAMILY_CHANGES.items():
        run_script(db, guard_sql(table, key, chained=False))


@migrations(name="0015_repeat_settings")
def _repeat_settings(db: Database) -> None:
    """The repeat settings become changeable (``widen_family_changes``)."""
    widen_family_changes(db, 15, CHANGEABLE)
    set_version(db, 15)
