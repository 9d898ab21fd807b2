"""Migration 0013: changes to a family's settings, label and archived state, as rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.ledger.guards import IMMUTABLE_FAMILY_CHANGES, guard_sql
from arena.ledger.steps import migrations, run_script, set_version

if TYPE_CHECKING:
    from sqlite_utils import Database

# What a change may set (arena.ledger.family_changes): the settings a Family record
# carries (those the gates and rounds read, and the reference system), and the family's
# display label and archived state.
FAMILY_SETTINGS: tuple[str, ...] = (
    "kind",
    "language",
    "min_chars",
    "max_chars",
    "aspect",
    "reference",
)
CHANGEABLE: tuple[str, ...] = FAMILY_SETTINGS + ("label", "archived")


def family_changes_table(name: str, changeable: tuple[str, ...]) -> str:
    """``CREATE TABLE name`` with the columns of ``family_changes``, its setting one of
    ``changeable``: 0015 rebuilds the table with these columns to widen that CHECK.
    Indented as the migrations' scripts are, so the SQL each ran stays the same."""
    among = ", ".join(f"'{s}'" for s in changeable)
    return f"""CREATE TABLE {name} (
            seq INTEGER PRIMARY KEY,
            change_id TEXT NOT NULL UNIQUE,
            family TEXT NOT NULL REFERENCES families(name),
            setting TEXT NOT NULL CHECK (setting IN ({among})),
            value TEXT NOT NULL,
            actor TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL
        );"""


@migrations(name="0013_family_changes")
def _family_changes(db: Database) -> None:
    """A family's row keeps the settings it was created with; each later change is a row
    here (the newest per setting is in force), so no family row is ever rewritten."""
    run_script(
        db,
        f"""
        {family_changes_table("family_changes", CHANGEABLE)}
        CREATE INDEX family_changes_by_family ON family_changes(family, seq);
        """,
    )
    for table, key in IMMUTABLE_FAMILY_CHANGES.items():
        run_script(db, guard_sql(table, key, chained=False))
    set_version(db, 13)
